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
import { countsKey } from '../../core/tokens/version';
import { isTurnBoundary, turnStarts } from '../../core/turns';
import { RowBatch } from './row-batch';
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
}

/** A line's text as SQLite binds it: a string, or its bytes (stored as text as they are, `CAST(? AS TEXT)`). */
const boundText = (t: string | Uint8Array | undefined): string | Buffer =>
  t === undefined ? '' : typeof t === 'string' ? t : Buffer.from(t.buffer, t.byteOffset, t.byteLength);

/** A line's text as a string. */
const lineString = (t: string | Uint8Array | undefined): string => boundText(t).toString();

/** Raw records by source line (`source_lines`), as a first import of a line-records format keeps them. */
export function byLine(store: SessionStore, sourceId: number, textOf: LineTexts): RecordOf {
  const lines = new RowBatch(
    (sql) => store.db.prepare(sql),
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
  return Object.assign(record, { flush: () => lines.flush() });
}

/** Raw records inline (`messages.raw`), as a first import of a format that is not line records keeps them. */
export const inline: RecordOf = (m) => ({ raw: m.raw ?? null, rawLine: null });

/**
 * Where a tail change's records go (TailChange.records): inline, or by line; a last stored
 * message continued on new lines keeps its record as the first import kept it — inline (the raw
 * lines joined by newlines), or by line under the same source lines.
 */
export function recordsOf(store: SessionStore, sourceId: number, session: OnlySession, change: TailChange): RecordOf {
  const records = change.records;
  if (records === 'inline') return inline;
  const lineRecord = byLine(store, sourceId, records.lines);
  const extended = records.extendsLast;
  const lastIdx = session.messageCount - 1;
  if (!extended || change.from !== lastIdx) return lineRecord;
  const prev = change.removed[0];
  const last = store.db
    .prepare('SELECT raw, raw_line AS rawLine FROM messages WHERE session_id = ? AND idx = ?')
    .get(session.id, lastIdx) as { raw: string | null; rawLine: number | null };
  const record = (m: Message, i: number): { raw: string | null; rawLine: number | null } => {
    if (i !== lastIdx) return lineRecord(m, i);
    if (last.raw !== null) return { raw: [last.raw, ...extended.map((l) => lineString(records.lines.get(l)))].join('\n'), rawLine: null };
    const base = (last.rawLine ?? sourceLineId(sourceId, 0)) - (prev?.sourceLine ?? 0);
    const insertLine = store.db.prepare('INSERT OR IGNORE INTO source_lines (id, text) VALUES (?, CAST(? AS TEXT))');
    for (const l of extended) insertLine.run(base + l, boundText(records.lines.get(l)));
    return { raw: null, rawLine: last.rawLine };
  };
  return Object.assign(record, { flush: () => lineRecord.flush?.() });
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
    messageIds: () => db.prepare('SELECT message_id FROM messages WHERE session_id = ?').pluck().all(session.id) as string[],
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
  readonly record: RecordOf;
  /** Compactions among the new lines (indices in the whole session): added to the session's metadata. */
  readonly compactions?: readonly SourceCompaction[];
}

const MESSAGE_ROW = '(?, ?, ?, ?, ?, ?, ?)';
/** A usage row with nothing in it: how many columns a usage row has. */
const EMPTY_USAGE: ReportedUsage = { convention: 'anthropic', input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };

/**
 * The plan that writes `rows` (undefined when the stored estimates do not cover the session, or
 * the title would change in a way only the whole file shows).
 */
export function planAppend(store: SessionStore, rows: AppendRows): Omit<FastPlan, 'advance'> | undefined {
  const { session, from, removed, changed } = rows;
  if (changed.length === 0 && removed.length === 0) return { update: undefined, apply: () => {} };
  // Estimates: the stored ones plus the changed messages' (chars/4 counts each message on its own).
  const counter = createCounter(chars4, { memo: false });
  const stored = store.loadCounts(session.id, 'chars4');
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
  const prefix = new Float64Array(perMessage.length + 1);
  for (let i = 0; i < perMessage.length; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;

  const count = from + changed.length;
  const assistants = (ms: readonly Message[]): number => ms.filter((m) => m.role === 'assistant').length;
  const steps = session.steps - assistants(removed) + assistants(changed);
  // Turn 0 starts at message 0 whether or not it is a boundary: only a rewrite from 0 can change that.
  const turns =
    from === 0 ? turnStarts(changed).length : session.turns - removed.filter(isTurnBoundary).length + changed.filter(isTurnBoundary).length;
  const hasUsage = session.hasUsage === 1 || changed.some((m) => m.usage) ? 1 : 0;
  const title = titleAfter(store, session, changed);
  if (title === undefined) return undefined;
  const db = store.db;
  const written: Message[] = [];
  const bodies: string[] = [];
  const apply = (): void => {
    written.length = 0;
    bodies.length = 0;
    if (from < session.messageCount) {
      db.prepare('DELETE FROM messages WHERE session_id = ? AND idx >= ?').run(session.id, from);
      db.prepare('DELETE FROM usage WHERE session_id = ? AND idx >= ?').run(session.id, from);
    }
    const messages = new RowBatch(
      (sql) => db.prepare(sql),
      'INSERT INTO messages (session_id, idx, message_id, role, body, raw, raw_line) VALUES ',
      MESSAGE_ROW,
      7,
    );
    const layout = store.usageLayout();
    const usageColumns = 2 + layout.values(EMPTY_USAGE).length;
    const usageRows = new RowBatch(
      (sql) => db.prepare(sql),
      `INSERT INTO usage (session_id, idx, ${layout.names}) VALUES `,
      `(${new Array<string>(usageColumns).fill('?').join(', ')})`,
      usageColumns,
    );
    for (let j = 0; j < changed.length; j++) {
      const m = changed[j]!;
      const i = from + j;
      const r = rows.record(m, i);
      // The host is handed the stored form itself: what loadSession reads back from its body, without parsing it again.
      const stored = storedForm(m);
      const body = JSON.stringify(stored);
      messages.add(session.id, i, m.id, m.role, body, r.raw, r.rawLine);
      written.push(stored);
      bodies.push(body);
      const u = m.usage;
      if (u) usageRows.add(session.id, i, ...layout.values(u));
    }
    messages.flush();
    usageRows.flush();
    rows.record.flush?.();
    // The library's usage columns move with the append, as a first import of the grown file would store them.
    const usage = appendUsageStats(session, session.model ?? undefined, removed, changed);
    db.prepare(
      'UPDATE sessions SET message_count = ?, step_count = ?, turn_count = ?, has_usage = ?, title = ?, prompt_tokens = ?, output_tokens = ?, cost = ?, ended_at = ? WHERE id = ?',
    ).run(count, steps, turns, hasUsage, title, usage.promptTokens, usage.outputTokens, usage.cost, usage.endedAt, session.id);
    if (rows.compactions && rows.compactions.length > 0) {
      const meta = JSON.parse(db.prepare('SELECT meta FROM sessions WHERE id = ?').pluck().get(session.id) as string) as Omit<
        Session,
        'messages'
      >;
      const all = [...meta.sourceCompactions, ...rows.compactions];
      db.prepare('UPDATE sessions SET meta = ?, compactions = ? WHERE id = ?').run(
        JSON.stringify({ ...meta, sourceCompactions: all }),
        all.length,
        session.id,
      );
    }
    extendCounts(store, session.id, session.messageCount, stored.perMessage, from, added.perMessage);
    store.saveCounts(session.id, { ...stored, perMessage, prefix });
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
    const have = c ? Math.min(c.perMessage.length, from) : 0;
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
    store.saveCounts(sessionId, { ...c, perMessage, prefix, approximate: true });
  }
}
