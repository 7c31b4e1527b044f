/**
 * Batch mode: every transcript of a directory or glob replayed in parallel on worker threads
 * (one per core), one summary row each — for people with thousands of sessions.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../main/workers';
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


export async function runBatch(jobs: readonly BatchJob[], onRow: (row: BatchRow) => void, threads = Math.max(1, Math.min(availableParallelism(), jobs.length))): Promise<BatchRow[]> {
  const here = dirname(fileURLToPath(import.meta.url));
  const rows: BatchRow[] = new Array(jobs.length);
  let next = 0;
  const runOne = (worker: Worker): Promise<void> =>
    new Promise((resolve) => {
      const i = next++;
      if (i >= jobs.length) return resolve();
      worker.once('message', (row: BatchRow) => {
        rows[i] = row;
        onRow(row);
        void runOne(worker).then(resolve);
      });
      worker.postMessage(jobs[i]);
    });
  const workers = Array.from({ length: threads }, () => startWorker([join(here, 'batch-worker.js'), join(here, '..', 'batch-worker.js')], join(here, 'batch-worker.ts')));
  try {
    await Promise.all(workers.map(runOne));
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return rows;
}
