/**
 * Live tail, the store's side: a stored session whose source file grows (an agent still writing
 * it) is brought up to date in place, under the same session ids (docs/user-guide.md "Live tail").
 *
 * - What was imported is remembered as its byte length (`sources.size`), the sha256 of those
 *   bytes (kept running in memory, so an append hashes only its new bytes) and the sha256 of the
 *   last 64 KB before that length. A file now shorter, or whose last imported 64 KB changed, was
 *   truncated or rewritten: it is re-imported whole as the same sessions, never merged.
 * - A line-appended file (the imported part ends with a newline: JSONL) is read up to its last
 *   complete line; a partial last line waits for its newline. A JSON document is read whole.
 * - An append that only continues the session takes a fast path: the format's tail parser
 *   (core/formats/<format>.ts, pure code: the new bytes and its state in, the messages and its
 *   next state out) reads the new lines alone, and tail-append.ts writes what they make. A JSON
 *   document written again whole with more elements at the end of its arrays takes
 *   tail-document.ts: only the new elements are parsed, by the format's document shapes.
 * - Otherwise the importer runs over the whole file again (so every rule it has — the Claude Code
 *   chain by parentUuid, a response split over several lines — decides as on a first import),
 *   and only the messages from the first one that differs from the stored session are written:
 *   a plain append writes the new messages; an appended line that changes which branch is the
 *   main chain, or that extends the last response, rewrites from the first message it changed.
 * - One transaction per update: a failed update leaves the stored session as it was.
 */
import { readRange as readFileRange } from '../io/read-range';
import { BoundedCache } from '../../core/bounded-cache';
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { formatOf } from '../../core/formats/index';
import type { ByteScan, LinesTail } from '../../core/formats/types';
import { importSource } from '../../core/import/index';
import { sniffSource } from '../../core/import/sniff';
import type { ByteSource } from '../../core/import/types';
import { stepIndices, type FormatId, type Message, type Session, type SourceCompaction } from '../../core/model';
import { countSession } from '../../core/tokens/count';
import { createCounter } from '../../core/tokens/cost';
import { chars4 } from '../../core/tokens/heuristics';
import { fileSource } from '../io/file-source';
import { messageRows, sessionRow, sourceLineId, storedEntries, type SessionStore } from './sessions';
import {
  knownStoredSession,
  onlySession,
  planAppend,
  recordsOf,
  storedSession,
  updateSource,
  type FastAppend,
  type FastPlan,
  type KnownSession,
} from './tail-append';
import type { ChunkWrites } from './chunk-writer';
import { StatementRecorder } from './recorded';
import { isJsonDocument } from './tail-shape';
import { appendDocument, documentTail, documentTailOf, type DocumentFormat, type DocumentTail } from './tail-document';

/** The bytes whose digest tells an appended file from a rewritten one. */
export const TAIL_CHECK_BYTES = 64 << 10;
/**
 * Stored messages whose bodies are compared with the new parse, before the first changed id. An
 * appended line changes an earlier message only by extending a response written over several
 * lines (the last one or two messages); every id is compared too, which catches a new main chain.
 */
const BODY_CHECK = 16;

/** What the tail of one source knows between updates (held by the host while it watches). */
export interface TailState {
  readonly sourceId: number;
  readonly path: string;
  readonly format: FormatId;
  /** Bytes imported. */
  size: number;
  /** sha256 over [0, size), not finalised: an append updates a copy. */
  hash: Hash;
  /** sha256 of the last TAIL_CHECK_BYTES before `size`. */
  tailDigest: string;
  /** The file no longer starts with what was imported (found when the tail was opened). */
  stale: boolean;
  /** What was imported is one JSON document (written again whole at each change), not lines; undefined when not known. */
  document?: boolean | undefined;
  /** A line file whose appends can take its format's fast path (core/formats/types.ts `LinesTail`): the parser and its state. */
  lines?: LinesFastPath | undefined;
  /** A JSON document whose new writes can take the fast path (store/tail-document.ts). */
  doc?: DocumentTail | undefined;
}

/** A format's line tail parser and the state it answered last (opaque here). */
export interface LinesFastPath {
  readonly tail: LinesTail;
  state: unknown;
}

/** The document shapes of a format with a document fast path. */
const documentsOf = (format: FormatId): readonly DocumentFormat[] | undefined => formatOf(format)?.tail?.document?.shapes;

