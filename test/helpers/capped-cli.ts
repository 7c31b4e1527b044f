/**
 * The CLI from source in one process under a heap cap (tsx as a loader, so the cap applies to it),
 * and the check that it ran to its end: what the memory tests run for every shape they try.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';

const root = resolve(__dirname, '../..');

export interface CliRun {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `ctxscope ARGS` with `--max-old-space-size=heapMb`; `dir` holds the database it must not use. */
export function cappedCli(heapMb: number, dir: string, ...args: string[]): CliRun {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, '--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', CTXSCOPE_DB: join(dir, 'unused.db') },
    maxBuffer: 1 << 24,
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** The run ended by itself with exit 0: not out of heap, not killed. */
export function expectRanToEnd(r: CliRun): void {
  expect(r.stderr).not.toMatch(/heap out of memory/);
  expect(r.signal).toBeNull();
  expect(r.status).toBe(0);
}
