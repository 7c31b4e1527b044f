/**
 * Finds the Electron binary, downloading it on first use (Electron >= 45 fetches its binary lazily
 * instead of at `npm install`). Returns the executable path, or null with the reason.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export function electronPackageDir() {
  try {
    return dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
}

function installedBinary(dir) {
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const exe = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(exe) ? exe : null;
}

/** @returns {{ path: string, version: string } | { path: null, reason: string }} */
export function ensureElectron({ download = true } = {}) {
  const dir = electronPackageDir();
  if (!dir) return { path: null, reason: 'the electron package is not installed' };
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  let exe = installedBinary(dir);
  if (!exe && download) {
    // Output is captured: on failure the caller prints one sentence, not a stack trace.
    const result = spawnSync(process.execPath, [join(dir, 'install.js')], { encoding: 'utf8', timeout: 10 * 60_000 });
    if (result.status === 0) exe = installedBinary(dir);
  }
  return exe ? { path: exe, version } : { path: null, reason: `the Electron ${version} binary is missing and could not be downloaded` };
}
