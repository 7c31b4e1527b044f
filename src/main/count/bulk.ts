/**
 * Bulk exact counting on every core: texts are split into chunks and counted by worker threads
 * running gpt-tokenizer (the fastest registry tokenizer that matches js-tiktoken on our fixture
 * corpus, special-token text included). js-tiktoken stays the reference in src/core.
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWorker } from '../workers';

export type BpeEncoding = 'o200k_base' | 'cl100k_base';

export interface BulkCounter {
  count(texts: readonly string[], encoding: BpeEncoding): Promise<Uint32Array>;
  /** Loads an encoding on every thread ahead of the first real job (overlaps the startup). */
  warm(encoding: BpeEncoding): Promise<void>;
  close(): Promise<void>;
}

/** `background`: the threads run at a lower priority (work the user is not waiting on). */
export function createBulkCounter(threads = Math.max(1, availableParallelism()), options: { background?: boolean } = {}): BulkCounter {
  const here = dirname(fileURLToPath(import.meta.url));
  const workers = Array.from({ length: threads }, () => startWorker([join(here, 'bulk-worker.js'), join(here, '..', 'bulk-worker.js')], join(here, 'bulk-worker.ts'), { workerData: { background: options.background ?? false } }));
  let nextId = 0;
  const pending = new Map<number, (c: Uint32Array) => void>();
  for (const w of workers) w.on('message', (m: { id: number; counts: Uint32Array }) => pending.get(m.id)?.(m.counts));
  return {
    async count(texts, encoding) {
      const out = new Uint32Array(texts.length);
      const chunk = Math.max(256, Math.ceil(texts.length / (threads * 8)));
      const jobs: Promise<void>[] = [];
      for (let start = 0, k = 0; start < texts.length; start += chunk, k++) {
        const id = nextId++;
        const slice = texts.slice(start, start + chunk) as string[];
        const at = start;
        jobs.push(
          new Promise<void>((resolve) => {
            pending.set(id, (counts) => {
              out.set(counts, at);
              pending.delete(id);
              resolve();
            });
            workers[k % threads]!.postMessage({ id, encoding, texts: slice });
          }),
        );
      }
      await Promise.all(jobs);
      return out;
    },
    async warm(encoding) {
      await Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((resolve) => {
              const id = nextId++;
              pending.set(id, () => {
                pending.delete(id);
                resolve();
              });
              w.postMessage({ id, encoding, texts: ['warm'] });
            }),
        ),
      );
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
