/**
 * One file into the store: parse it (streamed, hashed as it is read), reuse a stored copy with
 * the same hash, append only what is new when the file grew since its last import, else store
 * every session with its chars/4 estimates in one transaction. Runs in the import worker (or
 * in-process in tests). A big JSONL file goes through a writer thread that stores its lines while
 * it is parsed; its message rows then name their raw record by line (see store/writer.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { importSource, lineRecordsFormat } from '../../core/import/index';
// chars/4 straight from its modules: the tokens index would load the BPE rank tables too.
import { countSession } from '../../core/tokens/count';
import { createCounter } from '../../core/tokens/cost';
import { chars4 } from '../../core/tokens/heuristics';
import type { ByteSource } from '../../core/import/types';
import type { FormatId, Message, Session } from '../../core/model';
import type { SessionCounts } from '../../core/tokens/types';
import { fileSource } from '../io/file-source';
import { withSubagentFiles } from '../io/subagent-files';
import { messageRows, packText, sessionRow, storedEntries, type MessageRows, type SessionStore, type SourceInfo } from './sessions';
import { WriterClient, type WriterBatch } from './writer';
import { collectGarbage } from './collect-garbage';

export interface StoredImport {
  readonly sessionIds: string[];
  readonly reused: boolean;
  readonly format: FormatId;
  readonly warnings: string[];
  readonly messages: number;
}

export interface ImportFileOptions {
  readonly format?: FormatId;
  readonly tolerant?: boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: { bytes: number; sessions: number; messages: number }) => void;
  /** Write through a writer thread (default: for files of 4 MB and more). */
  readonly pipeline?: boolean;
  /** better-sqlite3's native binding for the writer thread (Electron). */
  readonly nativeBinding?: string;
  /**
   * Import only bytes [0, upTo) (a prefix that ends on a line end), as a new source: no stored
   * copy is reused and no earlier import is extended. The progressive import (store/progressive.ts)
   * stores such a prefix first, then appends the rest through the live tail's path.
   */
  readonly upTo?: number;
}

/** sha256 of the first `limit` bytes (the whole file by default). */
export async function hashFile(path: string, limit?: number): Promise<string> {
  const h = createHash('sha256');
  if (limit === 0) return h.digest('hex');
  const stream = createReadStream(path, limit !== undefined ? { end: limit - 1, highWaterMark: 1 << 20 } : { highWaterMark: 1 << 20 });
  for await (const chunk of stream) h.update(chunk as Buffer);
  return h.digest('hex');
}

/**
 * The file as the parser streams it, hashed on the way: the full pass (not the format sniff's
 * head read) yields the digest of exactly the bytes that were parsed, without a second read.
 */
function hashingSource(path: string, size: number): { source: ByteSource; digest: () => string | undefined } {
  const inner = fileSource(path, size);
  let digest: string | undefined;
  const source: ByteSource = {
    name: inner.name,
    size: inner.size,
    ...(inner.maxLineBytes !== undefined ? { maxLineBytes: inner.maxLineBytes } : {}),
    async *chunks() {
      const h = createHash('sha256');
      for await (const chunk of inner.chunks()) {
        h.update(chunk);
        yield chunk;
      }
      digest = h.digest('hex');
    },
  };
  return { source, digest: () => digest };
}

function reusedImport(store: SessionStore, ids: string[]): StoredImport {
  const row = store.getRow(ids[0]!);
  return { sessionIds: ids, reused: true, format: row?.format ?? 'jsonl', warnings: [], messages: 0 };
}