/** The line tail of a format with one. */
const linesTailOf = (format: FormatId): LinesTail | undefined => formatOf(format)?.tail?.lines;

export interface TailSessionUpdate {
  readonly id: string;
  readonly messages: number;
  readonly steps: number;
  /** First message index written again (== the old count for a plain append). */
  readonly changedFrom: number;
  /**
   * Messages [changedFrom, messages) as stored, so a host can patch the session it holds instead
   * of reading all of it again (the session's other fields are unchanged): on the fast path, and
   * on the whole-file path when the messages before changedFrom and the session's fields are kept.
   */
  readonly written?: {
    readonly messages: readonly Message[];
    readonly previous: number;
    readonly compactions?: readonly SourceCompaction[];
    /**
     * The same messages as their stored JSON bodies (the fast path has them): the import worker
     * posts these to the host instead of the messages (host/import-worker.ts), as cloning strings
     * costs a fraction of cloning the objects they encode.
     */
    readonly bodies?: readonly string[];
  };
}

export interface TailUpdate {
  /** The file was truncated or rewritten and was re-imported whole. */
  readonly rewritten: boolean;
  /** Sessions whose messages changed (ids kept), and new ones. */
  readonly sessions: TailSessionUpdate[];
  /** Sessions the rewritten file no longer has: deleted from the store. */
  readonly deleted: string[];
  /** Bytes now imported. */
  readonly size: number;
  /** Only the new lines were parsed (a fast path), not the whole file. */
  readonly fast: boolean;
}

export class TailError extends Error {
  constructor(
    message: string,
    /** The stored source changed under the tail (the file was imported again): open the tail again. */
    readonly reopen = false,
  ) {
    super(message);
    this.name = 'TailError';
  }
}

interface SourceRow {
  readonly id: number;
  readonly path: string;
  readonly size: number;
  readonly hash: string;
  readonly format: FormatId;
}

/** The source a stored session was imported from, or undefined for an unknown session. */
export function sourceOfSession(store: SessionStore, sessionId: string): SourceRow | undefined {
  return store.db
    .prepare(
      'SELECT src.id, src.path, src.size, src.hash, src.format FROM sessions s JOIN sources src ON src.id = s.source_id WHERE s.id = ?',
    )
    .get(sessionId) as SourceRow | undefined;
}

/** Reads bytes [from, to) of a file; one shorter than that changed meanwhile. */
function readRange(path: string, from: number, to: number): Buffer {
  const buf = readFileRange(path, from, to);
  if (buf.length < to - from) throw new TailError(`${path}: shorter than expected while reading it (changed meanwhile)`);
  return buf;
}

/** Bytes [0, size) of a file, or undefined when it is now shorter (changed meanwhile: the stream's hash says so). */
function readWhole(path: string, size: number): Buffer | undefined {
  try {
    return readRange(path, 0, size);
  } catch (e) {
    if (e instanceof TailError) return undefined;
    throw e;
  }
}

const digestBefore = (path: string, end: number): string =>
  createHash('sha256')
    .update(readRange(path, Math.max(0, end - TAIL_CHECK_BYTES), end))
    .digest('hex');

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    throw new TailError(`${path}: the session's source file is gone (moved or deleted)`);
  }
}

/**
 * Starts tailing the source of `sessionId`: hashes what was imported (one read of it) and
 * compares it with the stored hash, so a file rewritten while nobody watched is re-imported by
 * the first update. A JSON document with a fast path is read whole on that one pass, and its
 * arrays are found in the same bytes.
 */
export async function openTail(store: SessionStore, sessionId: string): Promise<TailState> {
  const src = sourceOfSession(store, sessionId);
  if (!src) throw new TailError(`no session with id "${sessionId}"`);
  const size = fileSize(src.path);
  const hash = createHash('sha256');
  // Whether it is one document, as the import detects it (a stale file is re-imported whole: no fast path to prepare).
  const document = size >= src.size ? await isJsonDocument(src.path, src.size) : undefined;
  const docFormats = document === true ? documentsOf(src.format) : undefined;
  const bytes = docFormats ? readWhole(src.path, src.size) : undefined;
  // A line file is streamed: its lines are counted, and its format's scan fed, on this one pass.
  const scan = new LineScan(bytes ? undefined : linesTailOf(src.format)?.scan?.());
  if (bytes) hash.update(bytes);
  else
    for await (const chunk of fileSource(src.path, Math.min(size, src.size)).chunks()) {
      hash.update(chunk);
      scan.feed(chunk);
    }
  const stale = size < src.size || hash.copy().digest('hex') !== src.hash;
  const state: TailState = {
    sourceId: src.id,
    path: src.path,
    format: src.format,
    size: src.size,
    hash,
    tailDigest: stale ? '' : digestBefore(src.path, src.size),
    stale,
    document: stale ? undefined : document,
  };
  // A document watched before, unchanged since: its arrays as that watch left them (the same bytes walk the same).
  const kept = unpark(store, src);
  if (!stale) setFastTails(state, scan, bytes, kept);
  return state;
}

