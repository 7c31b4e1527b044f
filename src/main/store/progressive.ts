/**
 * Progressive import (docs/user-guide.md "Opening a transcript"): a big file of JSON lines is
 * stored as a prefix first — its first lines, a few MB, so the session is on screen within a
 * second whatever the file's size — and the rest is appended in chunks through the live tail's
 * own path (store/tail.ts `updateTail`, the fast path of each line format), one transaction per
 * chunk. A file an agent is still writing is followed up to its last complete line; the live
 * tail takes over from there.
 *
 * All or nothing: a cancelled or failed progressive import deletes what it stored, the prefix
 * already on screen included (`discard`), so the library never keeps a session cut at a chunk
 * boundary. Every chunk is one transaction, so nothing is ever half-written even when the
 * thread running it is stopped.
 *
 * Anything else — a small file, a JSON document, a file stored before (reused or grown), a
 * format without a line fast path — is imported whole as before (store/import-file.ts).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { ImportError } from '../../core/import/types';
import { importFileToStore, type ImportFileOptions, type StoredImport } from './import-file';
import type { SessionStore } from './sessions';
import { ChunkWriter } from './chunk-writer';
import { openTail, recordChunk, rehash, updateTail, type RecordedChunk, type TailState, type TailUpdate } from './tail';
import { knownSession, onlySession, StoreBehind, type KnownSession } from './tail-append';
import { isJsonDocument } from './tail-shape';

/** Files from this size on are opened progressively. */
export const PROGRESSIVE_MIN_BYTES = 8 << 20;
/** The prefix stored first: parsed and stored in well under a second. */
export const PREFIX_BYTES = 2 << 20;
/**
 * Each later chunk: big enough that a transaction's fixed cost does not count, small enough that
 * the chart moves several times a second. A chunk's messages, bodies and statements live until it
 * is handed to the writer: at 16 MB they outlived the young generation and were copied into the
 * old one, which then had to be collected as well (the parsing thread, the import's length, spent
 * ~15–25 % more CPU than with 4 MB chunks on a generated 100 MB session).
 */
export const CHUNK_BYTES = 4 << 20;

/**
 * The size of a pipelined import's next chunk, with `left` bytes of the file still to import:
 * `chunk`, until less than two chunks' worth is left; then half of what is left each time, down
 * to a sixteenth of a chunk. The import ends once the writer thread has stored the last chunk,
 * and nothing is left to parse meanwhile: that wait is for a last chunk of 256 KB, not up to a
 * whole chunk.
 */
export function nextChunkBytes(chunk: number, left: number): number {
  return Math.min(chunk, Math.max(Math.ceil(chunk / 16), Math.ceil(left / 2)));
}

/**
 * `CTXSCOPE_PROGRESSIVE=minKB,prefixKB,chunkKB[,pauseMs]` replaces the sizes above (and pauses
 * between chunks): the e2e specs and benchmarks make a small file import slowly enough to be
 * watched while it grows. Unset or malformed: the defaults.
 */
export function progressiveFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Partial<Pick<ProgressiveOptions, 'minBytes' | 'prefixBytes' | 'chunkBytes' | 'pauseMs'>> {
  const parts = (env['CTXSCOPE_PROGRESSIVE'] ?? '').split(',').map(Number);
  if (parts.length < 3 || parts.some((n) => !Number.isFinite(n) || n < 0) || parts[1]! <= 0 || parts[2]! <= 0) return {};
  return {
    minBytes: parts[0]! * 1024,
    prefixBytes: parts[1]! * 1024,
    chunkBytes: parts[2]! * 1024,
    ...(parts[3] ? { pauseMs: parts[3] } : {}),
  };
}

export interface ProgressiveOptions extends ImportFileOptions {
  /** Smaller files are imported whole (tests lower it). */
  readonly minBytes?: number;
  readonly prefixBytes?: number;
  readonly chunkBytes?: number;
  /** A pause between chunks (tests: a small file imported slowly enough to watch). */
  readonly pauseMs?: number;
  /** The prefix is stored: its sessions can be opened (they are marked partial until `done`). */
  readonly onVisible?: (visible: StoredImport) => void;
  /** A chunk was stored (`bytes`: imported so far of `totalBytes`, which grows with a file still being written). */
  readonly onGrown?: (update: TailUpdate, bytes: number, totalBytes: number) => void;
  /**
   * The caller copies the WAL into the database (`wal_checkpoint`) once it has reported the import
   * done (the import worker does, off the import's path); otherwise the import does it before it
   * resolves. See `pauseCheckpoints`.
   */
  readonly checkpointLater?: boolean;
  /**
   * Store the chunks through a writer thread while this one parses the next (store/chunk-writer.ts);
   * default: on a database file. `false`: each chunk parsed and stored here in turn.
   */
  readonly pipeline?: boolean;
}

