/**
 * Starts a worker thread from its built `.js` when there is one (the app, the built CLI), else
 * from its TypeScript source through tsx (tests and `tsx` runs from a checkout).
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startWorker(builtCandidates: readonly string[], tsSource: string, options: WorkerOptions = {}): Worker {
  for (const f of builtCandidates) if (existsSync(f)) return new Worker(f, options);
  // Register tsx's loader inside the worker, then load the TypeScript entry.
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(tsSource).href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