export async function importFileToStore(store: SessionStore, path: string, options: ImportFileOptions = {}): Promise<StoredImport> {
  const prefix = options.upTo !== undefined;
  const size = options.upTo ?? statSync(path).size;
  // A stored source of the same size is likely this very file: hash it first and skip the
  // parse. Otherwise the file is hashed as it is read (by the parser, or by the writer thread
  // that stores its lines meanwhile): one read, not two.
  let hash: string | undefined;
  if (!prefix && store.hasSourceOfSize(size)) {
    hash = await hashFile(path);
    const existing = store.findByHash(hash);
    if (existing && existing.length > 0) return reusedImport(store, existing);
  }
  const prev = prefix ? undefined : store.latestByPath(path);
  const grownFrom = prev && size > prev.size && (await hashFile(path, prev.size)) === prev.hash ? prev.sourceId : undefined;
  // Big files get a writer thread, started now: it stores a JSONL file's lines during the parse,
  // or is at least up when the parse is done.
  const dbPath = store.db.name;
  // On one core too: the second thread gains no speed there, but the in-thread path keeps every
  // raw record beside its message (a million tiny lines: ~970 MB instead of ~480 MB).
  const usePipeline = !prefix && (options.pipeline ?? size >= PIPELINE_MIN_BYTES);
  const writer =
    usePipeline && grownFrom === undefined && !store.db.memory && dbPath !== ''
      ? WriterClient.start({ dbPath, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) })
      : undefined;
  try {
    // A JSONL file whose records are its lines: the writer stores (and hashes) the lines while
    // this thread parses, and message rows name their line instead of copying it.
    const linesFormat = writer ? await lineRecordsFormat(fileSource(path, size), options.format) : undefined;
    const now = Date.now();
    if (writer && linesFormat)
      writer.post({ type: 'begin', source: { path, size, hash: `pending:${randomUUID()}`, format: linesFormat }, now, lines: true });
    const hashing = linesFormat ? undefined : hashingSource(path, size);
    // A Claude Code 2.x session's subagent files (beside it) are part of the same import.
    const outcome = await withSubagentFiles(
      path,
      await importSource(hashing?.source ?? fileSource(path, size), {
        ...(options.format ? { format: options.format } : {}),
        keepRaw: linesFormat ? 'lines' : true,
        tolerant: options.tolerant ?? false,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        onPhaseEnd: collectGarbage,
      }),
      { tolerant: options.tolerant ?? false, ...(options.signal ? { signal: options.signal } : {}) },
    );
    if (options.signal?.aborted) throw new Error(`${path}: import cancelled`);
    hash ??= writer && linesFormat ? await writer.hashed() : (hashing?.digest() ?? (await hashFile(path, size)));
    const existing = store.findByHash(hash);
    if (existing && existing.length > 0) return reusedImport(store, existing);
    const source = { path, size, hash, format: outcome.format };
    // Estimates at once: chars/4 counts are stored with the import, in its transaction; exact
    // counts follow in the background.
    // Many short sessions gain nothing from the second thread (per-session rows dominate), but
    // a writer that holds the lines already holds the transaction too.
    const viaWriter =
      writer && (linesFormat !== undefined || options.pipeline === true || outcome.sessions.length <= PIPELINE_MAX_SESSIONS);
    // The parse's garbage goes before the save's working set comes on top of it: without this
    // the peak of a big import came after its parse (see collect-garbage.ts).
    if (viaWriter) collectGarbage();
    const sessionIds = viaWriter
      ? await saveThroughWriter(
          writer,
          source,
          outcome.sessions,
          { begun: linesFormat !== undefined, lineRecords: outcome.lineRecords, now },
          options.signal,
        )
      : store.saveImport(source, outcome.sessions, { ...(grownFrom !== undefined ? { grownFrom } : {}), counts: estimate });
    // Lengths only: saveThroughWriter has released the messages themselves.
    return {
      sessionIds,
      reused: false,
      format: outcome.format,
      warnings: outcome.warnings,
      messages: outcome.sessions.reduce((n, s) => n + s.messages.length, 0),
    };
  } finally {
    // Committed by now (then it checkpoints and exits by itself), or dropped with its transaction.
    if (writer) {
      await writer.abort();
      finishing.add(writer.finished);
      void writer.finished.then(() => finishing.delete(writer.finished));
    }
  }
}

const finishing = new Set<Promise<void>>();

/**
 * Resolves when every writer thread has exited: after a commit, a writer still copies the WAL
 * into the database (a checkpoint). A worker that imports waits for this before it exits, so
 * that the checkpoint is not cut short and left to the host's next write.
 */
export async function writersFinished(): Promise<void> {
  await Promise.all([...finishing]);
}

