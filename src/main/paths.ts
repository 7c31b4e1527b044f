/**
 * Where the session database lives when no `--db` is given: $CTXSCOPE_DB, else the app's
 * user-data folder (the same folder Electron's app.getPath('userData') uses for "Context Scope"),
 * so the desktop app, `ctxscope serve` and the CLI share one database.
 */
import { homedir, platform } from 'node:os';
import { join } from 'node:path';

export const APP_DIR_NAME = 'Context Scope';
export const DB_FILE_NAME = 'ctxscope.db';

export function userDataDir(env: NodeJS.ProcessEnv = process.env, os: NodeJS.Platform = platform(), home = homedir()): string {
  if (os === 'win32') return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
  if (os === 'darwin') return join(home, 'Library', 'Application Support', APP_DIR_NAME);
  return join(env['XDG_CONFIG_HOME'] ?? join(home, '.config'), APP_DIR_NAME);
}

export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['CTXSCOPE_DB'];
  if (fromEnv && fromEnv.trim() !== '') return fromEnv;
  return join(userDataDir(env), DB_FILE_NAME);
}
