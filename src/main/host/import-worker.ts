/**
 * Worker thread that imports one file into the store: it opens its own connection to the
 * database (WAL lets the host keep reading meanwhile), parses the file as a stream and writes
 * every session in one transaction (big files through a writer thread, store/writer.ts, which
 * this script also runs: `role: 'writer'`; a progressive import's chunks through another,
 * store/chunk-writer.ts, `role: 'chunks'`). The host's event loop never carries an import. A big
 * file of lines is opened progressively (store/progressive.ts): `visible` once its prefix is
 * stored, `grown` after each chunk. Cancel is a message: the import stops at its next check and
 * deletes what it stored (the host terminates the worker if that takes too long; SQLite then
 * rolls back the open transaction). After 'done' the worker copies the WAL into the database
 * (a progressive import's chunks leave that to it) and exits by itself once its writer, if any,
 * has checkpointed too. Each role loads only
 * its own modules (the writer needs no parser). A spare (`role: 'spare'`, import-spare.ts) loads
 * the import's code and opens the store before there is a file to import, and waits for `start`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { TailUpdate } from '../store/tail';
import type { WriterData } from '../store/writer';
import type { ChunkWriterData } from '../store/chunk-writer';
import type { ImportSpareData, ImportWorkerCommand, ImportWorkerReply, ImportWorkerRequest } from './import-protocol';
import { traceHeap } from '../trace';

/** The import's modules, loaded once (a spare loads them before its request). */
const importModules = () => Promise.all([import('../../core/import/types'), import('../store/index'), import('../store/progressive')]);
type ImportModules = Awaited<ReturnType<typeof importModules>>;
type OpenedStore = ReturnType<ImportModules[1]['openStore']>;

/**
 * A chunk's update as it crosses to the host: the written messages as their stored JSON bodies
 * alone (the host parses them back, host/import-runner.ts). Cloning the message objects was a
 * tenth of the worker's time; strings are copied whole.
 */
function bodiesOnly(update: TailUpdate): TailUpdate {
  return {
    ...update,
    sessions: update.sessions.map((s) => (s.written?.bodies ? { ...s, written: { ...s.written, messages: [] } } : s)),
  };
}

/**
 * Runs the import and posts its last reply ('done' or 'error'); then copies the WAL into the
 * database and closes. `opened`: the store a spare opened ahead (used when it is the request's).
 */
async function run(
  modules: ImportModules,
  request: ImportWorkerRequest,
  signal: AbortSignal,
  post: (reply: ImportWorkerReply) => void,
  opened?: { path: string; store: OpenedStore },
): Promise<void> {
  const [{ ImportError }, { importFileToStore, openStore }, { importProgressively, progressiveFromEnv }] = modules;
  // The store a spare opened, when it is the request's; another one is closed.
  let store = opened?.path === request.dbPath ? opened.store : undefined;
  if (opened && !store) opened.store.close();
  let reply: ImportWorkerReply;
  try {
    store ??= openStore(request.dbPath, request.nativeBinding ? { nativeBinding: request.nativeBinding } : {});
    const options = {
      ...(request.format ? { format: request.format } : {}),
      ...(request.nativeBinding ? { nativeBinding: request.nativeBinding } : {}),
      signal,
      onProgress: (p: { bytes: number; sessions: number; messages: number }) => post({ type: 'progress', ...p }),
    };
    const result = request.progressive
      ? await importProgressively(store, request.path, {
          ...options,
          ...progressiveFromEnv(),
          checkpointLater: true,
          onVisible: (visible) => post({ type: 'visible', result: visible }),
          onGrown: (update, bytes, totalBytes) => post({ type: 'grown', update: bodiesOnly(update), bytes, totalBytes }),
        })
      : await importFileToStore(store, request.path, options);
    reply = { type: 'done', result };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reply = { type: 'error', message, badInput: error instanceof ImportError, cancelled: signal.aborted };
  }
  post(reply);
  if (!store) return;
  try {
    // The progressive import's chunks left the WAL to this checkpoint (store/progressive.ts `pauseCheckpoints`): after the reply, off the import's path.
    if (request.progressive) store.db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Another connection holds the database: its next commit checkpoints.
  } finally {
    store.close();
  }
}

/** Imports `request` (now, or once a spare is asked to), stops it at `cancel`, and closes the port when done. */
function serveImport(
  port: NonNullable<typeof parentPort>,
  ready: Promise<{ modules: ImportModules; request: ImportWorkerRequest; opened?: { path: string; store: OpenedStore } }>,
  controller: AbortController,
): void {
  void ready
    .then(({ modules, request, opened }) => run(modules, request, controller.signal, (reply) => port.postMessage(reply), opened))
    .then(async () => {
      // The writer thread checkpoints after the commit: this worker exits once it is done.
      const { writersFinished } = await import('../store/import-file');
      await writersFinished();
      port.close();
    });
}

if (parentPort) {
  const port = parentPort;
  const data = workerData as ImportWorkerRequest | WriterData | ChunkWriterData | ImportSpareData;
  const role = 'role' in data ? data.role : 'import';
  traceHeap(role === 'writer' ? 'import writer' : role === 'chunks' ? 'import chunk writer' : 'import worker');
  if ('role' in data && data.role === 'writer') {
    void import('../store/writer').then(({ runWriter }) => runWriter(port, data));
  } else if ('role' in data && data.role === 'chunks') {
    void import('../store/chunk-writer').then(({ runChunkWriter }) => runChunkWriter(port, data));
  } else {
    // Cancel: the import stops at its next check and takes back what it stored (store/progressive.ts).
    const controller = new AbortController();
    if ('role' in data) {
      // A spare: the code loaded and the store opened now, the request when the host has one.
      const loaded = importModules().then((modules) => {
        try {
          const store = modules[1].openStore(data.dbPath, data.nativeBinding ? { nativeBinding: data.nativeBinding } : {});
          return { modules, opened: { path: data.dbPath, store } };
        } catch {
          // The request's own open reports what is wrong with the store.
          return { modules };
        }
      });
      let started = false;
      port.on('message', (m: ImportWorkerCommand) => {
        if (m.type === 'cancel') controller.abort();
        else if (!started) {
          started = true;
          serveImport(
            port,
            loaded.then((l) => ({ ...l, request: m.request })),
            controller,
          );
        }
      });
    } else {
      port.on('message', (m: ImportWorkerCommand) => {
        if (m.type === 'cancel') controller.abort();
      });
      serveImport(
        port,
        importModules().then((modules) => ({ modules, request: data })),
        controller,
      );
    }
  }
}
