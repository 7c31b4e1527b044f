/**
 * What every live-tail fast path shares (docs/user-guide.md "Live tail"): a format's tail parser
 * (core/formats/<format>.ts, pure) reads the appended bytes on its own and says which messages
 * they make — new ones after the stored session, and possibly the stored last message extended
 * (a response continued on a new line) — and this writes them as a first import of the grown file would have stored them: message and
 * usage rows, the chars/4 estimates, the other stored counts extended, and the session row's
 * columns (calls, turns, usage, cost, end time, title). One file holds one session here.
 */
import { appendUsageStats, titleOf, typedPrompt, type UsageStats } from '../../core/library/stats';
import type { LineTexts, StoredSession, TailChange } from '../../core/formats/types';
import type { Message, ReportedUsage, Session, SourceCompaction } from '../../core/model';
import { countSession } from '../../core/tokens/count';
import { createCounter } from '../../core/tokens/cost';
import { chars4 } from '../../core/tokens/heuristics';
import type { SessionCounts } from '../../core/tokens/types';
import { countsKey } from '../../core/tokens/version';
import { isTurnBoundary, turnStarts } from '../../core/turns';
import { RowBatch, type Runnable } from './row-batch';
import { StatementRecorder, type Recording } from './recorded';
import { sourceLineId, storedForm, type SessionStore } from './sessions';

export interface FastAppend {
  readonly sessionId: string;
  readonly messages: number;
  readonly steps: number;
  readonly changedFrom: number;
  /** Messages [changedFrom, messages) as the store now holds them (what `loadSession` would read). */
  readonly written: readonly Message[];
  /** The same messages as their stored JSON bodies. */
  readonly bodies: readonly string[];
  /** The message count before. */
  readonly previous: number;
  /** Compactions the append recorded (indices in the whole session), added to the session's. */
  readonly compactions?: readonly SourceCompaction[];
}

/** An append the fast path can take: `apply` writes it (in the caller's transaction), `advance` then moves the tail on. */
export interface FastPlan {
  /** Undefined when the new lines hold no message (progress lines, snapshots…). */
  readonly update: FastAppend | undefined;
  readonly apply: () => void;
  readonly advance: () => void;
  /**
   * The same writes recorded for the chunk writer thread instead of run here (store/chunk-writer.ts),
   * and what the session is once they are stored (the next chunk is planned from it, not from the
   * store). `bytes`: the appended bytes the line records are views of (handed over, not copied).
   */
  readonly record?: (bytes?: Uint8Array) => { readonly writes: RecordedWrites; readonly known: KnownSession };
}

/** Where an append's statements go: the store's connection, or a recorder for another thread (store/chunk-writer.ts). */
export interface Writable {
  prepare(sql: string): { run(...params: unknown[]): unknown };
}

/** An append's writes as another thread replays them: its statements, then what needs the stored rows (`finishAppend`). */
export interface RecordedWrites {
  readonly statements: Recording;
  readonly transfer: ArrayBuffer[];
  readonly finish: AppendFinish;
}

/**
 * What a pipelined import knows of its session while the chunk writer is a chunk behind
 * (store/progressive.ts): what the fast path would otherwise read from the store — the session's
 * row, its estimates, its last message and its record — kept as the writer will have stored them.
 */
export interface KnownSession {
  readonly session: OnlySession;
  /** Its chars/4 estimates (the per-message array: what planning reads). */
  readonly estimates: Omit<SessionCounts, 'prefix'>;
  /** The last message as stored, its record (raw or line) and its raw text as `rawOf` reads it. */
  readonly last: { readonly message: Message; readonly raw: string | null; readonly rawLine: number | null; readonly text: string | null };
  /** A stored user message holds a typed prompt: the title is settled. */
  readonly typed: boolean;
}

/** The plan needs a stored row that a pipelined import only has once the writer has caught up: the caller waits for it and plans again. */
export class StoreBehind extends Error {
  constructor(what: string) {
    super(`the store is a chunk behind: ${what}`);
    this.name = 'StoreBehind';
  }
}

