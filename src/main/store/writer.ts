/**
 * The import's second core: a writer thread that owns the import's ONE transaction while the
 * parsing thread turns messages into rows (JSON bodies, usage, chars/4 counts) and posts them in
 * batches. The writer inserts a batch while the next one is being prepared, and commits at the
 * end; an error, a cancel or a killed thread leaves nothing (SQLite rolls the transaction back).
 * The writer runs in the import worker's script (`role: 'writer'`), which every build has.
 *
 * For a JSONL file (`begin` with `lines`), the writer starts with the parse: it reads the file
 * itself, hashes it and stores every line (`source_lines`) while the parser is still reading, so
 * the message rows that follow name their raw record by line instead of carrying it.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { SessionCounts } from '../../core/tokens/types';
import { startWorker } from '../workers';
import { openDatabase, StoreError } from './db';
import type { FormatId } from '../../core/model';
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
  /**
   * `lines`: store the first `source.size` bytes of the file at `source.path` line by line and
   * hash them (answered with `hashed`); `source.hash` is then a placeholder until `commit`.
   */
  | { readonly type: 'begin'; readonly source: SourceInfo; readonly now: number; readonly lines?: boolean }
  | { readonly type: 'batch'; readonly batch: WriterBatch }
  | { readonly type: 'commit'; readonly finish?: { readonly hash: string; readonly format: FormatId } };

export type WriterReply =
  | { readonly type: 'ack' }
  | { readonly type: 'hashed'; readonly hash: string }
  | { readonly type: 'committed' }
  | { readonly type: 'error'; readonly message: string };

const NEWLINE = 10;
const CR = 13;
const READ_BYTES = 1 << 20;

/**
 * Stores the first `size` bytes of a UTF-8 file line by line, numbered as the importer numbers
 * them (every newline ends a line; a trailing CR and a leading byte-order mark are not part of
 * the text; empty lines are counted, not stored), and returns their sha256.
 */
function storeSourceLines(store: SessionStore, sourceId: number, path: string, size: number): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  let line = 0;
  // Bytes of the current line read so far, when it spans reads.
  let pending: Buffer[] = [];
  const emit = (bytes: Buffer): void => {
    line++;
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CR) end--;
    let start = 0;
    if (line === 1 && end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    if (end > start) store.insertSourceLine(sourceId, line, bytes.subarray(start, end));
  };
  // One read buffer for the whole file: this thread allocates little on its JS heap, so it
  // rarely collects, and a fresh 1 MB buffer per read stayed allocated until it did (~35 MB on a
  // 33 MB file). The start of a line that spans reads is copied out before the next read.
  const buf = Buffer.allocUnsafeSlow(Math.min(READ_BYTES, Math.max(1, size)));
  try {
    for (let at = 0; at < size;) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
      if (n === 0) break;
      at += n;
      const chunk = buf.subarray(0, n);
      hash.update(chunk);
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
        if (pending.length > 0) {
          pending.push(chunk.subarray(start, nl));
          emit(Buffer.concat(pending));
          pending = [];
        } else emit(chunk.subarray(start, nl));
        start = nl + 1;
      }
      if (start < n) pending.push(Buffer.from(chunk.subarray(start)));
    }
    if (pending.length > 0) emit(Buffer.concat(pending));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

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
    // SQLite's own messages ("database or disk is full") name no file: this one names the database.
    const code = (e as { code?: unknown } | undefined)?.code;
    const said = e instanceof Error ? e.message : String(e);
    failed =
      e instanceof Error && e.name === 'SqliteError'
        ? `the database ${data.dbPath}: ${said}${typeof code === 'string' ? ` (${code})` : ''}`
        : said;
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
    // Every row this connection inserts has its parent inserted first, by this thread, in the
    // same transaction: a foreign-key lookup per message and usage row would check nothing.
    store.db.pragma('foreign_keys = OFF');
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
          if (m.lines) {
            port.postMessage({ type: 'hashed', hash: storeSourceLines(store, sourceId, m.source.path, m.source.size) });
          }
          break;
        case 'batch': {
          const b = m.batch;
          for (const row of b.sessions) store.insertSession({ ...row, sourceId });
          store.insertPackedMessages(b.segments, b.packed, sourceId);
          for (const c of b.counts) store.saveCounts(c.sessionId, c.counts);
          port.postMessage({ type: 'ack' });
          break;
        }
        case 'commit': {
          if (m.finish) store.finishSource(sourceId, m.finish.hash, m.finish.format);
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
  private onHashed: ((hash: string) => void) | undefined;
  private hashedValue: string | undefined;
  private readonly failed: Promise<never>;
  private rejectFailed!: (e: Error) => void;

  private constructor(private readonly worker: Worker) {
    this.failed = new Promise<never>((_, reject) => (this.rejectFailed = reject));
    this.failed.catch(() => {});
    worker.on('message', (r: WriterReply) => {
      if (r.type === 'ack') {
        this.inFlightBytes -= this.inFlight.shift() ?? 0;
        this.wake?.();
      } else if (r.type === 'hashed') {
        this.hashedValue = r.hash;
        this.onHashed?.(r.hash);
      } else if (r.type === 'committed') this.committed?.();
      else this.fail(new StoreError(r.message));
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
    const worker = startWorker(
      [join(here, 'import-worker.js'), join(here, '..', 'import-worker.js')],
      join(here, '..', 'host', 'import-worker.ts'),
      {
        workerData: { role: 'writer', ...data } satisfies WriterData,
      },
    );
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

  /** After a `begin` with `lines`: resolves with the sha256 of the bytes the writer stored. */
  async hashed(): Promise<string> {
    if (this.hashedValue !== undefined) return this.hashedValue;
    const hash = new Promise<string>((resolve) => (this.onHashed = resolve));
    return Promise.race([hash, this.failed]);
  }

  /** Posts a batch once less than WINDOW_BYTES of text waits at the writer. */
  async postBatch(batch: WriterBatch): Promise<void> {
    while (this.inFlight.length > 0 && this.inFlightBytes >= WINDOW_BYTES && !this.failure)
      await new Promise<void>((resolve) => (this.wake = resolve));
    if (this.failure) throw this.failure;
    const bytes = batch.packed.text.byteLength;
    // The text moves to the writer without a copy.
    this.worker.postMessage({ type: 'batch', batch } satisfies WriterRequest, [
      batch.packed.text.buffer as ArrayBuffer,
      batch.packed.lengths.buffer as ArrayBuffer,
    ]);
    this.inFlight.push(bytes);
    this.inFlightBytes += bytes;
  }

  /**
   * Commits; resolves once the data is committed. The writer then checkpoints the WAL into the
   * database and exits by itself (`finished`).
   */
  async commit(finish?: { hash: string; format: FormatId }): Promise<void> {
    const done = new Promise<void>((resolve) => (this.committed = resolve));
    this.post(finish ? { type: 'commit', finish } : { type: 'commit' });
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