/** A document's fast-path state parked when its watch ended, with the source it was read from. */
interface Parked {
  readonly size: number;
  readonly digest: string;
  readonly doc: DocumentTail;
}
/** By store, then source id; a few per store (each holds a document's skeleton and the format's ids). */
const parked = new WeakMap<SessionStore, BoundedCache<number, Parked>>();
const PARKED_PER_STORE = 8;

/**
 * Ends a tail (its watch stopped, no update running): a document's fast-path state is kept, so
 * a watch begun again on the unchanged file (the window switching back to the session) does not
 * walk the document again. The tail gives it up.
 */
export function closeTail(store: SessionStore, state: TailState): void {
  const doc = state.doc;
  state.doc = undefined;
  if (!doc || state.stale) return;
  let bySource = parked.get(store);
  if (!bySource) parked.set(store, (bySource = new BoundedCache({ max: PARKED_PER_STORE })));
  bySource.set(state.sourceId, { size: state.size, digest: state.hash.copy().digest('hex'), doc });
}

/** The parked state of a source, taken (one tail owns it), when it was read from what is stored now. */
function unpark(store: SessionStore, src: SourceRow): DocumentTail | undefined {
  const bySource = parked.get(store);
  const p = bySource?.get(src.id);
  bySource?.delete(src.id);
  return p && p.size === src.size && p.digest === src.hash ? p.doc : undefined;
}

/** Lines counted, and the format's own scan fed (core/formats/types.ts `ByteScan`), as a file streams by. */
class LineScan {
  lines = 0;
  /** Fed every chunk; its result undefined when there is none. */
  constructor(private readonly format?: ByteScan) {}
  feed(chunk: Uint8Array): void {
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, nl + 1)) this.lines++;
    this.format?.feed(chunk);
  }
  done(): unknown {
    return this.format?.done();
  }
}

/** Bytes [from, to) of a file for a format's tail parser: fewer when the file is now shorter. */
const reader =
  (path: string) =>
  (from: number, to: number): Uint8Array =>
    readFileRange(path, from, to);

/**
 * The fast path's state for the file's format (core/formats: its line tail when the imported
 * bytes end on a newline, its document shapes for a document; from `bytes` when the caller read
 * them, verified against the state's hash).
 */
function setFastTails(state: TailState, scan: LineScan, bytes?: Buffer, kept?: DocumentTail): void {
  const lines = state.size > 0 && readRange(state.path, state.size - 1, state.size)[0] === 10;
  const tail = lines ? linesTailOf(state.format) : undefined;
  const start = tail?.start({
    lines: scan.lines,
    size: state.size,
    name: state.path,
    scanned: scan.done(),
    read: reader(state.path),
    document: state.document,
  });
  state.lines = tail && start !== undefined ? { tail, state: start } : undefined;
  const doc = state.document === true ? documentsOf(state.format) : undefined;
  state.doc =
    doc &&
    (kept ?? (bytes ? documentTailOf(doc, state.path, bytes) : documentTail(doc, state.path, state.size, state.hash.copy().digest('hex'))));
}

/**
 * Runs the format's `prepare` (core/formats/types.ts `LinesTail`) on an opened tail: what its
 * appends read of the stored session, read one slice per turn of the event loop, so the first
 * append does not. The caller runs no update meanwhile (the host's watch holds its lock);
 * `stopped` ends it early (an append waits, the watch was stopped), leaving the state as it was
 * (an append then reads what it needs itself). True when it ran to the end (or had nothing to do).
 */
