/**
 * Runs one file import into the store, in a worker thread when the built worker is available
 * (the app, the built CLI), in-process otherwise (tests from source). Reports progress with
 * rate and ETA and can be cancelled: nothing of a cancelled import is kept.
 */
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { ImportError } from '../../core/import/types';
import type { FormatId, Message } from '../../core/model';
import { ApiError } from '../../shared/api';
import { importFileToStore, type StoredImport } from '../store/index';
import { importProgressively, progressiveFromEnv } from '../store/progressive';
import type { TailUpdate } from '../store/tail';
import type { SessionStore } from '../store/sessions';
import type { ImportWorkerCommand, ImportWorkerReply, ImportWorkerRequest } from './import-protocol';
import type { SpareImportWorker } from './import-spare';

export interface ImportProgress {
  readonly bytes: number;
  readonly totalBytes: number;
  readonly messages: number;
  readonly sessions: number;
  readonly bytesPerSecond: number;
  readonly etaMs: number | null;
}

export interface ImportRun {
  readonly done: Promise<StoredImport>;
  /** The file's size when the import began. */
  readonly totalBytes: number;
  cancel(): void;
}

export interface ImportRunOptions {
  readonly path: string;
  readonly format?: FormatId;
  readonly store: SessionStore;
  readonly dbPath: string;
  readonly nativeBinding?: string;
  /** Built worker script; undefined = import in this thread. */
  readonly workerFile?: string;
  /** A worker started ahead (import-spare.ts): taken when one is waiting, else a new one starts. */
  readonly spare?: SpareImportWorker;
  readonly onProgress?: (p: ImportProgress) => void;
  /**
   * Open a big file of lines progressively (store/progressive.ts): `onVisible` once its prefix is
   * stored, `onGrown` after each chunk, `done` when the whole file is in.
   */
  readonly progressive?: boolean;
  readonly onVisible?: (visible: StoredImport) => void;
  readonly onGrown?: (update: TailUpdate, bytes: number, totalBytes: number) => void;
}

/** How long a cancelled worker may take to stop and take back what it stored before it is terminated. */
const CANCEL_GRACE_MS = 10_000;

export function startImport(options: ImportRunOptions): ImportRun {
  let totalBytes = 0;
  try {
    const st = statSync(options.path);
    if (st.isDirectory()) throw new Error('directory');
    totalBytes = st.size;
  } catch {
    return { done: Promise.reject(new ApiError('bad_input', `${options.path}: no such file`)), totalBytes: 0, cancel: () => {} };
  }
  const started = performance.now();
  const report = (p: { bytes: number; messages: number; sessions: number }): void => {
    const elapsed = Math.max(1, performance.now() - started);
    const rate = (p.bytes / elapsed) * 1000;
    const etaMs = rate > 0 && totalBytes > 0 ? Math.max(0, ((totalBytes - p.bytes) / rate) * 1000) : null;
    options.onProgress?.({ ...p, totalBytes, bytesPerSecond: rate, etaMs });
  };
  const run =
    options.workerFile && options.dbPath !== ':memory:' ? inWorker(options.workerFile, options, report) : inProcess(options, report);
  return { ...run, totalBytes };
}

type Report = (p: { bytes: number; messages: number; sessions: number }) => void;

function inProcess(options: ImportRunOptions, report: Report): Omit<ImportRun, 'totalBytes'> {
  const controller = new AbortController();
  const common = {
    ...(options.format ? { format: options.format } : {}),
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
    signal: controller.signal,
    onProgress: report,
  };
  const done = (
    options.progressive
      ? importProgressively(options.store, options.path, {
          ...common,
          ...progressiveFromEnv(),
          ...(options.onVisible ? { onVisible: options.onVisible } : {}),
          ...(options.onGrown ? { onGrown: options.onGrown } : {}),
        })
      : importFileToStore(options.store, options.path, common)
  ).catch((error: unknown) => {
    if (controller.signal.aborted) throw new ApiError('cancelled', `${options.path}: import cancelled`);
    if (error instanceof ImportError) throw new ApiError('bad_input', error.message);
    throw error;
  });
  return { done, cancel: () => controller.abort() };
}

