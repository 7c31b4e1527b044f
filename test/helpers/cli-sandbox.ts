/**
 * The CLI as a user runs it, from a test: the built `ctxscope` bin in a child process, against a
 * database in a temp folder made before the file's tests and removed after them.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export const root = join(__dirname, '..', '..');
export const bin = join(root, 'bin', 'ctxscope.mjs');
export const sample = join(root, 'resources', 'sample', 'sample-session.jsonl');

export interface CliSandbox {
  /** The temp folder (valid inside the tests). */
  readonly dir: string;
  run(...args: string[]): SpawnSyncReturns<string>;
}

export function cliSandbox(prefix: string): CliSandbox {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    get dir() {
      return dir;
    },
    run: (...args) =>
      spawnSync(process.execPath, [bin, ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, CTXSCOPE_DB: join(dir, 'cli.db') },
      }),
  };
}