export async function prepareTail(store: SessionStore, state: TailState, stopped: () => boolean = () => false): Promise<boolean> {
  const lines = state.lines;
  if (!lines?.tail.prepare || state.stale) return true;
  const only = onlySession(store, state.sourceId);
  if (!only) return true;
  const steps = lines.tail.prepare(lines.state, storedSession(store, only));
  for (;;) {
    const step = steps.next();
    if (step.done) {
      lines.state = step.value;
      return true;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (stopped() || state.lines !== lines) return false;
  }
}

/** The fast path's plan for an append of whole lines, or undefined (none for this format, or the whole file must decide). */
async function fastPlan(store: SessionStore, state: TailState, appended: Buffer): Promise<FastPlan | undefined> {
  const lines = state.lines;
  if (!lines) return undefined;
  const only = onlySession(store, state.sourceId);
  if (!only) return undefined;
  const answer = await lines.tail.append({
    state: lines.state,
    appended,
    session: storedSession(store, only),
    name: state.path,
    size: state.size,
    read: reader(state.path),
  });
  lines.state = answer.state;
  const change = answer.change;
  if (!change) return undefined;
  const plan = planAppend(store, {
    session: only,
    from: change.from,
    removed: change.removed,
    changed: change.changed,
    record: recordsOf(store, state.sourceId, only, change),
    ...(change.compactions && change.compactions.length > 0 ? { compactions: change.compactions } : {}),
  });
  return plan && { ...plan, advance: () => void (lines.state = change.next()) };
}

/** What one complete read of the file saw: where each line starts, its lines, its hash (and its bytes, when kept). */
interface Indexed {
  readonly lineStarts: number[];
  readonly scan: LineScan;
  readonly hash: Hash;
  readonly bytes: Buffer | undefined;
}

/**
 * The file as the parser streams it, indexed on the way. The framework reads a source more than
 * once (the format sniff reads its head): each read starts afresh, and the last complete one is
 * the result. With `keep`, its bytes are kept too (a document's fast path walks them after the
 * import instead of reading and hashing the file once more).
 */
function indexingSource(path: string, size: number, keep: boolean, format: FormatId): { source: ByteSource; indexed: () => Indexed } {
  const inner = fileSource(path, size);
  let done: Indexed | undefined;
  const source: ByteSource = {
    name: inner.name,
    size: inner.size,
    ...(inner.maxLineBytes !== undefined ? { maxLineBytes: inner.maxLineBytes } : {}),
    async *chunks() {
      const pass = { lineStarts: [0], scan: new LineScan(linesTailOf(format)?.scan?.()), hash: createHash('sha256') };
      const bytes = keep ? Buffer.allocUnsafe(size) : undefined;
      let at = 0;
      for await (const chunk of inner.chunks()) {
        pass.hash.update(chunk);
        pass.scan.feed(chunk);
        // The reader reuses its buffer: copied out.
        bytes?.set(chunk, at);
        for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, nl + 1)) pass.lineStarts.push(at + nl + 1);
        at += chunk.length;
        yield chunk;
      }
      // A file cut short while read: not the bytes imported.
      done = { ...pass, bytes: bytes && at === size ? bytes : undefined };
    },
  };
  return {
    source,
    indexed: () => {
      if (!done) throw new TailError(`${path}: the import did not read the whole file`);
      return done;
    },
  };
}

/** The end of the last complete line at or before `end`, scanning back from it (0: none). */
function lastLineEnd(path: string, from: number, end: number): number {
  for (let to = end; to > from;) {
    const at = Math.max(from, to - (1 << 20));
    const nl = readRange(path, at, to).lastIndexOf(10);
    if (nl >= 0) return at + nl + 1;
    to = at;
  }
  return from;
}

export interface UpdateTailOptions {
  /**
   * Read the file only up to this byte (then to its last complete line before it): the
   * progressive import (store/progressive.ts) appends a big file in chunks through this path.
   */
  readonly upTo?: number;
}

/**
 * Brings the stored sessions of a tailed source up to date with its file. Undefined when there
 * is nothing to do yet (no new bytes, or only a partial line). Throws ImportError when the file
 * no longer parses (state unchanged: the next change tries again).
 */
