#!/usr/bin/env node
/**
 * Which Node each path of the project needs, said in one sentence before anything else runs.
 *
 * The CLI, `serve` and the tests run on the Node that package.json's `engines` names. The desktop
 * toolchain (the electron package's installer, @electron/get, @electron/rebuild, electron-builder)
 * needs a newer one: package.json's `desktopEngines.node`. `npm start`, `npm run dev` and
 * `npm run package*` call `node scripts/node-check.mjs desktop` first; bin/ctxscope.mjs checks `cli`.
 *
 * Ranges are written as `>=MAJOR.MINOR[.PATCH]`, the only form the project uses; anything else in
 * package.json is a mistake this script reports instead of guessing.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `>=22.12` → [22, 12, 0]; throws on any other shape. */
export function parseMinimum(range) {
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(String(range).trim());
  if (!m) throw new Error(`package.json: expected a Node range like ">=22.12", found ${JSON.stringify(range)}`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

/** `v20.20.2` or `20.20.2` → [20, 20, 2]. */
export function parseVersion(version) {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(String(version));
  if (!m) throw new Error(`not a Node version: ${JSON.stringify(version)}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

export function atLeast(version, minimum) {
  for (let i = 0; i < 3; i++) {
    if (version[i] !== minimum[i]) return version[i] > minimum[i];
  }
  return true;
}

/** The ranges package.json declares for the two paths. */
export function requirements(pkg) {
  return { cli: pkg.engines?.node, desktop: pkg.desktopEngines?.node };
}

/**
 * null when `version` satisfies the path's range; else the one sentence to print.
 * @param {'cli' | 'desktop'} path
 */
export function nodeProblem(path, version, pkg) {
  const range = requirements(pkg)[path];
  if (!range) throw new Error(`package.json declares no Node range for the ${path} path`);
  const min = parseMinimum(range);
  if (atLeast(parseVersion(version), min)) return null;
  const need = String(range).replace(/^>=\s*/, '');
  if (path === 'desktop') {
    return (
      `Context Scope's desktop app needs Node ${need} or newer (Electron's installer and native rebuild ` +
      `require it); this is Node ${String(version).replace(/^v/, '')} — install a newer Node, or use ` +
      '`npm run serve` and the `ctxscope` CLI, which run on this one.'
    );
  }
  return `ctxscope needs Node ${need} or newer; this is Node ${String(version).replace(/^v/, '')}.`;
}

export function readPackage() {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
}

// Run as a script: `node scripts/node-check.mjs desktop|cli` exits 1 with the sentence on stderr.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const path = process.argv[2];
  if (path !== 'desktop' && path !== 'cli') {
    console.error('usage: node scripts/node-check.mjs desktop|cli');
    process.exit(2);
  }
  const problem = nodeProblem(path, process.version, readPackage());
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
