/**
 * Worker thread that imports one file into the store: it opens its own connection to the
 * database (WAL lets the host keep reading meanwhile), parses the file as a stream and writes
 * every session in one transaction (big files through a writer thread, store/writer.ts, which
 * this script also runs: `role: 'writer'`). The host's event loop never carries an import;
 * cancelling terminates the worker, and SQLite rolls back the open transaction. After 'done'
 * the worker exits by itself once the writer has checkpointed the WAL. Each role loads only
 * its own modules (the writer needs no parser).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WriterData } from '../store/writer';
import type { ImportWorkerReply, ImportWorkerRequest } from './import-protocol';

async function run(request: ImportWorkerRequest): Promise<ImportWorkerReply> {
  const [{ ImportError }, { importFileToStore, openStore }] = await Promise.all([
    import('../../core/import/types'),
    import('../store/index'),
  ]);
  let store: ReturnType<typeof openStore> | undefined;
  try {
    store = openStore(request.dbPath, request.nativeBinding ? { nativeBinding: request.nativeBinding } : {});
    const result = await importFileToStore(store, request.path, {
      ...(request.format ? { format: request.format } : {}),
      ...(request.nativeBinding ? { nativeBinding: request.nativeBinding } : {}),
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
  const port = parentPort;
  const data = workerData as ImportWorkerRequest | WriterData;
  if ('role' in data && data.role === 'writer') {
    void import('../store/writer').then(({ runWriter }) => runWriter(port, data));
  } else {
    void run(data as ImportWorkerRequest).then(async (reply) => {
      port.postMessage(reply);
      // The writer thread checkpoints after the commit: this worker exits once it is done.
      const { writersFinished } = await import('../store/import-file');
      await writersFinished();
      port.close();
    });
  }
}