export async function updateTail(store: SessionStore, state: TailState, options: UpdateTailOptions = {}): Promise<TailUpdate | undefined> {
  // An import of the grown file (Open… again) moves its sessions to a new source row.
  const stored = store.db.prepare('SELECT size FROM sources WHERE id = ?').pluck().get(state.sourceId) as number | undefined;
  if (stored !== state.size) throw new TailError(`${state.path}: imported again meanwhile`, true);
  const size = Math.min(fileSize(state.path), options.upTo ?? Infinity);
  const changed = !state.stale && size >= state.size && state.size > 0 && digestBefore(state.path, state.size) !== state.tailDigest;
  // A JSON document (as the import detects it, not JSON lines) is written again whole at each
  // change, its end moved: it is read whole and compared with every stored message, not taken
  // for a rewrite of another session (which would store every message again).
  const document = !state.stale && size >= state.size && state.document === true;
  const rewritten = state.stale || size < state.size || (changed && !document);
  if (!rewritten && size === state.size && !(document && changed)) return undefined;
  let end = size;
  let hash: Hash | undefined;
  if (document) {
    // The new write alone when it only adds to the document; else the whole file's hash, from the import's read of it.
    const plan = state.doc && appendDocument(store, state.sourceId, state.path, state.doc, TAIL_CHECK_BYTES);
    if (plan === 'incomplete') return undefined;
    if (plan) return commitFast(store, state, plan, plan.size, plan.hash, plan.tailDigest);
  } else if (!rewritten) {
    // Lines when the import ended on a newline; a JSON document is read whole.
    const lines = state.size === 0 || readRange(state.path, state.size - 1, state.size)[0] === 10;
    if (lines) end = lastLineEnd(state.path, state.size, size);
    if (end <= state.size) return undefined;
    hash = state.hash.copy();
    if (lines && state.lines) {
      // The fast path: the new lines alone, when they only continue the session.
      const appended = readRange(state.path, state.size, end);
      hash.update(appended);
      const plan = await fastPlan(store, state, appended);
      if (plan) return commitFast(store, state, plan, end, hash, digestBefore(state.path, end));
      hash = state.hash.copy();
    }
    for (let at = state.size; at < end; at += 1 << 20) hash.update(readRange(state.path, at, Math.min(end, at + (1 << 20))));
  } else {
    if (size === 0) return undefined;
    const shape = (await sniffSource(fileSource(state.path, size))).shape;
    // JSON lines are read to their last complete line (a head that only looks like lines may be one long document).
    if (shape === 'jsonl' && (await isJsonDocument(state.path, size)) === false) end = lastLineEnd(state.path, 0, size);
    if (end === 0) return undefined;
  }
  const { source, indexed } = indexingSource(state.path, end, document && documentsOf(state.format) !== undefined, state.format);
  const outcome = await importSource(source, { format: state.format, keepRaw: 'lines' });
  const { lineStarts, scan, bytes } = indexed();
  // An append hashes its new bytes onto the running hash; a re-import has the whole file's.
  const fullHash = hash ?? indexed().hash;
  const digest = fullHash.copy().digest('hex');
  // Raw records kept by source line would name lines a rewritten document no longer has there.
  const reimport = rewritten || (document && outcome.lineRecords);
  const { updated, deleted } = applyTail(store, state, outcome.sessions, {
    rewritten: reimport,
    compareAll: document,
    size: end,
    hash: digest,
    lineRecords: outcome.lineRecords,
    lineStarts,
  });
  state.size = end;
  state.hash = fullHash;
  state.tailDigest = digestBefore(state.path, end);
  // The import's own bytes, when it read exactly what is now imported (an append hashes onto the running hash).
  const read = hash ? undefined : bytes;
  state.document = await isJsonDocument(state.path, end, read);
  state.stale = false;
  setFastTails(state, scan, read);
  return { rewritten: reimport, sessions: updated, deleted, size: end, fast: false };
}

/** Stores a fast path's plan with the source's new size and hash (one transaction), and moves the tail on. */
function commitFast(store: SessionStore, state: TailState, plan: FastPlan, end: number, hash: Hash, tailDigest: string): TailUpdate {
  const digest = hash.copy().digest('hex');
  const db = store.db;
  // Every row the plan inserts belongs to the session it updates, which exists: a foreign-key
  // lookup per message and usage row checks nothing (the import's writer thread does without
  // them too). The pragma applies only outside a transaction; it is put back right after.
  const checks = !db.inTransaction && db.pragma('foreign_keys', { simple: true }) === 1;
  if (checks) db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      plan.apply();
      updateSource(store, state.sourceId, end, digest);
    })();
  } finally {
    if (checks) db.pragma('foreign_keys = ON');
  }
  plan.advance();
  state.size = end;
  state.hash = hash;
  state.tailDigest = tailDigest;
  return fastUpdate(plan.update, end);
}