/** The chars/4 estimates stored with an import (what `countWith(s, 'chars4')` gives). */
const estimate = (s: Session): SessionCounts => countSession(s, createCounter(chars4, { memo: false }));

/** Files from this size on are written by a writer thread while this one prepares the rows. */
const PIPELINE_MIN_BYTES = 4 << 20;
/** …and hold at most this many sessions. */
const PIPELINE_MAX_SESSIONS = 256;
/**
 * A batch for the writer: up to this many messages, sessions, or characters of text. Small
 * batches of small messages: the rows being gathered are what a scavenge finds alive and
 * promotes; on a million tiny lines 2,048 a batch peaked ~25 MB above 256, and was no faster.
 */
const BATCH_MESSAGES = 256;
const BATCH_SESSIONS = 1024;
const BATCH_CHARS = 1 << 20;

/**
 * `saveImport` on two threads: rows are prepared here and inserted by the writer meanwhile.
 * `begun`: the writer began the transaction (and stored the lines) already; `lineRecords`: the
 * messages' records are those lines. Consumes `sessions`: each message is released (its slot
 * emptied, the length kept) once its row is prepared, so that a collection under memory pressure
 * can take them; the caller reads only the lengths afterwards.
 */
async function saveThroughWriter(
  writer: WriterClient,
  source: SourceInfo,
  sessions: readonly Session[],
  how: { begun: boolean; lineRecords: boolean; now: number },
  signal?: AbortSignal,
): Promise<string[]> {
  const now = how.now;
  if (!how.begun) writer.post({ type: 'begin', source, now });
  let rows: MessageRows[] = [];
  let batch = { sessions: [] as WriterBatch['sessions'], segments: [] as WriterBatch['segments'], counts: [] as WriterBatch['counts'] };
  let messages = 0;
  let chars = 0;
  const flush = async (): Promise<void> => {
    if (signal?.aborted) throw new Error(`${source.path}: import cancelled`);
    if (batch.sessions.length + batch.segments.length + batch.counts.length === 0) return;
    await writer.postBatch({ ...batch, packed: packText(rows) });
    batch = { sessions: [], segments: [], counts: [] };
    rows = [];
    messages = 0;
    chars = 0;
  };
  const ids: string[] = [];
  // Subagents are rows of their own, each right after its parent (see storedEntries).
  const rowIds: string[] = [];
  let position = -1;
  for (const { session: s, parent, link } of storedEntries(sessions)) {
    if (parent === null) position++;
    const id = randomUUID();
    rowIds.push(id);
    const { sourceId: _sourceId, ...row } = sessionRow(s, id, 0, position, now, {
      parentId: parent !== null ? rowIds[parent]! : null,
      link,
      rowsForSubagents: true,
    });
    batch.sessions.push(row);
    // The estimates size the batches too: ~4 characters a token is the body's text, plus the raw
    // record when it travels in the row (a line-named record does not).
    const counts = estimate(s);
    const n = s.messages.length;
    for (let from = 0; from < n;) {
      let to = from;
      while (to < n && messages < BATCH_MESSAGES && chars < BATCH_CHARS) {
        chars += 4 * counts.perMessage[to]! + (s.messages[to]!.raw?.length ?? 0);
        to++;
        messages++;
      }
      const r = messageRows(s.messages, from, to, how.lineRecords);
      // The rows (JSON bodies) replace the messages: the import's own sessions are consumed
      // here, so a million tiny messages are never held beside their rows (docs/reliability.md).
      (s.messages as (Message | undefined)[]).fill(undefined, from, to);
      rows.push(r);
      batch.segments.push({ sessionId: id, from, ids: r.ids, roles: r.roles, rawLines: r.rawLines, usage: r.usage });
      from = to;
      if (messages >= BATCH_MESSAGES || chars >= BATCH_CHARS) await flush();
    }
    batch.counts.push({ sessionId: id, counts });
    if (parent === null) ids.push(id);
    if (batch.sessions.length >= BATCH_SESSIONS) await flush();
  }
  await flush();
  await writer.commit(how.begun ? { hash: source.hash, format: source.format } : undefined);
  return ids;
}