/** What the store knows of a tailed session now (a pipelined import starts from it, and starts again from it after waiting for the writer). */
export function knownSession(store: SessionStore, session: OnlySession): KnownSession | undefined {
  const estimates = store.loadCounts(session.id, 'chars4');
  if (!estimates || estimates.perMessage.length !== session.messageCount || session.messageCount === 0) return undefined;
  const lastIdx = session.messageCount - 1;
  const row = store.db
    .prepare('SELECT body, raw, raw_line AS rawLine FROM messages WHERE session_id = ? AND idx = ?')
    .get(session.id, lastIdx) as { body: string; raw: string | null; rawLine: number | null } | undefined;
  if (!row) return undefined;
  let typed = false;
  for (const body of store.db
    .prepare("SELECT body FROM messages WHERE session_id = ? AND role = 'user' ORDER BY idx")
    .pluck()
    .iterate(session.id) as IterableIterator<string>) {
    if (typedPrompt(JSON.parse(body) as Message) !== null) {
      typed = true;
      break;
    }
  }
  return {
    session,
    estimates,
    last: { message: JSON.parse(row.body) as Message, raw: row.raw, rawLine: row.rawLine, text: store.rawOf(session.id, lastIdx) },
    typed,
  };
}

/** The stored session as a format's tail parser reads it, from what a pipelined import knows; what it does not know throws StoreBehind. */
export function knownStoredSession(known: KnownSession): StoredSession {
  const { session, last } = known;
  const lastIdx = session.messageCount - 1;
  const behind = (what: string): never => {
    throw new StoreBehind(what);
  };
  return {
    id: session.id,
    messageCount: session.messageCount,
    model: session.model,
    messagesFrom: (from) => (from === lastIdx ? [last.message] : from >= session.messageCount ? [] : behind('messages')),
    messageIdsBetween: () => behind('message ids'),
    // eslint-disable-next-line require-yield
    *backward() {
      behind('messages');
    },
    rawOf: (index) => (index === lastIdx ? last.text : behind('raw records')),
    meta: () => behind('metadata'),
  };
}

/** The session's one stored row (a tailed line file is one session), or undefined. */
export type OnlySession = {
  id: string;
  messageCount: number;
  steps: number;
  turns: number;
  hasUsage: number;
  model: string | null;
  title: string | null;
} & UsageStats;
export function onlySession(store: SessionStore, sourceId: number): OnlySession | undefined {
  const rows = store.db
    .prepare(
      'SELECT id, message_count AS messageCount, step_count AS steps, turn_count AS turns, has_usage AS hasUsage, model, title, prompt_tokens AS promptTokens, output_tokens AS outputTokens, cost, ended_at AS endedAt FROM sessions WHERE source_id = ?',
    )
    .all(sourceId) as OnlySession[];
  return rows.length === 1 ? rows[0] : undefined;
}

/**
 * Where a message's raw record goes: inline, or the source line that holds it (the lines it names
 * are stored in the same transaction). `flush` stores what waits in a batch.
 */
export interface RecordOf {
  (m: Message, index: number): { readonly raw: string | null; readonly rawLine: number | null };
  readonly flush?: () => void;
  /** The raw text `rawOf` reads back for a message recorded by line (its lines joined), when known here. */
  readonly text?: (m: Message, index: number) => string | null;
}

/** A line's text as SQLite binds it: a string, or its bytes (stored as text as they are, `CAST(? AS TEXT)`). */
const boundText = (t: string | Uint8Array | undefined): string | Buffer =>
  t === undefined ? '' : typeof t === 'string' ? t : Buffer.from(t.buffer, t.byteOffset, t.byteLength);

/** A line's text as a string. */
const lineString = (t: string | Uint8Array | undefined): string => boundText(t).toString();

/** Raw records by source line (`source_lines`), as a first import of a line-records format keeps them. */
export function byLine(db: Writable, sourceId: number, textOf: LineTexts): RecordOf {
  const lines = new RowBatch(
    (sql) => {
      const st = db.prepare(sql);
      return { run: (params) => st.run(params) };
    },
    'INSERT OR IGNORE INTO source_lines (id, text) VALUES ',
    '(?, CAST(? AS TEXT))',
    2,
  );
  const record = (m: Message): { raw: string | null; rawLine: number | null } => {
    if (m.sourceLine === undefined) return { raw: m.raw ?? null, rawLine: null };
    lines.add(sourceLineId(sourceId, m.sourceLine), boundText(textOf.get(m.sourceLine)));
    for (const l of m.mergedLines ?? []) lines.add(sourceLineId(sourceId, l), boundText(textOf.get(l)));
    return { raw: null, rawLine: sourceLineId(sourceId, m.sourceLine) };
  };
  const text = (m: Message): string | null =>
    m.sourceLine === undefined
      ? (m.raw ?? null)
      : [m.sourceLine, ...(m.mergedLines ?? [])].map((l) => lineString(textOf.get(l))).join('\n');
  return Object.assign(record, { flush: () => lines.flush(), text });
}

