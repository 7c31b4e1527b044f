/**
 * Worker thread that imports one file: reads it as a stream, detects and parses it with the
 * core importers, and posts progress and the sessions back. Runs off the main thread so the
 * host's event loop never stalls on a big transcript; cancelling terminates the worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { importSource } from '../../core/import/index';
import { ImportError } from '../../core/import/types';
import { fileSource } from '../io/file-source';
import type { ImportWorkerReply, ImportWorkerRequest } from './import-protocol';

async function run(request: ImportWorkerRequest): Promise<ImportWorkerReply> {
  try {
    const source = fileSource(request.path);
    const outcome = await importSource(source, {
      format: request.format,
      keepRaw: true,
      onProgress: (p) => parentPort?.postMessage({ type: 'progress', ...p } satisfies ImportWorkerReply),
    });
    return { type: 'done', outcome };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { type: 'error', message, badInput: error instanceof ImportError };
  }
}

if (parentPort) {
  void run(workerData as ImportWorkerRequest).then((reply) => parentPort?.postMessage(reply));
}
