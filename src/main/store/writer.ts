/**
 * The import's second core: a writer thread that owns the import's ONE transaction while the
 * parsing thread turns messages into rows (JSON bodies, usage, chars/4 counts) and posts them in
 * batches. The writer inserts a batch while the next one is being prepared, and commits at the
 * end; an error, a cancel or a killed thread leaves nothing (SQLite rolls the transaction back).
 * The writer runs in the import worker's script (`role: 'writer'`), which every build has.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { SessionCounts } from '../../core/tokens/types';
import { startWorker } from '../workers';
import { openDatabase } from './db';
import { SessionStore, type PackedSegment, type PackedText, type SessionRowInput, type SourceInfo } from './sessions';

export interface WriterData {
  readonly role: 'writer';
  readonly dbPath: string;
  readonly nativeBinding?: string;
}

/**
 * Rows for the writer, in the order they go in: new sessions, then messages (of those or of
 * earlier batches' sessions), then counts. Many short sessions travel together.
 */
export interface WriterBatch {
  readonly sessions: Omit<SessionRowInput, 'sourceId'>[];
  readonly segments: PackedSegment[];
  readonly packed: PackedText;
  readonly counts: { readonly sessionId: string; readonly counts: SessionCounts }[];
}

export type WriterRequest =
  | { readonly type: 'begin'; readonly source: SourceInfo; readonly now: number }
  | { readonly type: 'batch'; readonly batch: WriterBatch }
  | { readonly type: 'commit' };

export type WriterReply = { readonly type: 'ack' } | { readonly type: 'committed' } | { readonly type: 'error'; readonly message: string };

interface Port {
  on(event: 'message', listener: (m: WriterRequest) => void): unknown;
  postMessage(m: WriterReply): void;
  close(): void;
}

/** The writer thread's loop. */
export function runWriter(port: Port, data: WriterData): void {
  let store: SessionStore | undefined;
  let failed: string | undefined;
  let sourceId = 0;
  const fail = (e: unknown): void => {
    failed = e instanceof Error ? e.message : String(e);
    try {
      if (store?.db.inTransaction) store.db.exec('ROLLBACK');
    } catch {
      // The connection is going away anyway.
    }
    port.postMessage({ type: 'error', message: failed });
  };
  try {
    store = new SessionStore(openDatabase(data.dbPath, data.nativeBinding ? { nativeBinding: data.nativeBinding } : {}));
    // The commit does not copy the WAL into the database on the way (SQLite's automatic
    // checkpoint): this thread does it right after telling the importer, off its path.
    store.db.pragma('wal_autocheckpoint = 0');
  } catch (e) {
    fail(e);
  }
  port.on('message', (m) => {
    if (failed !== undefined || !store) return;
    try {
      switch (m.type) {
        case 'begin':
          store.db.exec('BEGIN IMMEDIATE');
          sourceId = store.insertSource(m.source, m.now);
          break;
        case 'batch': {
          const b = m.batch;
          for (const row of b.sessions) store.insertSession({ ...row, sourceId });
          store.insertPackedMessages(b.segments, b.packed);
          for (const c of b.counts) store.saveCounts(c.sessionId, c.counts);
          port.postMessage({ type: 'ack' });
          break;
        }
        case 'commit': {
          store.db.exec('COMMIT');
          port.postMessage({ type: 'committed' });
          const s = store;
          store = undefined;
          try {
            s.db.pragma('wal_checkpoint(PASSIVE)');
          } finally {
            s.close();
            port.close();
          }
          break;
        }
      }
    } catch (e) {
      fail(e);
    }
  });
}

/**
 * How much text may wait at the writer: enough to keep it busy, little enough to bound memory
 * (many small batches — many short sessions — do not wait on each other).
 */
const WINDOW_BYTES = 8 << 20;

/** The parsing thread's side: posts requests with back-pressure, resolves when committed. */
export class WriterClient {
  /** Byte sizes of the batches the writer has not acknowledged yet, oldest first. */
  private readonly inFlight: number[] = [];
  private inFlightBytes = 0;
  private wake: (() => void) | undefined;
  private failure: Error | undefined;
  private committed: (() => void) | undefined;
  private readonly failed: Promise<never>;
  private rejectFailed!: (e: Error) => void;

  private constructor(private readonly worker: Worker) {
    this.failed = new Promise<never>((_, reject) => (this.rejectFailed = reject));
    this.failed.catch(() => {});
    worker.on('message', (r: WriterReply) => {
      if (r.type === 'ack') {
        this.inFlightBytes -= this.inFlight.shift() ?? 0;
        this.wake?.();
      } else if (r.type === 'committed') this.committed?.();
      else this.fail(new Error(r.message));
    });
    worker.on('error', (e) => this.fail(e));
    this.finished = new Promise<void>((resolve) =>
      worker.on('exit', () => {
        this.fail(new Error('the import writer stopped'));
        resolve();
      }),
    );
  }

  /** Starts a writer thread on the database file (it opens its own connection). */
  static start(data: Omit<WriterData, 'role'>): WriterClient {
    const here = dirname(fileURLToPath(import.meta.url));
    const worker = startWorker([join(here, 'import-worker.js'), join(here, '..', 'import-worker.js')], join(here, '..', 'host', 'import-worker.ts'), {
      workerData: { role: 'writer', ...data } satisfies WriterData,
    });
    return new WriterClient(worker);
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    this.rejectFailed(e);
    this.wake?.();
  }

  post(request: WriterRequest): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage(request);
  }

  /** Posts a batch once less than WINDOW_BYTES of text waits at the writer. */
  async postBatch(batch: WriterBatch): Promise<void> {
    while (this.inFlight.length > 0 && this.inFlightBytes >= WINDOW_BYTES && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
    if (this.failure) throw this.failure;
    const bytes = batch.packed.text.byteLength;
    // The text moves to the writer without a copy.
    this.worker.postMessage({ type: 'batch', batch } satisfies WriterRequest, [batch.packed.text.buffer as ArrayBuffer, batch.packed.lengths.buffer as ArrayBuffer]);
    this.inFlight.push(bytes);
    this.inFlightBytes += bytes;
  }

  /**
   * Commits; resolves once the data is committed. The writer then checkpoints the WAL into the
   * database and exits by itself (`finished`).
   */
  async commit(): Promise<void> {
    const done = new Promise<void>((resolve) => (this.committed = resolve));
    this.post({ type: 'commit' });
    await Promise.race([done, this.failed]);
    this.committed = undefined;
    this.isCommitted = true;
  }

  /** Resolves when the writer thread has exited (after its checkpoint, once committed). */
  readonly finished: Promise<void>;
  private isCommitted = false;

  /** Drops the writer and, with it, its open transaction (nothing once committed). */
  async abort(): Promise<void> {
    if (this.isCommitted) return;
    this.failure ??= new Error('import aborted');
    await this.worker.terminate();
  }
}