/** The update an append on the fast path made (one session, never a rewrite). */
function fastUpdate(u: FastAppend | undefined, end: number): TailUpdate {
  return {
    rewritten: false,
    sessions: u
      ? [
          {
            id: u.sessionId,
            messages: u.messages,
            steps: u.steps,
            changedFrom: u.changedFrom,
            written: {
              messages: u.written,
              bodies: u.bodies,
              previous: u.previous,
              ...(u.compactions ? { compactions: u.compactions } : {}),
            },
          },
        ]
      : [],
    deleted: [],
    size: end,
    fast: true,
  };
}

/** A chunk planned for the chunk writer thread (store/chunk-writer.ts): its writes, the update it makes once stored, the session after it. */
export interface RecordedChunk {
  readonly writes: ChunkWrites;
  readonly transfer: ArrayBuffer[];
  readonly update: TailUpdate;
  readonly known: KnownSession;
}

/**
 * A pipelined progressive import's next chunk (store/progressive.ts): the appended lines up to
 * `upTo`, planned on the fast path from `known` rather than from the store (which is a chunk
 * behind), recorded for the writer thread; the tail moves on as if it were stored, but for its
 * running hash: the writer hashes the chunks (`rehash` brings it up to date). `'none'`: no
 * complete line to add. Undefined: the fast path does not take these lines (the caller waits for
 * the writer, then runs `updateTail`). Throws StoreBehind when planning needs a row the writer has
 * not stored yet (the caller waits for it and runs `updateTail`).
 */
export async function recordChunk(
  store: SessionStore,
  state: TailState,
  known: KnownSession,
  upTo: number,
  /** The writer has stored every chunk: what `known` does not hold may be read from the store. */
  current: boolean,
): Promise<RecordedChunk | 'none' | undefined> {
  const lines = state.lines;
  if (!lines || state.stale || state.document === true || state.size === 0) return undefined;
  const size = Math.min(fileSize(state.path), upTo);
  if (size < state.size || digestBefore(state.path, state.size) !== state.tailDigest) return undefined;
  if (readRange(state.path, state.size - 1, state.size)[0] !== 10) return undefined;
  const end = lastLineEnd(state.path, state.size, size);
  if (end <= state.size) return 'none';
  const appended = readRange(state.path, state.size, end);
  const answer = await lines.tail.append({
    state: lines.state,
    appended,
    session: current ? storedSession(store, known.session) : knownStoredSession(known),
    name: state.path,
    size: state.size,
    read: reader(state.path),
  });
  lines.state = answer.state;
  const change = answer.change;
  if (!change) return undefined;
  const session = known.session;
  const plan = planAppend(
    // With `known`, the plan reads nothing from the store but the usage table's layout (its schema).
    store,
    {
      session,
      from: change.from,
      removed: change.removed,
      changed: change.changed,
      record: recordsOf(store, state.sourceId, session, change, known),
      ...(change.compactions && change.compactions.length > 0 ? { compactions: change.compactions } : {}),
    },
    known,
    current,
  );
  if (!plan) return undefined;
  const recorded = plan.record?.(appended);
  lines.state = change.next();
  state.size = end;
  state.tailDigest = digestBefore(state.path, end);
  const update = fastUpdate(plan.update, end);
  const source = { sourceId: state.sourceId, size: end };
  // Lines that hold no message: their bytes only, for the source's hash.
  const r = recorded?.writes;
  const { recording, transfer } = r ? { recording: r.statements, transfer: r.transfer } : new StatementRecorder(appended).take();
  return {
    writes: { statements: recording, ...(recorded ? { finish: recorded.writes.finish } : {}), source },
    transfer,
    update,
    known: recorded?.known ?? known,
  };
}

/**
 * The tail's running hash, read again from the file: after pipelined chunks (`recordChunk`), whose
 * bytes the writer thread hashed, before the tail goes on by itself.
 */
export async function rehash(state: TailState): Promise<void> {
  const hash = createHash('sha256');
  for await (const chunk of fileSource(state.path, state.size).chunks()) hash.update(chunk);
  state.hash = hash;
}