const inlineRecord: RecordOf = Object.assign((m: Message) => ({ raw: m.raw ?? null, rawLine: null }), {
  text: (m: Message) => m.raw ?? null,
});
/** Raw records inline (`messages.raw`), as a first import of a format that is not line records keeps them. */
export const inline = (): RecordOf => inlineRecord;

/** Where an append's records go, once the statements' destination is known. */
export type RecordsOf = (db: Writable) => RecordOf;

/**
 * Where a tail change's records go (TailChange.records): inline, or by line; a last stored
 * message continued on new lines keeps its record as the first import kept it — inline (the raw
 * lines joined by newlines), or by line under the same source lines.
 */
export function recordsOf(
  store: SessionStore,
  sourceId: number,
  session: OnlySession,
  change: TailChange,
  known?: KnownSession,
): RecordsOf {
  const records = change.records;
  if (records === 'inline') return inline;
  const extended = records.extendsLast;
  const lastIdx = session.messageCount - 1;
  if (!extended || change.from !== lastIdx) return (db) => byLine(db, sourceId, records.lines);
  const prev = change.removed[0];
  const last = known
    ? known.last
    : (store.db.prepare('SELECT raw, raw_line AS rawLine FROM messages WHERE session_id = ? AND idx = ?').get(session.id, lastIdx) as {
        raw: string | null;
        rawLine: number | null;
      });
  const lastText = known ? known.last.text : undefined;
  return (db) => {
    const lineRecord = byLine(db, sourceId, records.lines);
    const extendedText = (): string[] => extended.map((l) => lineString(records.lines.get(l)));
    const record = (m: Message, i: number): { raw: string | null; rawLine: number | null } => {
      if (i !== lastIdx) return lineRecord(m, i);
      if (last.raw !== null) return { raw: [last.raw, ...extendedText()].join('\n'), rawLine: null };
      const base = (last.rawLine ?? sourceLineId(sourceId, 0)) - (prev?.sourceLine ?? 0);
      const insertLine = db.prepare('INSERT OR IGNORE INTO source_lines (id, text) VALUES (?, CAST(? AS TEXT))');
      for (const l of extended) insertLine.run(base + l, boundText(records.lines.get(l)));
      return { raw: null, rawLine: last.rawLine };
    };
    const text = (m: Message, i: number): string | null => {
      if (i !== lastIdx) return lineRecord.text!(m, i);
      if (last.raw !== null) return [last.raw, ...extendedText()].join('\n');
      return lastText === undefined || lastText === null ? null : [lastText, ...extendedText()].join('\n');
    };
    return Object.assign(record, { flush: () => lineRecord.flush?.(), text });
  };
}

/** The stored session of a tailed file as a format's tail parser reads it (core/formats/types.ts). */
export function storedSession(store: SessionStore, session: OnlySession): StoredSession {
  const db = store.db;
  return {
    id: session.id,
    messageCount: session.messageCount,
    model: session.model,
    messagesFrom: (from) =>
      (
        db.prepare('SELECT body FROM messages WHERE session_id = ? AND idx >= ? ORDER BY idx').pluck().all(session.id, from) as string[]
      ).map((b) => JSON.parse(b) as Message),
    messageIdsBetween: (from, to) =>
      db
        .prepare('SELECT message_id FROM messages WHERE session_id = ? AND idx >= ? AND idx < ?')
        .pluck()
        .all(session.id, from, to) as string[],
    *backward() {
      const rows = db
        .prepare('SELECT idx, message_id AS id, body FROM messages WHERE session_id = ? ORDER BY idx DESC')
        .iterate(session.id) as IterableIterator<{ idx: number; id: string; body: string }>;
      for (const row of rows) yield { index: row.idx, id: row.id, message: () => JSON.parse(row.body) as Message };
    },
    rawOf: (index) => store.rawOf(session.id, index),
    meta: () =>
      JSON.parse(db.prepare('SELECT meta FROM sessions WHERE id = ?').pluck().get(session.id) as string) as Omit<Session, 'messages'>,
  };
}

