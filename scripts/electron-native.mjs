/**
 * Builds better-sqlite3 for Electron's ABI into build/native/electron-<version>/, leaving the
 * Node build in node_modules untouched (tests, CLI and `serve` keep using it). The main process
 * loads it through better-sqlite3's `nativeBinding` option (src/main/native.ts).
 *
 * The build is @electron/rebuild's — the same tool electron-builder runs when it packages the app
 * (electron-builder.config.cjs, `npmRebuild`) — run on a copy of the module in a work folder: it
 * takes a prebuilt binary for this Electron when one exists, else compiles against Electron's
 * headers.
 */
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export function electronNativeFile(root, electronVersion) {
  return join(root, 'build', 'native', `electron-${electronVersion}`, 'better_sqlite3.node');
}

/** @returns {Promise<{ ok: true, file: string } | { ok: false, reason: string }>} */
export async function ensureElectronNative(root, electronVersion) {
  const target = electronNativeFile(root, electronVersion);
  if (existsSync(target)) return { ok: true, file: target };
  const src = dirname(require.resolve('better-sqlite3/package.json'));
  const pkg = require('better-sqlite3/package.json');
  const work = join(root, 'build', 'native', `work-${electronVersion}`);
  rmSync(work, { recursive: true, force: true });
  // A minimal app folder: a copy of better-sqlite3 (its Node build left out) and links to the
  // packages it depends on, so @electron/rebuild rebuilds only this copy.
  const modules = join(work, 'node_modules');
  cpSync(src, join(modules, 'better-sqlite3'), { recursive: true, filter: (p) => !p.startsWith(join(src, 'build')) });
  for (const dep of Object.keys(pkg.dependencies ?? {})) {
    const depDir = dirname(require.resolve(`${dep}/package.json`, { paths: [src] }));
    if (!existsSync(join(modules, dep))) symlinkSync(depDir, join(modules, dep), 'junction');
  }
  writeFileSync(
    join(work, 'package.json'),
    JSON.stringify({ name: 'ctxscope-native', version: '0.0.0', dependencies: { 'better-sqlite3': pkg.version } }),
  );
  try {
    const { rebuild } = await import('@electron/rebuild');
    await rebuild({ buildPath: work, electronVersion, onlyModules: ['better-sqlite3'], force: true });
  } catch (e) {
    return { ok: false, reason: `could not build better-sqlite3 for Electron ${electronVersion}: ${e?.message ?? e}` };
  }
  const built = join(modules, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(built)) return { ok: false, reason: `could not build better-sqlite3 for Electron ${electronVersion}` };
  mkdirSync(dirname(target), { recursive: true });
  cpSync(built, target);
  rmSync(work, { recursive: true, force: true });
  return { ok: true, file: target };
}