interface ApplyOptions {
  readonly rewritten: boolean;
  /** Compare every stored message (id, body, raw record) with the new parse, not only the last ones (a document written again). */
  readonly compareAll: boolean;
  readonly size: number;
  readonly hash: string;
  /** Messages name their raw record by source line (`ImportOutcome.lineRecords`). */
  readonly lineRecords: boolean;
  /** Byte offset of each line's start (index = line number − 1), plus the end. */
  readonly lineStarts: readonly number[];
}

/** The chars/4 estimates an import stores (store/import-file.ts). */
const estimate = (s: Session) => countSession(s, createCounter(chars4, { memo: false }));

/** The first message of `messages` that differs from the stored session (its ids, then its last bodies; with `all`, every id, body and raw record). */
function firstChange(store: SessionStore, sessionId: string, messages: readonly Message[], lineRecords: boolean, all: boolean): number {
  if (all) {
    const rows = messageRows(messages, 0, messages.length, lineRecords);
    let k = 0;
    for (const r of store.db
      .prepare('SELECT message_id AS id, body, raw FROM messages WHERE session_id = ? ORDER BY idx')
      .iterate(sessionId) as IterableIterator<{ id: string; body: string; raw: string | null }>) {
      if (k >= messages.length || r.id !== rows.ids[k] || r.body !== rows.bodies[k] || r.raw !== rows.raws[k]) break;
      k++;
    }
    return k;
  }
  const ids = store.db.prepare('SELECT message_id FROM messages WHERE session_id = ? ORDER BY idx').pluck().all(sessionId) as string[];
  const n = Math.min(ids.length, messages.length);
  let k = 0;
  while (k < n && ids[k] === messages[k]!.id) k++;
  const body = store.db.prepare('SELECT body FROM messages WHERE session_id = ? AND idx = ?').pluck();
  for (let i = Math.max(0, k - BODY_CHECK); i < k; i++) {
    if (body.get(sessionId, i) !== messageRows(messages, i, i + 1, lineRecords).bodies[0]) return i;
  }
  return k;
}