export interface AppendRows {
  readonly session: OnlySession;
  /** The first message index written: the old count, or the old last index when the last message is extended. */
  readonly from: number;
  /** The stored messages [from, count) that `changed` replaces (the old last message, or none). */
  readonly removed: readonly Message[];
  /** Messages [from, …) as a first import of the grown file makes them (raw records on `raw` or by line). */
  readonly changed: readonly Message[];
  readonly record: RecordsOf;
  /** Compactions among the new lines (indices in the whole session): added to the session's metadata. */
  readonly compactions?: readonly SourceCompaction[];
}

const MESSAGE_ROW = '(?, ?, ?, ?, ?, ?, ?)';
/** A usage row with nothing in it: how many columns a usage row has. */
const EMPTY_USAGE: ReportedUsage = { convention: 'anthropic', input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };

/**
 * What an append's writes need of the stored rows (another tokenizer's counts, the session's
 * metadata): done where the statements run. The estimates are the session's whole array after the
 * append (those before `from` are the stored ones, unchanged); it alone crosses to the writer
 * thread, not the prefix sums a `SessionCounts` also carries (nothing stores them).
 */
export interface AppendFinish {
  readonly sessionId: string;
  /** Compactions among the new lines: added to the session's metadata. */
  readonly compactions?: readonly SourceCompaction[];
  /** The message count before the append. */
  readonly previous: number;
  /** The first message written. */
  readonly from: number;
  /** The session's chars/4 estimates after the append. */
  readonly estimates: Omit<SessionCounts, 'prefix'>;
}

/** The writes of an append that read stored rows, in the transaction of its statements. */
export function finishAppend(store: SessionStore, f: AppendFinish): void {
  const db = store.db;
  if (f.compactions && f.compactions.length > 0) {
    const meta = JSON.parse(db.prepare('SELECT meta FROM sessions WHERE id = ?').pluck().get(f.sessionId) as string) as Omit<
      Session,
      'messages'
    >;
    const all = [...meta.sourceCompactions, ...f.compactions];
    db.prepare('UPDATE sessions SET meta = ?, compactions = ? WHERE id = ?').run(
      JSON.stringify({ ...meta, sourceCompactions: all }),
      all.length,
      f.sessionId,
    );
  }
  const perMessage = f.estimates.perMessage;
  extendCounts(store, f.sessionId, f.previous, perMessage, f.from, perMessage.subarray(f.from));
  // saveCounts stores the per-message array (the prefix sums are made when counts are loaded).
  store.saveCounts(f.sessionId, { ...f.estimates, prefix: new Float64Array(0) });
}

/**
 * The plan that writes `rows` (undefined when the stored estimates do not cover the session, or
 * the title would change in a way only the whole file shows). With `known` (a pipelined import),
 * what it would read from the store comes from there; what only the store has throws StoreBehind
 * (unless `current`).
 */