/** A chunk's update from the worker, its written messages parsed back from the bodies it sent instead (host/import-worker.ts). */
function withMessages(update: TailUpdate): TailUpdate {
  return {
    ...update,
    sessions: update.sessions.map((s) => {
      const w = s.written;
      if (!w?.bodies) return s;
      const { bodies, ...rest } = w;
      return { ...s, written: { ...rest, messages: bodies.map((b) => JSON.parse(b) as Message) } };
    }),
  };
}

/** Progressive imports running in a worker against each host store, and the store's own checkpoint setting. */
const checkpointPauses = new WeakMap<SessionStore, { running: number; every: number }>();

/**
 * A progressive import leaves its WAL unchecked until its worker's one checkpoint after `done`
 * (store/progressive.ts `pauseCheckpoints`): a commit of the host's own connection meanwhile (a
 * pin, a summary, counts) would otherwise copy the whole import so far into the database on the
 * host's thread, the one that answers the window. The host's connection waits too; the returned
 * function, called once the worker has exited (its checkpoint made), puts the setting back.
 */
function pauseHostCheckpoints(store: SessionStore): () => void {
  const held = checkpointPauses.get(store) ?? { running: 0, every: store.db.pragma('wal_autocheckpoint', { simple: true }) as number };
  if (held.running++ === 0) store.db.pragma('wal_autocheckpoint = 0');
  checkpointPauses.set(store, held);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--held.running === 0) {
      checkpointPauses.delete(store);
      if (store.db.open) store.db.pragma(`wal_autocheckpoint = ${held.every}`);
    }
  };
}

function inWorker(workerFile: string, options: ImportRunOptions, report: Report): Omit<ImportRun, 'totalBytes'> {
  const request: ImportWorkerRequest = {
    path: options.path,
    dbPath: options.dbPath,
    ...(options.format ? { format: options.format } : {}),
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
    ...(options.progressive ? { progressive: true } : {}),
  };
  const spare = options.spare?.take();
  const worker = spare ?? new Worker(workerFile, { workerData: request });
  if (spare) spare.postMessage({ type: 'start', request } satisfies ImportWorkerCommand);
  const resumeCheckpoints = options.progressive ? pauseHostCheckpoints(options.store) : () => {};
  worker.once('exit', resumeCheckpoints);
  let cancelled = false;
  let settled = false;
  const done = new Promise<StoredImport>((resolve, reject) => {
    worker.on('message', (reply: ImportWorkerReply) => {
      if (reply.type === 'progress') return report(reply);
      if (reply.type === 'visible') return options.onVisible?.(reply.result);
      if (reply.type === 'grown') return options.onGrown?.(withMessages(reply.update), reply.bytes, reply.totalBytes);
      settled = true;
      if (reply.type === 'done') {
        // The worker exits by itself once its writer has checkpointed the WAL into the database.
        resolve(reply.result);
        return;
      }
      if (cancelled || reply.cancelled) reject(new ApiError('cancelled', `${options.path}: import cancelled`));
      else reject(new ApiError(reply.badInput ? 'bad_input' : 'internal', reply.message));
      void worker.terminate();
    });
    worker.on('error', (error) => reject(new ApiError('internal', `import worker failed: ${error.message}`)));
    worker.on('exit', () => {
      if (!settled)
        reject(
          new ApiError(
            cancelled ? 'cancelled' : 'internal',
            cancelled ? `${options.path}: import cancelled` : `${options.path}: the import worker stopped`,
          ),
        );
    });
  });
  return {
    done,
    cancel: () => {
      // Once done, the import is stored: nothing to cancel (the worker is finishing its checkpoint).
      if (settled || cancelled) return;
      cancelled = true;
      // The worker stops at its next check and deletes what it stored (a progressive import's
      // visible prefix too); one that does not answer in time is stopped (its open transaction
      // rolls back; the host then deletes what earlier chunks committed).
      worker.postMessage({ type: 'cancel' } satisfies ImportWorkerCommand);
      const timer = setTimeout(() => void worker.terminate(), CANCEL_GRACE_MS);
      timer.unref();
    },
  };
}