/** One update's writes, in one transaction. */
function applyTail(
  store: SessionStore,
  state: TailState,
  sessions: readonly Session[],
  o: ApplyOptions,
): { updated: TailSessionUpdate[]; deleted: string[] } {
  const db = store.db;
  const stored = db
    .prepare(
      'SELECT id, position, source_session_id AS sourceSessionId, message_count AS messageCount, parent_id AS parentId, meta FROM sessions WHERE source_id = ? ORDER BY position',
    )
    .all(state.sourceId) as {
    id: string;
    position: number;
    sourceSessionId: string;
    messageCount: number;
    parentId: string | null;
    meta: string;
  }[];
  const insertMessage = db.prepare(
    'INSERT INTO messages (session_id, idx, message_id, role, body, raw, raw_line) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const insertLine = db.prepare(`INSERT OR ${o.rewritten ? 'REPLACE' : 'IGNORE'} INTO source_lines (id, text) VALUES (?, CAST(? AS TEXT))`);
  const updateSession = db.prepare(
    'UPDATE sessions SET position = ?, meta = ?, message_count = ?, step_count = ?, turn_count = ?, has_usage = ?, title = ?, model = ?, started_at = ?, cwd = ?, compactions = ?, prompt_tokens = ?, output_tokens = ?, cost = ?, ended_at = ?, parent_id = ?, spawned_by = ?, spawned_at = ? WHERE id = ?',
  );
  const fd = o.lineRecords ? openSync(state.path, 'r') : undefined;
  /** Line `line`'s text as the import stores it (no newline, no trailing CR, no byte-order mark). */
  const lineText = (line: number): Buffer => {
    const from = o.lineStarts[line - 1];
    const next = o.lineStarts[line];
    if (from === undefined || next === undefined) return Buffer.alloc(0);
    const buf = Buffer.allocUnsafe(next - 1 - from);
    if (buf.length > 0) readSync(fd!, buf, 0, buf.length, from);
    let start = 0;
    let stop = buf.length;
    if (stop > 0 && buf[stop - 1] === 13) stop--;
    if (line === 1 && stop >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3;
    return buf.subarray(start, stop);
  };
  /** Writes messages [from, …) of a session; answers their bodies as stored. */
  const writeMessages = (id: string, messages: readonly Message[], from: number): string[] => {
    const rows = messageRows(messages, from, messages.length, o.lineRecords);
    for (let j = 0; j < rows.ids.length; j++) {
      const i = from + j;
      const m = messages[i]!;
      const line = rows.rawLines[j]!;
      if (line > 0) for (const l of [line, ...(m.mergedLines ?? [])]) insertLine.run(sourceLineId(state.sourceId, l), lineText(l));
      insertMessage.run(
        id,
        i,
        rows.ids[j],
        rows.roles[j],
        rows.bodies[j],
        rows.raws[j],
        line > 0 ? sourceLineId(state.sourceId, line) : null,
      );
      const u = rows.usage[j];
      if (u) store.insertUsageRow(id, i, u);
    }
    return rows.bodies;
  };
  try {
    return db.transaction(() => {
      const now = Date.now();
      const out: TailSessionUpdate[] = [];
      const matched = new Set<string>();
      if (o.rewritten)
        db.prepare('DELETE FROM source_lines WHERE id >= ? AND id < ?').run(
          sourceLineId(state.sourceId, 0),
          sourceLineId(state.sourceId + 1, 0),
        );
      // Subagents are rows of their own right after their parent, as a first import stores them
      // (store/import-file.ts, storedEntries); a row is matched by its source session id, else
      // (a top-level session only) by position.
      const rowIds: string[] = [];
      let position = -1;
      for (const { session: s, parent, link } of storedEntries(sessions)) {
        if (parent === null) position++;
        const prev =
          stored.find((r) => !matched.has(r.id) && r.sourceSessionId === s.id) ??
          (parent === null ? stored.find((r) => !matched.has(r.id) && r.parentId === null && r.position === position) : undefined);
        const parentId = parent !== null ? rowIds[parent]! : null;
        const row = sessionRow(s, prev?.id ?? '', state.sourceId, position, now, { parentId, link, rowsForSubagents: true });
        const steps = stepIndices(s.messages).length;
        if (!prev) {
          const id = randomUUID();
          rowIds.push(id);
          store.insertSession({ ...row, id });
          writeMessages(id, s.messages, 0);
          store.saveCounts(id, estimate(s));
          out.push({ id, messages: s.messages.length, steps, changedFrom: 0 });
          continue;
        }
        rowIds.push(prev.id);
        matched.add(prev.id);
        const k = o.rewritten ? 0 : firstChange(store, prev.id, s.messages, o.lineRecords, o.compareAll);
        updateSession.run(
          position,
          row.meta,
          row.messageCount,
          row.steps,
          row.turns,
          row.hasUsage,
          row.title,
          row.model,
          row.startedAt,
          row.cwd ?? null,
          row.compactions ?? 0,
          row.promptTokens ?? 0,
          row.outputTokens ?? 0,
          row.cost ?? null,
          row.endedAt ?? null,
          parentId,
          row.spawnedBy ?? null,
          row.spawnedAt ?? null,
          prev.id,
        );
        if (k === s.messages.length && k === prev.messageCount && !o.rewritten) continue;
        db.prepare('DELETE FROM messages WHERE session_id = ? AND idx >= ?').run(prev.id, k);
        db.prepare('DELETE FROM usage WHERE session_id = ? AND idx >= ?').run(prev.id, k);
        const bodies = writeMessages(prev.id, s.messages, k);
        // Counts of every tokenizer covered the old messages: the estimates are redone now, the
        // exact counts when the host next asks for them.
        db.prepare('DELETE FROM token_counts WHERE session_id = ?').run(prev.id);
        store.saveCounts(prev.id, estimate(s));
        // Messages before k and the session's other fields are as stored: a host holding the
        // session patches it with the messages written (as loadSession reads them) and keeps what
        // its replays extracted from the rest, instead of reading 100 MB again.
        const written =
          !o.rewritten && k > 0 && row.meta === prev.meta
            ? { messages: bodies.map((b) => JSON.parse(b) as Message), previous: prev.messageCount }
            : undefined;
        out.push({ id: prev.id, messages: s.messages.length, steps, changedFrom: k, ...(written ? { written } : {}) });
      }
      const deleted = stored.filter((r) => !matched.has(r.id)).map((r) => r.id);
      for (const id of deleted) db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
      updateSource(store, state.sourceId, o.size, o.hash);
      return { updated: out, deleted };
    })();
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