export interface ProgressiveImport extends StoredImport {
  /** The file was opened progressively (a prefix first, then chunks). */
  readonly progressive: boolean;
  /** Chunks stored by the writer thread while the next was parsed (the others: parsed and stored in turn). */
  readonly pipelined?: number;
}

/** The end of the last complete line at or before `end` (0: none). */
function lineEndBefore(path: string, end: number): number {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let to = end; to > 0;) {
      const at = Math.max(0, to - buf.length);
      const n = readSync(fd, buf, 0, to - at, at);
      const nl = buf.subarray(0, n).lastIndexOf(10);
      if (nl >= 0) return at + nl + 1;
      to = at;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

const hasLineFastPath = (s: TailState): boolean => s.lines !== undefined;

/** The top-level sessions stored from a source, in file order. */
const sessionsOf = (store: SessionStore, sourceId: number): string[] =>
  store.db.prepare('SELECT id FROM sessions WHERE source_id = ? AND parent_id IS NULL ORDER BY position').pluck().all(sourceId) as string[];

/**
 * Stops the connection's automatic checkpoint while the chunks are stored; the returned function
 * puts it back and, unless `later`, checkpoints once. SQLite copies the WAL into the database
 * after each commit that leaves it above 1,000 pages: every chunk's commit did, copying and
 * syncing that chunk's pages again on the import's path (a sixth of a 100 MB import's time). The
 * WAL now holds the whole import until that one checkpoint, as the whole-file import's single
 * transaction does (store/writer.ts checkpoints after its commit too).
 */
function pauseCheckpoints(store: SessionStore, later: boolean): () => void {
  const db = store.db;
  const every = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  db.pragma('wal_autocheckpoint = 0');
  return () => {
    db.pragma(`wal_autocheckpoint = ${every}`);
    if (!later) db.pragma('wal_checkpoint(PASSIVE)');
  };
}

/** Deletes what a progressive import stored (its sessions, their subagents, then its source). */
export function discard(store: SessionStore, sessionIds: readonly string[]): void {
  for (const id of sessionIds) store.deleteSession(id);
}

/**
 * Imports `path` into the store, progressively when it is a big file of lines (see the module
 * comment); resolves when the whole file is stored.
 */
export async function importProgressively(store: SessionStore, path: string, options: ProgressiveOptions = {}): Promise<ProgressiveImport> {
  const whole = async (): Promise<ProgressiveImport> => ({ ...(await importFileToStore(store, path, options)), progressive: false });
  const size = statSync(path).size;
  if (size < (options.minBytes ?? PROGRESSIVE_MIN_BYTES) || store.db.memory) return whole();
  // Stored before (the same bytes, or a file that grew since): the whole-file path reuses or extends it.
  if (store.hasSourceOfSize(size) || store.latestByPath(path) !== undefined) return whole();
  if ((await isJsonDocument(path, size)) !== false) return whole();
  const prefixEnd = lineEndBefore(path, Math.min(size, options.prefixBytes ?? PREFIX_BYTES));
  if (prefixEnd === 0) return whole();

  const cancelled = (): boolean => options.signal?.aborted === true;
  let first: StoredImport;
  try {
    first = await importFileToStore(store, path, { ...options, upTo: prefixEnd, onProgress: undefined });
  } catch (e) {
    // A prefix the importer cannot take on its own (a record split over lines it cut): the whole file decides.
    if (e instanceof ImportError && !cancelled()) return whole();
    throw e;
  }
  // The prefix's bytes are another stored source's: not ours to grow.
  if (first.reused) return whole();
  let ids = first.sessionIds;
  const resumeCheckpoints = pauseCheckpoints(store, options.checkpointLater === true);
  let writer: ChunkWriter | undefined;
  try {
    if (cancelled()) throw new Error(`${path}: import cancelled`);
    const state = await openTail(store, ids[0]!);
    const sourceId = state.sourceId;
    if (!hasLineFastPath(state)) {
      // No fast path (several sessions in the file, a format without one): the whole file at once.
      discard(store, ids);
      return whole();
    }
    options.onVisible?.(first);
    options.onProgress?.({ bytes: state.size, sessions: ids.length, messages: first.messages });
    let chunk = options.chunkBytes ?? CHUNK_BYTES;
    let chunked = true;
    let messages = first.messages;
    const grown = (update: TailUpdate, total: number): void => {
      for (const s of update.sessions) messages = Math.max(messages, s.messages);
      options.onGrown?.(update, update.size, Math.max(total, update.size));
      options.onProgress?.({ bytes: update.size, sessions: ids.length, messages });
    };
    // Two cores: the writer stores chunk k while this thread parses and plans chunk k + 1 from
    // what it knows the session will be (`known`); a chunk is reported once it is stored.
    writer =
      options.pipeline !== false && store.db.name !== ''
        ? ChunkWriter.start({
            dbPath: store.db.name,
            path,
            stored: state.size,
            ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
          })
        : undefined;
    const knownNow = (): KnownSession | undefined => {
      const only = onlySession(store, sourceId);
      return only && knownSession(store, only);
    };
    let known = writer && knownNow();
    /** Chunks went through the writer since the tail last hashed by itself. */
    let hashBehind = false;
    let pipelined = 0;
    /** The last chunks get smaller (`nextChunkBytes`); whole ones again once a smaller one held no complete line. */
    let shrink = true;
    /** The writer has stored every chunk posted (each reported): the store is current. */
    const caughtUp = async (): Promise<void> => {
      await writer?.drain();
      // The reports of stored chunks run on their promises: one turn for them.
      await new Promise((r) => setImmediate(r));
    };
    for (;;) {
      // A turn of the event loop between chunks: a chunk awaits only promises, and a cancel comes as a message.
      await new Promise((r) => setImmediate(r));
      if (cancelled()) throw new Error(`${path}: import cancelled`);
      const total = statSync(path).size;
      if (writer && known && chunked && hasLineFastPath(state)) {
        let next: RecordedChunk | 'none' | undefined;
        const step = shrink ? nextChunkBytes(chunk, total - state.size) : chunk;
        try {
          next = await recordChunk(store, state, known, state.size + step, writer.pending === 0);
        } catch (e) {
          if (!(e instanceof StoreBehind)) throw e;
          next = undefined;
        }
        if (next === 'none' && step < chunk) {
          shrink = false;
          continue;
        }
        if (next === 'none') {
          // A line longer than a chunk: a bigger chunk; else the file's complete lines are all in.
          if (state.size + chunk < total && lineEndBefore(path, total) > state.size) {
            chunk *= 4;
            continue;
          }
          // The chunks stored are reported first (a file still being written may grow meanwhile), then the file is looked at again.
          if (writer.pending > 0) {
            await caughtUp();
            continue;
          }
          break;
        }
        if (next) {
          const { update } = next;
          known = next.known;
          hashBehind = true;
          pipelined++;
          const { stored } = await writer.post(next.writes, next.transfer);
          // A chunk stored after a cancel is not reported: the import takes everything back.
          void stored.then(
            () => {
              if (!cancelled()) grown(update, total);
            },
            () => {},
          );
          if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
          continue;
        }
        // Not for the fast path as planned from memory: the store decides, once it holds every chunk.
        await caughtUp();
      }
      // Once an append leaves the fast path (the whole file decided: a fork, subagents in the file),
      // chunks would parse the whole file again each time: the rest goes in one update.
      const upTo = chunked && hasLineFastPath(state) ? state.size + chunk : undefined;
      // The tail goes on by itself from here: its running hash first (the writer hashed the chunks it stored).
      if (hashBehind) await rehash(state);
      hashBehind = false;
      const update = await updateTail(store, state, upTo !== undefined ? { upTo } : {});
      if (writer) known = knownNow();
      if (!update) {
        // A line longer than a chunk: a bigger chunk; else the file's complete lines are all in.
        if (upTo !== undefined && upTo < total && lineEndBefore(path, total) > state.size) {
          chunk *= 4;
          continue;
        }
        break;
      }
      if (!update.fast) chunked = false;
      // An append the whole file decided may add or remove sessions: what is stored now is what a cancel takes back.
      if (!update.fast) ids = sessionsOf(store, sourceId);
      grown(update, total);
      if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
    }
    if (writer) {
      await caughtUp();
      await writer.close();
      writer = undefined;
    }
    return { ...first, sessionIds: ids, messages, progressive: true, pipelined };
  } catch (e) {
    // The chunk being stored is rolled back with the writer's transaction; the stored ones are deleted here.
    await writer?.abort();
    discard(store, ids);
    throw e;
  } finally {
    resumeCheckpoints();
  }
}
