/**
 * better-sqlite3 is a native module: the build that Node loads (tests, CLI, serve) has Node's ABI,
 * and Electron needs one built for Electron's ABI. In a checkout, `npm start`
 * (scripts/electron-native.mjs, with @electron/rebuild) builds the Electron one into
 * build/native/electron-<version>/ and leaves node_modules untouched, so both runtimes keep
 * working side by side; a packaged app carries the copy electron-builder rebuilt (also with
 * @electron/rebuild) and unpacked from the asar. The main process passes the file to
 * better-sqlite3's `nativeBinding` option.
 */
import { existsSync } from 'node:fs';
import { runtimeResource, type Layout } from './resources';

/** The Electron-ABI better_sqlite3.node when there is one, else undefined (Node's build is used). */
export function electronNativeBinding(layout: Layout, electronVersion: string | undefined = process.versions.electron): string | undefined {
  if (!electronVersion) return undefined;
  const file = runtimeResource('native-sqlite', layout, electronVersion);
  return existsSync(file) ? file : undefined;
}