export function planAppend(
  store: SessionStore,
  rows: AppendRows,
  known?: KnownSession,
  /** With `known`: the store holds every chunk too (it may be read for what `known` does not hold). */
  current = false,
): Omit<FastPlan, 'advance'> | undefined {
  const { session, from, removed, changed } = rows;
  if (changed.length === 0 && removed.length === 0) return { update: undefined, apply: () => {} };
  // Estimates: the stored ones plus the changed messages' (chars/4 counts each message on its own).
  const counter = createCounter(chars4, { memo: false });
  const stored = known ? known.estimates : store.loadCounts(session.id, 'chars4');
  if (counter.scale !== 1 || !stored || stored.perMessage.length !== session.messageCount) return undefined;
  const added = countSession(
    {
      id: '',
      format: 'jsonl',
      systemPrompt: null,
      tools: [],
      messages: [...changed],
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    } satisfies Session,
    counter,
  );
  const perMessage = new Uint32Array(from + changed.length);
  perMessage.set(stored.perMessage.subarray(0, from));
  perMessage.set(added.perMessage, from);

  const count = from + changed.length;
  const assistants = (ms: readonly Message[]): number => ms.filter((m) => m.role === 'assistant').length;
  const steps = session.steps - assistants(removed) + assistants(changed);
  // Turn 0 starts at message 0 whether or not it is a boundary: only a rewrite from 0 can change that.
  const turns =
    from === 0 ? turnStarts(changed).length : session.turns - removed.filter(isTurnBoundary).length + changed.filter(isTurnBoundary).length;
  const hasUsage = session.hasUsage === 1 || changed.some((m) => m.usage) ? 1 : 0;
  const bringsUser = changed.some((m) => m.role === 'user');
  const fromStore = !known || (current && bringsUser && !known.typed);
  if (!fromStore && bringsUser && !known.typed) throw new StoreBehind('the stored user messages (the title)');
  const title = fromStore ? titleAfter(store, session, changed) : session.title;
  if (title === undefined) return undefined;
  // The library's usage columns move with the append, as a first import of the grown file would store them.
  const usage = appendUsageStats(session, session.model ?? undefined, removed, changed);
  // Only the per-message array is stored and planned from: no prefix sums (loadCounts makes them).
  const { tokenizer, system, tools, unlogged, approximate } = stored;
  const estimates = { tokenizer, system, tools, unlogged, approximate, perMessage };
  const written: Message[] = [];
  const bodies: string[] = [];
  let last: KnownSession['last'] | undefined;
  const write = (db: Writable, finish: (f: AppendFinish) => void): void => {
    written.length = 0;
    bodies.length = 0;
    if (from < session.messageCount) {
      db.prepare('DELETE FROM messages WHERE session_id = ? AND idx >= ?').run(session.id, from);
      db.prepare('DELETE FROM usage WHERE session_id = ? AND idx >= ?').run(session.id, from);
    }
    const prepare = (sql: string): Runnable => {
      const st = db.prepare(sql);
      return { run: (params) => st.run(params) };
    };
    const messages = new RowBatch(
      prepare,
      'INSERT INTO messages (session_id, idx, message_id, role, body, raw, raw_line) VALUES ',
      MESSAGE_ROW,
      7,
    );
    const layout = store.usageLayout();
    const usageColumns = 2 + layout.values(EMPTY_USAGE).length;
    const usageRows = new RowBatch(
      prepare,
      `INSERT INTO usage (session_id, idx, ${layout.names}) VALUES `,
      `(${new Array<string>(usageColumns).fill('?').join(', ')})`,
      usageColumns,
    );
    const record = rows.record(db);
    for (let j = 0; j < changed.length; j++) {
      const m = changed[j]!;
      const i = from + j;
      const r = record(m, i);
      // The host is handed the stored form itself: what loadSession reads back from its body, without parsing it again.
      const stored = storedForm(m);
      const body = JSON.stringify(stored);
      messages.add(session.id, i, m.id, m.role, body, r.raw, r.rawLine);
      written.push(stored);
      bodies.push(body);
      const u = m.usage;
      if (u) usageRows.add(session.id, i, ...layout.values(u));
      if (j === changed.length - 1)
        last = { message: stored, raw: r.raw, rawLine: r.rawLine, text: record.text ? record.text(m, i) : null };
    }
    messages.flush();
    usageRows.flush();
    record.flush?.();
    db.prepare(
      'UPDATE sessions SET message_count = ?, step_count = ?, turn_count = ?, has_usage = ?, title = ?, prompt_tokens = ?, output_tokens = ?, cost = ?, ended_at = ? WHERE id = ?',
    ).run(count, steps, turns, hasUsage, title, usage.promptTokens, usage.outputTokens, usage.cost, usage.endedAt, session.id);
    finish({
      sessionId: session.id,
      ...(rows.compactions && rows.compactions.length > 0 ? { compactions: rows.compactions } : {}),
      previous: session.messageCount,
      from,
      estimates,
    });
  };
  const apply = (): void => write(store.db, (f) => finishAppend(store, f));
  const record = (bytes?: Uint8Array): { writes: RecordedWrites; known: KnownSession } => {
    const recorder = new StatementRecorder(bytes);
    let finish: AppendFinish | undefined;
    write(recorder, (f) => (finish = f));
    const next: KnownSession = {
      session: { ...session, messageCount: count, steps, turns, hasUsage, title, ...usage },
      estimates,
      last: last ?? known!.last,
      typed: (known?.typed ?? false) || changed.some((m) => typedPrompt(m) !== null),
    };
    const { recording, transfer } = recorder.take();
    return { writes: { statements: recording, transfer, finish: finish! }, known: next };
  };
  return {
    update: {
      sessionId: session.id,
      messages: count,
      steps,
      changedFrom: from,
      written,
      bodies,
      previous: session.messageCount,
      ...(rows.compactions && rows.compactions.length > 0 ? { compactions: rows.compactions } : {}),
    },
    apply,
    record,
  };
}

