/**
 * Builds better-sqlite3 for Electron's ABI into build/native/electron-<version>/, leaving the
 * Node build in node_modules untouched (tests, CLI and `serve` keep using it). The main process
 * loads it through better-sqlite3's `nativeBinding` option (src/main/native.ts).
 * Tries a prebuilt binary first (prebuild-install), then compiles against Electron's headers.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export function ensureElectronNative(root, electronVersion) {
  const outDir = join(root, 'build', 'native', `electron-${electronVersion}`);
  const target = join(outDir, 'better_sqlite3.node');
  if (existsSync(target)) return { ok: true, file: target };
  const src = dirname(require.resolve('better-sqlite3/package.json'));
  const work = join(root, 'build', 'native', `work-${electronVersion}`);
  rmSync(work, { recursive: true, force: true });
  cpSync(src, work, { recursive: true, filter: (p) => !p.includes(`${src}/build`) });
  const run = (cmd, args) => spawnSync(cmd, args, { cwd: work, stdio: 'inherit', shell: process.platform === 'win32' });
  let ok = run('npx', ['--no-install', 'prebuild-install', '--runtime', 'electron', '--target', electronVersion]).status === 0;
  if (!ok) {
    ok = run('npx', ['--no-install', 'node-gyp', 'rebuild', '--release', '--runtime=electron', `--target=${electronVersion}`, '--dist-url=https://electronjs.org/headers']).status === 0;
  }
  const built = join(work, 'build', 'Release', 'better_sqlite3.node');
  if (!ok || !existsSync(built)) return { ok: false, reason: 'could not build better-sqlite3 for Electron' };
  mkdirSync(outDir, { recursive: true });
  cpSync(built, target);
  rmSync(work, { recursive: true, force: true });
  return { ok: true, file: target };
}
