/**
 * Bulk exact counting on every core: texts are split into chunks and counted by worker threads
 * running gpt-tokenizer (the fastest registry tokenizer that matches js-tiktoken on our fixture
 * corpus, special-token text included). js-tiktoken stays the reference in src/core.
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers';
import { WorkerPool } from './pool';

export type BpeEncoding = 'o200k_base' | 'cl100k_base';

export interface BulkCounter {
  count(texts: readonly string[], encoding: BpeEncoding): Promise<Uint32Array>;
  /** Loads an encoding on every thread ahead of the first real job (overlaps the startup). */
  warm(encoding: BpeEncoding): Promise<void>;
  close(): Promise<void>;
}

export interface BulkCounterOptions {
  /** The threads run at a lower priority (work the user is not waiting on). */
  readonly background?: boolean;
  /** Starts a worker (tests start one that crashes); default: bulk-worker. */
  readonly spawn?: () => Worker;
}

/**
 * A worker that dies (out of memory, killed) is replaced and its chunk counted again; when they
 * keep dying the call rejects with what happened, never waits forever (see ./pool.ts).
 */
export function createBulkCounter(threads = Math.max(1, availableParallelism()), options: BulkCounterOptions = {}): BulkCounter {
  const here = dirname(fileURLToPath(import.meta.url));
  const spawn =
    options.spawn ??
    (() =>
      startWorker([join(here, 'bulk-worker.js'), join(here, '..', 'bulk-worker.js')], join(here, 'bulk-worker.ts'), {
        workerData: { background: options.background ?? false },
      }));
  const pool = new WorkerPool<{ encoding: BpeEncoding; texts: string[] }, { id: number; counts: Uint32Array }>({
    name: 'token counting',
    size: threads,
    spawn,
  });
  return {
    async count(texts, encoding) {
      const out = new Uint32Array(texts.length);
      const chunk = Math.max(256, Math.ceil(texts.length / (threads * 8)));
      const jobs: Promise<void>[] = [];
      for (let start = 0; start < texts.length; start += chunk) {
        const at = start;
        jobs.push(pool.run({ encoding, texts: texts.slice(start, start + chunk) as string[] }).then((r) => out.set(r.counts, at)));
      }
      await Promise.all(jobs);
      return out;
    },
    warm: (encoding) => pool.each({ encoding, texts: ['warm'] }),
    close: () => pool.close(),
  };
}
