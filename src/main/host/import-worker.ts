/**
 * Worker thread that imports one file into the store: it opens its own connection to the
 * database (WAL lets the host keep reading meanwhile), parses the file as a stream and writes
 * every session in one transaction. The host's event loop never carries an import; cancelling
 * terminates the worker, and SQLite rolls back the open transaction.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ImportError } from '../../core/import/types';
import { importFileToStore } from '../store/import-file';
import { openStore } from '../store/index';
import type { ImportWorkerReply, ImportWorkerRequest } from './import-protocol';

async function run(request: ImportWorkerRequest): Promise<ImportWorkerReply> {
  let store: ReturnType<typeof openStore> | undefined;
  try {
    store = openStore(request.dbPath, request.nativeBinding ? { nativeBinding: request.nativeBinding } : {});
    const result = await importFileToStore(store, request.path, {
      ...(request.format ? { format: request.format } : {}),
      onProgress: (p) => parentPort?.postMessage({ type: 'progress', ...p } satisfies ImportWorkerReply),
    });
    return { type: 'done', result };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { type: 'error', message, badInput: error instanceof ImportError };
  } finally {
    store?.close();
  }
}

if (parentPort) {
  void run(workerData as ImportWorkerRequest).then((reply) => parentPort?.postMessage(reply));
}
