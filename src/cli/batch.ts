/**
 * Batch mode: every transcript of a directory or glob replayed in parallel on worker threads
 * (one per core), one summary row each — for people with thousands of sessions.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { TaskPool, taskModule } from '../main/worker-pool';
import type { ReplayConfig } from '../core/config';

export interface BatchRow {
  readonly file: string;
  readonly format?: string;
  readonly sessions?: number;
  readonly steps?: number;
  readonly compressions?: number;
  readonly peak?: number;
  readonly billedInputTokens?: number;
  readonly cost?: number;
  readonly forcedFinals?: number;
  readonly aborts?: number;
  readonly lost?: number;
  readonly statuses?: Record<string, number>;
  readonly error?: string;
}

export interface BatchJob {
  readonly file: string;
  readonly config: ReplayConfig;
  /** Paths of `--strategy-module` files; each worker loads them itself. */
  readonly strategyModules: readonly string[];
  readonly format?: string;
}

/**
 * A worker that dies on a file (out of memory, a crash in native code) is replaced and the file
 * tried once more; then that file's row says what happened and the batch goes on. Workers that
 * keep dying fail the remaining files the same way, at once (src/main/worker-pool.ts).
 * `filename`: the task module (tests give one whose workers crash).
 */
export async function runBatch(
  jobs: readonly BatchJob[],
  onRow: (row: BatchRow) => void,
  threads = Math.max(1, Math.min(availableParallelism(), jobs.length)),
  filename?: string,
): Promise<BatchRow[]> {
  const here = dirname(fileURLToPath(import.meta.url));
  const pool = new TaskPool({
    name: 'batch',
    filename: filename ?? taskModule([join(here, 'batch-worker.js'), join(here, '..', 'batch-worker.js')], join(here, 'batch-worker.ts')),
    threads,
  });
  try {
    return await Promise.all(
      jobs.map(async (job) => {
        const row = await pool.run<BatchRow>(job).then(
          (r) => r,
          (e: unknown): BatchRow => ({ file: job.file, error: e instanceof Error ? e.message : String(e) }),
        );
        onRow(row);
        return row;
      }),
    );
  } finally {
    await pool.close();
  }
}
