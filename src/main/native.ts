/**
 * better-sqlite3 is a native module: the build that Node loads (tests, CLI, serve) has Node's ABI,
 * and Electron needs one built for Electron's ABI. `npm start` (scripts/electron-native.mjs)
 * builds the Electron one into build/native/electron-<version>/ and leaves node_modules untouched,
 * so both runtimes keep working side by side; the main process passes that file to
 * better-sqlite3's `nativeBinding` option.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export function electronNativeDir(appRoot: string, electronVersion: string): string {
  return join(appRoot, 'build', 'native', `electron-${electronVersion}`);
}

/** The Electron-ABI better_sqlite3.node when it was built, else undefined (Node's build is used). */
export function electronNativeBinding(appRoot: string): string | undefined {
  const version = process.versions.electron;
  if (!version) return undefined;
  const file = join(electronNativeDir(appRoot, version), 'better_sqlite3.node');
  return existsSync(file) ? file : undefined;
}
