#!/usr/bin/env node
/**
 * Runs Doyensec's electronegativity (Electron security lint) over the main process and preload
 * sources and the built app (src/main, src/preload, out/ — run `npm run build` first), offline,
 * and fails on any HIGH or MEDIUM finding that resources/electronegativity-accepted.json does not
 * list with a written reason. Part of `npm test`; `npm run audit:electron` alone.
 *
 * Offline: the tool fetches translations and Electron's release list from the network. Its HTTP
 * client is replaced by one that fails at once, and the release check (which only says whether a
 * newer Electron exists) is excluded, so nothing leaves the machine and nothing waits on a timeout.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
export const ACCEPTED_FILE = join(root, 'resources', 'electronegativity-accepted.json');
/** What is scanned, relative to the package root. */
export const SCANNED = ['src/main', 'src/preload', 'out/main', 'out/preload', 'out/renderer'];
const FAILING = new Set(['HIGH', 'MEDIUM']);

function offlineHttp() {
  const toolRequire = createRequire(require.resolve('@doyensec/electronegativity/package.json'));
  const gotPath = toolRequire.resolve('got');
  const refuse = () => Promise.reject(new Error('electronegativity runs offline here'));
  const stub = Object.assign(refuse, { get: refuse, default: refuse });
  toolRequire.cache[gotPath] = { id: gotPath, filename: gotPath, loaded: true, exports: stub, children: [], paths: [] };
}

/** The accepted findings: `[{ id, file, reason }]`, each with a reason a reviewer can check. */
export function loadAccepted(text = readFileSync(ACCEPTED_FILE, 'utf8')) {
  const list = JSON.parse(text);
  if (!Array.isArray(list)) throw new Error(`${ACCEPTED_FILE}: expected an array of { id, file, reason }`);
  list.forEach((a, i) => {
    if (typeof a?.id !== 'string' || typeof a?.file !== 'string' || typeof a?.reason !== 'string' || a.reason.trim().length < 20) {
      throw new Error(`${ACCEPTED_FILE}: entry ${i} needs an id, a file and a written reason (20+ characters)`);
    }
  });
  return list;
}

/** Findings that fail the run: HIGH or MEDIUM and not accepted for that file. */
export function unaccepted(issues, accepted) {
  return issues.filter((i) => FAILING.has(i.severity) && !accepted.some((a) => a.id === i.id && a.file === i.file));
}

export async function scan() {
  offlineHttp();
  const run = require('@doyensec/electronegativity');
  // One folder holding every scanned tree, so the global checks (CSP, navigation limits,
  // permission handler) see the whole app at once.
  const work = mkdtempSync(join(tmpdir(), 'ctxscope-electronegativity-'));
  try {
    for (const dir of SCANNED) {
      const from = join(root, dir);
      if (!existsSync(from)) throw new Error(`${dir} is missing: run \`npm run build\` first`);
      cpSync(from, join(work, dir), { recursive: true, filter: (p) => !p.endsWith('.map') });
    }
    const electronVersion = require('electron/package.json').version;
    const quiet = console.log;
    console.log = () => {};
    let result;
    try {
      result = await run({
        input: work,
        customScan: [],
        excludeFromScan: ['availablesecurityfixesglobalcheck'],
        isRelative: true,
        isVerbose: false,
        electronVersionOverride: electronVersion,
        parserPlugins: [],
      });
    } finally {
      console.log = quiet;
    }
    const issues = result.issues.map((i) => ({
      id: i.id,
      severity: i.severity.name,
      confidence: i.confidence.name,
      file: i.file.split(sep).join('/'),
      line: i.location.line,
    }));
    return { issues, errors: result.errors.map((e) => ({ file: relative(work, e.file), message: e.message })) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t0 = Date.now();
  try {
    const accepted = loadAccepted();
    const { issues, errors } = await scan();
    const failing = unaccepted(issues, accepted);
    const counts = ['HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL']
      .map((s) => `${issues.filter((i) => i.severity === s).length} ${s.toLowerCase()}`)
      .join(', ');
    for (const e of errors) console.log(`  ! could not parse ${e.file}: ${e.message}`);
    for (const i of failing)
      console.log(
        `  ✗ ${i.severity} ${i.id} at ${i.file}:${i.line} (${i.confidence}) — fix it, or accept it in resources/electronegativity-accepted.json with a reason`,
      );
    console.log(`electronegativity: ${counts}; ${failing.length} not accepted (${((Date.now() - t0) / 1000).toFixed(1)} s, offline)`);
    process.exit(failing.length > 0 ? 1 : 0);
  } catch (e) {
    console.error(`electronegativity: ${e?.message ?? e}`);
    process.exit(1);
  }
}
