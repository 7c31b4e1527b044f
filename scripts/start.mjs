#!/usr/bin/env node
/**
 * `npm start` (and `npm run dev` with --dev): build, make sure Electron and its native SQLite
 * module are there, and open the app on the bundled sample (or on the files given after `--`).
 * Where the running Node is older than the desktop toolchain needs (package.json `desktopEngines`),
 * or the Electron binary cannot be had, say so in one sentence and exit non-zero.
 */
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureElectron } from './electron-check.mjs';
import { ensureElectronNative } from './electron-native.mjs';
import { nodeProblem, readPackage } from './node-check.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dev = process.argv.includes('--dev');
const passThrough = process.argv.slice(2).filter((a) => a !== '--dev');

// Before anything is built or downloaded: on an older Node the toolchain fails later and less clearly.
const nodeTooOld = nodeProblem('desktop', process.version, readPackage());
if (nodeTooOld) {
  console.error(nodeTooOld);
  process.exit(1);
}

const electron = ensureElectron();
if (!electron.path) {
  console.error(
    `Context Scope cannot open its window: ${electron.reason} (Electron downloads it on first start; ` +
      'check your network or proxy, or set ELECTRON_MIRROR, then run `npm start` again) — ' +
      '`npm run serve` gives the same UI in your browser without Electron.',
  );
  process.exit(1);
}

const native = await ensureElectronNative(root, electron.version);
if (!native.ok) {
  console.error(
    `Context Scope cannot open its database in Electron: ${native.reason} — \`npm run serve\` gives the same UI in your browser.`,
  );
  process.exit(1);
}

const viteBin = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'electron-vite.cmd' : 'electron-vite');
if (dev) {
  const child = spawn(viteBin, ['dev', '--', ...passThrough], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  child.on('exit', (code) => process.exit(code ?? 1));
} else {
  const build = spawnSync(viteBin, ['build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const child = spawn(electron.path, [root, ...passThrough], { cwd: root, stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 1));
}