/**
 * The session's title after the append. It changes only while no stored user message holds a
 * typed prompt (the title is then the first injected text, or none) and the append brings a user
 * message: the title is then worked out again from the stored user messages and the new ones, with
 * the session's own metadata (an agent-written title wins). Undefined: not decidable here.
 */
function titleAfter(store: SessionStore, session: OnlySession, changed: readonly Message[]): string | null | undefined {
  if (!changed.some((m) => m.role === 'user')) return session.title;
  const users: Message[] = [];
  for (const body of store.db
    .prepare("SELECT body FROM messages WHERE session_id = ? AND role = 'user' ORDER BY idx")
    .pluck()
    .iterate(session.id) as IterableIterator<string>) {
    const m = JSON.parse(body) as Message;
    if (typedPrompt(m) !== null) return session.title;
    users.push(m);
  }
  const meta = store.db.prepare('SELECT meta FROM sessions WHERE id = ?').pluck().get(session.id) as string | undefined;
  if (meta === undefined) return undefined;
  return titleOf({ ...(JSON.parse(meta) as Omit<Session, 'messages'>), messages: [...users, ...changed] });
}

/**
 * Exact counts (a BPE tokenizer, calibrated) stay for the messages they counted; the new ones get
 * their chars/4 estimate scaled by the session's own ratio of exact to estimate, so a chart does
 * not fall back to estimates at every append. Marked approximate; the host recounts them exactly
 * in the background (`recount` in host/tail.ts). Counts of another length are dropped.
 */
function extendCounts(
  store: SessionStore,
  sessionId: string,
  count: number,
  estimates: Uint32Array,
  from: number,
  added: Uint32Array,
): void {
  // Stored keys carry the estimator's version (`calibrated@v1`): counts of another version are
  // never read again (loadCounts ignores them), so only the current ones are extended.
  const suffix = countsKey('');
  const keys = store.db
    .prepare('SELECT tokenizer FROM token_counts WHERE session_id = ? AND tokenizer <> ?')
    .pluck()
    .all(sessionId, countsKey('chars4')) as string[];
  for (const key of keys) {
    if (!key.endsWith(suffix)) continue;
    const tokenizer = key.slice(0, -suffix.length);
    const c = store.loadCounts(sessionId, tokenizer);
    // A background count finished on an earlier length: its messages are kept, the rest estimated.
    // Exact up to what the stored counts counted exactly (an earlier append's estimates stay estimates).
    const have = c ? Math.min(c.exactThrough, from) : 0;
    if (!c || c.perMessage.length > count || have === 0) {
      store.db.prepare('DELETE FROM token_counts WHERE session_id = ? AND tokenizer = ?').run(sessionId, key);
      continue;
    }
    let estimated = 0;
    for (let i = 0; i < have; i++) estimated += estimates[i]!;
    const ratio = estimated > 0 ? c.prefix[have]! / estimated : 1;
    const perMessage = new Uint32Array(from + added.length);
    perMessage.set(c.perMessage.subarray(0, have));
    for (let i = have; i < from; i++) perMessage[i] = Math.round(estimates[i]! * ratio);
    for (let j = 0; j < added.length; j++) perMessage[from + j] = Math.round(added[j]! * ratio);
    const prefix = new Float64Array(perMessage.length + 1);
    for (let i = 0; i < perMessage.length; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;
    // The recount that follows tokenizes the messages from `have` on only (count/incremental.ts).
    const { exactThrough: _exactThrough, ...counts } = c;
    store.saveCounts(sessionId, { ...counts, perMessage, prefix, approximate: true }, have);
  }
}

/** The source now covers `size` bytes hashing to `hash`. */
export function updateSource(store: SessionStore, sourceId: number, size: number, hash: string): void {
  // The hash is unique among sources: a copy of this very file imported elsewhere keeps it.
  const taken = store.db.prepare('SELECT 1 FROM sources WHERE hash = ? AND id <> ?').get(hash, sourceId) !== undefined;
  store.db.prepare('UPDATE sources SET size = ?, hash = ? WHERE id = ?').run(size, taken ? `tail:${sourceId}:${hash}` : hash, sourceId);
}
