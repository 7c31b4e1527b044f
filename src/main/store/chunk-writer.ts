/**
 * A progressive import's second core (store/progressive.ts): a writer thread that stores each
 * chunk in a transaction of its own while the import worker parses and plans the next one. The
 * worker records a chunk's statements (store/recorded.ts) and what needs stored rows
 * (`finishAppend`: another tokenizer's counts, the session's metadata), and plans the next chunk
 * from what it knows the session will be (store/tail-append.ts `KnownSession`), not from the
 * store, which is a chunk behind. Chunks are stored in the order they were posted; each is one
 * transaction, so a stopped thread leaves whole chunks only (the import then deletes them).
 * The writer runs in the import worker's script (`role: 'chunks'`).
 */
import { createHash, type Hash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { Statement } from 'better-sqlite3';
import { readRange } from '../io/read-range';
import { startWorker } from '../workers';
import { openDatabase, StoreError } from './db';
import { runRecording, type Recording } from './recorded';
import { SessionStore } from './sessions';
import { finishAppend, updateSource, type AppendFinish } from './tail-append';

export interface ChunkWriterData {
  readonly role: 'chunks';
  readonly dbPath: string;
  readonly nativeBinding?: string;
  /** The file imported, and how much of it is stored (hashed by the writer first; each chunk's bytes then follow). */
  readonly path: string;
  readonly stored: number;
}

/** One chunk's writes, and what its source row then says (bytes imported, their hash). */
export interface ChunkWrites {
  /** The chunk's statements and its bytes (hashed here: the source's hash moves on with them). */
  readonly statements: Recording;
  /** None when the chunk's lines hold no message. */
  readonly finish?: AppendFinish;
  readonly source: { readonly sourceId: number; readonly size: number };
}

type ChunkRequest = { readonly type: 'chunk'; readonly chunk: ChunkWrites } | { readonly type: 'close' };
type ChunkReply = { readonly type: 'stored' } | { readonly type: 'error'; readonly message: string };

interface Port {
  on(event: 'message', listener: (m: ChunkRequest) => void): unknown;
  postMessage(m: ChunkReply): void;
  close(): void;
}

/** The writer thread's loop: each chunk in one transaction, answered once committed. */
export function runChunkWriter(port: Port, data: ChunkWriterData): void {
  let store: SessionStore | undefined;
  let failed = false;
  const prepared = new Map<string, Statement>();
  let hash: Hash | undefined;
  const fail = (e: unknown): void => {
    failed = true;
    const said = e instanceof Error ? e.message : String(e);
    port.postMessage({
      type: 'error',
      message: e instanceof Error && e.name === 'SqliteError' ? `the database ${data.dbPath}: ${said}` : said,
    });
  };
  try {
    store = new SessionStore(openDatabase(data.dbPath, data.nativeBinding ? { nativeBinding: data.nativeBinding } : {}));
    // The import copies the WAL into the database once, after its last chunk (store/progressive.ts `pauseCheckpoints`).
    store.db.pragma('wal_autocheckpoint = 0');
    // Every row a chunk inserts belongs to the session it grows, which exists: a foreign-key lookup per row checks nothing.
    store.db.pragma('foreign_keys = OFF');
    hash = createHash('sha256').update(readRange(data.path, 0, data.stored));
  } catch (e) {
    fail(e);
  }
  port.on('message', (m) => {
    if (m.type === 'close') {
      store?.close();
      port.close();
      return;
    }
    if (failed || !store || !hash) return;
    const s = store;
    const c = m.chunk;
    try {
      hash.update(c.statements.bytes.subarray(0, c.statements.chunkBytes));
      const digest = hash.copy().digest('hex');
      s.db.transaction(() => {
        runRecording(s.db, c.statements, prepared);
        if (c.finish) finishAppend(s, c.finish);
        updateSource(s, c.source.sourceId, c.source.size, digest);
      })();
      port.postMessage({ type: 'stored' });
    } catch (e) {
      fail(e);
    }
  });
}

/** Chunks at the writer before the import waits for it: one stored while the next is parsed. */
const IN_FLIGHT = 1;

/** The import worker's side: posts chunks in order, each resolving once stored. */
export class ChunkWriter {
  private readonly waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private failure: Error | undefined;
  private closed = false;
  /** Resolves when the thread has exited. */
  readonly finished: Promise<void>;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (r: ChunkReply) => {
      if (r.type === 'stored') this.waiting.shift()?.resolve();
      else this.fail(new StoreError(r.message));
    });
    worker.on('error', (e) => this.fail(e));
    this.finished = new Promise<void>((resolve) =>
      worker.on('exit', () => {
        if (!this.closed) this.fail(new Error('the import writer stopped'));
        resolve();
      }),
    );
  }

  /** Starts a writer thread on the database file (it opens its own connection). */
  static start(data: Omit<ChunkWriterData, 'role'>): ChunkWriter {
    const here = dirname(fileURLToPath(import.meta.url));
    const worker = startWorker(
      [join(here, 'import-worker.js'), join(here, '..', 'import-worker.js')],
      join(here, '..', 'host', 'import-worker.ts'),
      { workerData: { role: 'chunks', ...data } satisfies ChunkWriterData },
    );
    return new ChunkWriter(worker);
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    for (const w of this.waiting.splice(0)) w.reject(e);
  }

  /**
   * Posts a chunk (its bytes moved, not copied) and answers the promise of its being stored (wrapped); first
   * waits while IN_FLIGHT chunks are at the writer, so memory holds a bounded number of chunks.
   */
  async post(chunk: ChunkWrites, transfer: ArrayBuffer[]): Promise<{ readonly stored: Promise<void> }> {
    if (this.waiting.length >= IN_FLIGHT) await this.storedBefore(this.waiting.length - IN_FLIGHT + 1);
    if (this.failure) throw this.failure;
    const stored = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    stored.catch(() => {});
    this.worker.postMessage({ type: 'chunk', chunk } satisfies ChunkRequest, transfer);
    // Wrapped: a promise resolving to a promise would wait for it.
    return { stored };
  }

  /** Resolves once all but the last `keep` posted chunks are stored. */
  private async storedBefore(count: number): Promise<void> {
    const ahead = this.waiting.slice(0, count);
    await new Promise<void>((resolve, reject) => {
      if (ahead.length === 0) return resolve();
      const last = ahead[ahead.length - 1]!;
      const { resolve: r0, reject: j0 } = last;
      last.resolve = () => {
        r0();
        resolve();
      };
      last.reject = (e) => {
        j0(e);
        reject(e);
      };
    });
  }

  /** Chunks posted and not stored yet. */
  get pending(): number {
    return this.waiting.length;
  }

  /** Resolves once every posted chunk is stored. */
  async drain(): Promise<void> {
    await this.storedBefore(this.waiting.length);
    if (this.failure) throw this.failure;
  }

  /** Every chunk stored: the thread closes its connection and exits. */
  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
    this.worker.postMessage({ type: 'close' } satisfies ChunkRequest);
    await this.finished;
  }

  /** Stops the thread; the chunk it was storing is rolled back with its transaction. */
  async abort(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new Error('import aborted'));
    await this.worker.terminate();
  }
}
