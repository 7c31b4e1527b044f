/**
 * Bulk exact counting on every core: texts are split into chunks and counted by worker threads
 * (a tinypool TaskPool, src/main/worker-pool.ts) through the exact path (guarded.ts: gpt-tokenizer,
 * which matches core's counter, special-token text included, behind the long-run guard).
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TaskPool, taskModule } from '../worker-pool';
import type { GuardedEncoding } from './guarded';
import type { BulkTask } from './bulk-worker';

export type BpeEncoding = GuardedEncoding;

export interface BulkCounter {
  count(texts: readonly string[], encoding: BpeEncoding): Promise<Uint32Array>;
  /** Loads an encoding on every thread ahead of the first real job (overlaps the startup). */
  warm(encoding: BpeEncoding): Promise<void>;
  close(): Promise<void>;
  /** Worker threads started so far (tests: a dead one is replaced). */
  readonly spawned?: number;
}

export interface BulkCounterOptions {
  /** The threads run at a lower priority (work the user is not waiting on). */
  readonly background?: boolean;
  /** The task module (tests use one whose workers crash); default: bulk-worker. */
  readonly filename?: string;
}

export function bulkWorkerModule(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return taskModule([join(here, 'bulk-worker.js'), join(here, '..', 'bulk-worker.js')], join(here, 'bulk-worker.ts'));
}

/**
 * Threads of a background count's pool (the host's exact counts, host/count-worker.ts): every
 * core, at most BACKGROUND_THREADS_MAX. Each thread holds its own BPE tables (about 60 MB of
 * RSS for o200k) and its share of a slice's texts, so a pool of every core of a 16-core machine
 * would hold a gigabyte for work nobody waits on; four count a 1 GB session in well under a minute.
 */
export function backgroundCountThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.min(cores, BACKGROUND_THREADS_MAX));
}
export const BACKGROUND_THREADS_MAX = 4;

/**
 * A worker that dies (out of memory, killed) is replaced and its chunk counted again; when they
 * keep dying the call rejects with what happened, never waits forever (src/main/worker-pool.ts).
 */
export function createBulkCounter(threads = Math.max(1, availableParallelism()), options: BulkCounterOptions = {}): BulkCounter {
  const pool = new TaskPool({
    name: 'token counting',
    filename: options.filename ?? bulkWorkerModule(),
    threads,
    // All threads start now and stay until close(): a count comes in chunks, all at once.
    minThreads: threads,
    ...(options.background ? { workerData: 'background' } : {}),
  });
  const run = (task: BulkTask): Promise<Uint32Array> => pool.run<Uint32Array>(task);
  return {
    async count(texts, encoding) {
      const out = new Uint32Array(texts.length);
      const chunk = Math.max(256, Math.ceil(texts.length / (threads * 8)));
      const jobs: Promise<void>[] = [];
      for (let start = 0; start < texts.length; start += chunk) {
        const at = start;
        jobs.push(run({ encoding, texts: texts.slice(start, start + chunk) }).then((counts) => out.set(counts, at)));
      }
      await Promise.all(jobs);
      return out;
    },
    warm: (encoding) => pool.each({ encoding, texts: ['warm'] } satisfies BulkTask),
    close: () => pool.close(),
    get spawned() {
      return pool.spawned;
    },
  };
}
