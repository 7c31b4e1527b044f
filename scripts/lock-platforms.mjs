#!/usr/bin/env node
/**
 * Keeps package-lock.json complete for `npm ci` on any platform. This machine's registry mirror
 * serves only linux builds of rollup's native packages, so `npm install` leaves the other
 * platforms' optional packages out of the lock, and `npm ci` then refuses the lock. This adds
 * the missing entries with their os/cpu/libc, so npm skips them on other platforms exactly as it
 * would with a lock written against the full registry. Run after changing dependencies.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lockPath = join(root, 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const OS = {
  android: 'android',
  darwin: 'darwin',
  freebsd: 'freebsd',
  linux: 'linux',
  openbsd: 'openbsd',
  win32: 'win32',
  openharmony: 'openharmony',
};
let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const m = /^@rollup\/rollup-([a-z0-9]+)-([a-z0-9]+)(?:-(gnu|musl|gnueabihf|musleabihf|eabi|msvc))?$/.exec(dep);
    if (!m) continue;
    const where = `${key ? key + '/' : ''}node_modules/${dep}`.replace(/^node_modules\/rollup\/node_modules/, 'node_modules');
    const top = `node_modules/${dep}`;
    if (lock.packages[top] || lock.packages[where]) continue;
    const [, os, arch, abi] = m;
    const cpu = arch === 'x64' ? 'x64' : arch === 'ia32' ? 'ia32' : arch === 'arm64' ? 'arm64' : arch === 'arm' ? 'arm' : arch;
    lock.packages[top] = {
      version,
      cpu: [cpu],
      license: 'MIT',
      optional: true,
      os: [OS[os] ?? os],
      ...(abi === 'gnu' || abi === 'gnueabihf' ? { libc: ['glibc'] } : abi === 'musl' || abi === 'musleabihf' ? { libc: ['musl'] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`lock-platforms: added ${added} platform entr${added === 1 ? 'y' : 'ies'}`);
