/**
 * Sessions in SQLite. One import is one transaction: a failed or cancelled import leaves nothing.
 * The same file (same content hash) is not stored twice; a file that grew (a live agent
 * appending) adds only the messages that are new. Counts are stored per (session, tokenizer)
 * and read back as numbers only.
 */
import { randomUUID } from 'node:crypto';
import type { FormatId, Message, Part, ReportedUsage, Role, Session, UsageConvention } from '../../core/model';
import { stepIndices } from '../../core/model';
import type { SessionCounts } from '../../core/tokens/types';
import { countsKey } from '../../core/tokens/version';
import { turnStarts } from '../../core/turns';
import { sessionStats, type SessionStats } from '../../core/library/stats';
import { linkSubagents, type SubagentLink } from '../../core/library/subagents';
import type { RepeatedCallRow } from '../../core/library/repeated-calls';
import type Database from 'better-sqlite3';
import { RowBatch } from './row-batch';
import type { Db } from './db';

type Statement = Database.Statement;

export interface SourceInfo {
  readonly path: string;
  readonly size: number;
  readonly hash: string;
  readonly format: FormatId;
}

export interface StoredSessionRow extends Omit<SessionStats, 'title'> {
  readonly id: string;
  readonly sourcePath: string;
  readonly format: FormatId;
  readonly title: string | null;
  readonly model: string | null;
  readonly messageCount: number;
  readonly stepCount: number;
  readonly turnCount: number;
  readonly hasUsage: boolean;
  readonly startedAt: number | null;
  readonly importedAt: number;
  /** The library's fields (store/migrations/006_library.ts). */
  readonly parentId: string | null;
  readonly spawnedBy: string | null;
  readonly spawnedAt: number | null;
  readonly sourceId: number;
  readonly position: number;
  /** Size of the source file in bytes. */
  readonly size: number;
  /** Cached results that go with the session: stored token counts and replay runs. */
  readonly cached: number;
}

interface SessionRowRaw {
  id: string;
  path: string;
  format: string;
  title: string | null;
  model: string | null;
  message_count: number;
  step_count: number;
  turn_count: number;
  has_usage: number;
  started_at: number | null;
  imported_at: number;
  parent_id: string | null;
  spawned_by: string | null;
  spawned_at: number | null;
  source_id: number;
  position: number;
  cwd: string | null;
  compactions: number;
  prompt_tokens: number;
  output_tokens: number;
  cost: number | null;
  ended_at: number | null;
  size: number;
  cached: number;
}

const toRow = (r: SessionRowRaw): StoredSessionRow => ({
  id: r.id,
  sourcePath: r.path,
  format: r.format as FormatId,
  title: r.title,
  model: r.model,
  messageCount: r.message_count,
  stepCount: r.step_count,
  turnCount: r.turn_count,
  hasUsage: r.has_usage === 1,
  startedAt: r.started_at,
  importedAt: r.imported_at,
  parentId: r.parent_id,
  spawnedBy: r.spawned_by,
  spawnedAt: r.spawned_at,
  sourceId: r.source_id,
  position: r.position,
  cwd: r.cwd,
  compactions: r.compactions,
  promptTokens: r.prompt_tokens,
  outputTokens: r.output_tokens,
  cost: r.cost,
  endedAt: r.ended_at,
  size: r.size,
  cached: r.cached,
});

/** A session row with what the library lists: its source's size, and how many cached results go with it. */
const ROW_SELECT =
  'SELECT s.*, src.path, src.size, (SELECT COUNT(*) FROM token_counts t WHERE t.session_id = s.id) + (SELECT COUNT(*) FROM replay_runs r WHERE r.session_id = s.id) AS cached FROM sessions s JOIN sources src ON src.id = s.source_id';

/** Session metadata kept as JSON (everything but the messages). */
type SessionMeta = Omit<Session, 'messages'>;

/** Counts as stored: with how many leading messages were counted exactly (the rest estimated after a live-tail append). */
export interface StoredCounts extends SessionCounts {
  readonly exactThrough: number;
}

/** The parts of a message head (`SessionStore.messageHeads`): none, shared. */
const NO_PARTS: readonly Part[] = Object.freeze([]);

/** A session's row, ready to insert (plain data: it can cross to a writer thread). */
export interface SessionRowInput {
  readonly id: string;
  readonly sourceId: number;
  readonly position: number;
  readonly sourceSessionId: string;
  readonly format: FormatId;
  readonly title: string | null;
  readonly model: string | null;
  readonly meta: string;
  readonly messageCount: number;
  readonly steps: number;
  readonly turns: number;
  readonly hasUsage: number;
  readonly startedAt: number | null;
  readonly importedAt: number;
  /** The library's fields (optional: a row built without them lists with none). */
  readonly parentId?: string | null;
  readonly spawnedBy?: string | null;
  readonly spawnedAt?: number | null;
  readonly cwd?: string | null;
  readonly compactions?: number;
  readonly promptTokens?: number;
  readonly outputTokens?: number;
  readonly cost?: number | null;
  readonly endedAt?: number | null;
}

/**
 * A session to store and, for a subagent, its parent (an index into the same list, which comes
 * earlier) and the call there that spawned it.
 */
export interface StoredEntry {
  readonly session: Session;
  readonly parent: number | null;
  readonly link: SubagentLink | null;
}

/**
 * Subagents become sessions of their own, stored as child rows right after their parent: a child
 * row has its messages, counts, pins and replays like any session, so opening, replaying and
 * deleting one needs no second code path (a virtual id resolved through the parent's metadata
 * would need one in the host, the replay worker, counts and pins, all keyed by session row).
 */
export function storedEntries(sessions: readonly Session[]): StoredEntry[] {
  const out: StoredEntry[] = [];
  const add = (session: Session, parent: number | null, link: SubagentLink | null): void => {
    const at = out.length;
    out.push({ session, parent, link });
    const links = linkSubagents(session);
    session.subagents.forEach((sub, k) => add(sub, at, links[k] ?? null));
  };
  for (const s of sessions) add(s, null, null);
  return out;
}

/**
 * A subagent session as kept in its parent's metadata: without raw records, which are reached
 * through the store (`rawOf`) and never through the loaded session, whichever way it was stored.
 */
function withoutRaw(s: Session): Session {
  const messages = s.messages.map(storedForm);
  return { ...s, messages, subagents: s.subagents.map(withoutRaw) };
}

/**
 * `child`: the session is a subagent stored as a row of its own under `parentId` (its metadata
 * then keeps no subagents: they are rows too). Without it (callers that store subagents inside
 * their parent) the parent's metadata carries them, as before v6.
 */
export function sessionRow(
  s: Session,
  id: string,
  sourceId: number,
  position: number,
  now: number,
  child?: { readonly parentId: string | null; readonly link: SubagentLink | null; readonly rowsForSubagents: boolean },
): SessionRowInput {
  const { messages, ...rest } = s;
  const meta = child?.rowsForSubagents
    ? { ...rest, subagents: [] }
    : rest.subagents.length > 0
      ? { ...rest, subagents: rest.subagents.map(withoutRaw) }
      : rest;
  const stats = sessionStats(s);
  const link = child?.link ?? null;
  return {
    id,
    sourceId,
    position,
    sourceSessionId: s.id,
    format: s.format,
    title: link?.title ?? stats.title,
    model: s.model ?? null,
    meta: JSON.stringify(meta satisfies SessionMeta),
    messageCount: messages.length,
    steps: stepIndices(messages).length,
    turns: turnStarts(messages).length,
    hasUsage: messages.some((m) => m.usage) ? 1 : 0,
    startedAt: s.startedAt ?? null,
    importedAt: now,
    parentId: child?.parentId ?? null,
    spawnedBy: link?.callId ?? null,
    spawnedAt: link?.messageIndex ?? null,
    cwd: stats.cwd,
    compactions: stats.compactions,
    promptTokens: stats.promptTokens,
    outputTokens: stats.outputTokens,
    cost: stats.cost,
    endedAt: stats.endedAt,
  };
}

/** Messages [from, to) of a session as column arrays (plain data: they can cross to a writer thread). */
export interface MessageRows {
  readonly from: number;
  readonly ids: string[];
  readonly roles: string[];
  /** The message as JSON, without its raw record. */
  readonly bodies: string[];
  readonly raws: (string | null)[];
  /** Per message: the source line that is its raw record (0: none; `raws` then holds it, or nothing). */
  readonly rawLines: Int32Array;
  readonly usage: (ReportedUsage | null)[];
}

/** `source_lines` key of line `line` (1-based) of source `sourceId`: one rowid range per source. */
export const sourceLineId = (sourceId: number, line: number): number => sourceId * 2 ** 32 + line;

/**
 * Bodies and raw records of messages, for a writer thread: UTF-8 back to back in one buffer
 * that is transferred, not copied (the writer binds slices of it as text, never decoding it).
 */
export interface PackedText {
  readonly text: Uint8Array;
  /** Per message: the body's byte length, then the raw record's (-1: none). */
  readonly lengths: Int32Array;
}

export function packText(parts: readonly MessageRows[]): PackedText {
  let n = 0;
  for (const p of parts) n += p.ids.length;
  const lengths = new Int32Array(2 * n);
  let total = 0;
  let k = 0;
  for (const p of parts) {
    for (let j = 0; j < p.ids.length; j++, k++) {
      const b = Buffer.byteLength(p.bodies[j]!);
      const raw = p.raws[j];
      const r = raw === null || raw === undefined ? -1 : Buffer.byteLength(raw);
      lengths[2 * k] = b;
      lengths[2 * k + 1] = r;
      total += b + Math.max(0, r);
    }
  }
  // Not from Node's shared pool: this buffer is transferred to the writer.
  const text = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const p of parts) {
    for (let j = 0; j < p.ids.length; j++) {
      at += text.write(p.bodies[j]!, at);
      const raw = p.raws[j];
      if (raw !== null && raw !== undefined) at += text.write(raw, at);
    }
  }
  return { text, lengths };
}

/** Messages [from, from + ids.length) of a session whose bodies and raw records are in a PackedText. */
export interface PackedSegment {
  readonly sessionId: string;
  readonly from: number;
  readonly ids: string[];
  readonly roles: string[];
  readonly rawLines: Int32Array;
  readonly usage: (ReportedUsage | null)[];
}

/** A message as its stored body holds it: without its raw record, which goes in its own column or source line. */
export function storedForm(m: Message): Message {
  if (m.raw === undefined) return m;
  const { raw: _raw, ...rest } = m;
  return rest;
}

/**
 * Rows of messages [from, to). `lineRecords`: the import's records are source lines
 * (`ImportOutcome.lineRecords`), so a message without `raw` names its line instead.
 */
export function messageRows(messages: readonly Message[], from: number, to: number, lineRecords = false): MessageRows {
  const n = Math.max(0, to - from);
  const rows: MessageRows = {
    from,
    ids: new Array<string>(n),
    roles: new Array<string>(n),
    bodies: new Array<string>(n),
    raws: new Array<string | null>(n),
    rawLines: new Int32Array(n),
    usage: new Array<ReportedUsage | null>(n),
  };
  for (let k = 0; k < n; k++) {
    const m = messages[from + k]!;
    rows.ids[k] = m.id;
    rows.roles[k] = m.role;
    rows.bodies[k] = JSON.stringify(storedForm(m));
    rows.raws[k] = m.raw ?? null;
    if (m.raw === undefined && lineRecords && m.sourceLine !== undefined) rows.rawLines[k] = m.sourceLine;
    rows.usage[k] = m.usage ?? null;
  }
  return rows;
}

/** A usage row's columns after (session_id, idx); v8 adds the call's key and its 1-hour writes (migrations/008_call_keys.ts). */
function usageColumns(u: ReportedUsage, callKeys: boolean): unknown[] {
  const cols: unknown[] = [u.convention, u.input, u.cacheRead, u.cacheWrite, u.output, u.reasoning ?? null];
  if (callKeys) cols.push(u.callKey ?? null, u.cacheWrite1h ?? null);
  return cols;
}

export class SessionStore {
  private readonly statements = new Map<string, Statement>();

  constructor(readonly db: Db) {}

  private libraryColumns: boolean | undefined;
  /**
   * Whether the schema has v6's library columns. Only a database opened below the current version
   * (tests that build an old database with this code) lacks them: rows then go in as before v6,
   * subagents inside their parent's metadata.
   */
  private hasLibraryColumns(): boolean {
    this.libraryColumns ??=
      (this.db.prepare("SELECT 1 FROM pragma_table_info('sessions') WHERE name = 'parent_id'").get() as unknown) !== undefined;
    return this.libraryColumns;
  }

  private exactThroughColumn: boolean | undefined;
  /** Whether token_counts has v9's exact_through (a database opened below the current version lacks it, as above). */
  private hasExactThrough(): boolean {
    this.exactThroughColumn ??=
      (this.db.prepare("SELECT 1 FROM pragma_table_info('token_counts') WHERE name = 'exact_through'").get() as unknown) !== undefined;
    return this.exactThroughColumn;
  }

  private callKeyColumns: boolean | undefined;
  /** Whether usage has v8's call_key (a database opened below the current version lacks it, as above). */
  private hasCallKeys(): boolean {
    this.callKeyColumns ??=
      (this.db.prepare("SELECT 1 FROM pragma_table_info('usage') WHERE name = 'call_key'").get() as unknown) !== undefined;
    return this.callKeyColumns;
  }

  private usageInsert(): Statement {
    return this.hasCallKeys()
      ? this.stmt(
          'INSERT INTO usage (session_id, idx, convention, input, cache_read, cache_write, output, reasoning, call_key, cache_write_1h) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
      : this.stmt(
          'INSERT INTO usage (session_id, idx, convention, input, cache_read, cache_write, output, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        );
  }

  /**
   * The usage rows of every call whose key is stored more than once (a call a resumed session
   * repeats), with the session's model, in the order the library counts them: the first copy by
   * the session's start (then import) is the one counted (core/library/repeated-calls.ts).
   */
  repeatedCallRows(): RepeatedCallRow[] {
    if (!this.hasCallKeys()) return [];
    return this.stmt(
      `SELECT u.call_key AS key, u.session_id AS sessionId, s.model AS model, u.convention AS convention, u.input AS input,
         u.cache_read AS cacheRead, u.cache_write AS cacheWrite, u.cache_write_1h AS cacheWrite1h, u.output AS output
       FROM usage u JOIN sessions s ON s.id = u.session_id
       WHERE u.call_key IN (SELECT call_key FROM usage WHERE call_key IS NOT NULL GROUP BY call_key HAVING COUNT(*) > 1)
       ORDER BY u.call_key, s.started_at, s.imported_at, s.position, u.idx`,
    ).all() as RepeatedCallRow[];
  }

  /** A prepared statement, prepared once per connection and reused. */
  private stmt(sql: string): Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /** Ids of the sessions already stored from a file with this content hash, or undefined. */
  findByHash(hash: string): string[] | undefined {
    const src = this.stmt('SELECT id FROM sources WHERE hash = ?').get(hash) as { id: number } | undefined;
    if (!src) return undefined;
    const sql = this.hasLibraryColumns()
      ? 'SELECT id FROM sessions WHERE source_id = ? AND parent_id IS NULL ORDER BY position'
      : 'SELECT id FROM sessions WHERE source_id = ? ORDER BY position';
    return (this.stmt(sql).all(src.id) as { id: string }[]).map((r) => r.id);
  }

  /** Whether any stored source has exactly this size (a cheap hint that a file is stored already). */
  hasSourceOfSize(size: number): boolean {
    return this.stmt('SELECT 1 FROM sources WHERE size = ? LIMIT 1').get(size) !== undefined;
  }

  /** The latest stored import of this path (to detect a grown file). */
  latestByPath(path: string): { sourceId: number; size: number; hash: string } | undefined {
    return this.stmt('SELECT id AS sourceId, size, hash FROM sources WHERE path = ? ORDER BY id DESC LIMIT 1').get(path) as
      { sourceId: number; size: number; hash: string } | undefined;
  }

  /**
   * Stores an import in ONE transaction. When `grownFrom` names an earlier import of the same
   * path whose content is a prefix of this one, sessions with the same source id get only their
   * new messages appended instead of a second copy. `counts` (the chars/4 estimates) are
   * stored in the same transaction.
   */
  saveImport(
    source: SourceInfo,
    sessions: readonly Session[],
    options: { grownFrom?: number; counts?: (session: Session) => SessionCounts } = {},
  ): string[] {
    const now = Date.now();
    const update = (r: SessionRowInput, id: string, sourceId: number): void => {
      if (!this.hasLibraryColumns()) {
        this.stmt(
          'UPDATE sessions SET source_id = ?, meta = ?, message_count = ?, step_count = ?, turn_count = ?, has_usage = ?, title = ?, model = ? WHERE id = ?',
        ).run(sourceId, r.meta, r.messageCount, r.steps, r.turns, r.hasUsage, r.title, r.model, id);
        return;
      }
      this.stmt(
        'UPDATE sessions SET source_id = ?, meta = ?, message_count = ?, step_count = ?, turn_count = ?, has_usage = ?, title = ?, model = ?, spawned_by = ?, spawned_at = ?, cwd = ?, compactions = ?, prompt_tokens = ?, output_tokens = ?, cost = ?, ended_at = ? WHERE id = ?',
      ).run(
        sourceId,
        r.meta,
        r.messageCount,
        r.steps,
        r.turns,
        r.hasUsage,
        r.title,
        r.model,
        r.spawnedBy ?? null,
        r.spawnedAt ?? null,
        r.cwd ?? null,
        r.compactions ?? 0,
        r.promptTokens ?? 0,
        r.outputTokens ?? 0,
        r.cost ?? null,
        r.endedAt ?? null,
        id,
      );
    };
    const counts = options.counts;
    return this.db.transaction(() => {
      const sourceId = this.insertSource(source, now);
      const ids: string[] = [];
      // Every stored row's id, by entry: a subagent's row names its parent's.
      const rowIds: string[] = [];
      let position = -1;
      const rowsForSubagents = this.hasLibraryColumns();
      const entries = rowsForSubagents ? storedEntries(sessions) : sessions.map((session) => ({ session, parent: null, link: null }));
      for (const { session: s, parent, link } of entries) {
        if (parent === null) position++;
        const child = { parentId: parent !== null ? rowIds[parent]! : null, link, rowsForSubagents };
        if (options.grownFrom !== undefined) {
          const prev = this.stmt('SELECT id, message_count FROM sessions WHERE source_id = ? AND source_session_id = ?').get(
            options.grownFrom,
            s.id,
          ) as { id: string; message_count: number } | undefined;
          if (prev && prev.message_count <= s.messages.length) {
            this.insertMessages(prev.id, messageRows(s.messages, prev.message_count, s.messages.length));
            // Counts cover the old messages only: drop them so they are recomputed.
            this.stmt('DELETE FROM token_counts WHERE session_id = ?').run(prev.id);
            const r = sessionRow(s, prev.id, sourceId, position, now, child);
            update(r, prev.id, sourceId);
            if (counts) this.saveCounts(prev.id, counts(s));
            rowIds.push(prev.id);
            if (parent === null) ids.push(prev.id);
            continue;
          }
        }
        const id = randomUUID();
        this.insertSession(sessionRow(s, id, sourceId, position, now, child));
        this.insertMessages(id, messageRows(s.messages, 0, s.messages.length));
        if (counts) this.saveCounts(id, counts(s));
        rowIds.push(id);
        if (parent === null) ids.push(id);
      }
      if (options.grownFrom !== undefined)
        this.stmt('DELETE FROM sources WHERE id = ? AND NOT EXISTS (SELECT 1 FROM sessions WHERE source_id = ?)').run(
          options.grownFrom,
          options.grownFrom,
        );
      return ids;
    })();
  }

  /** The pieces of `saveImport`, for a writer that runs the transaction itself (store/writer.ts). */
  insertSource(source: SourceInfo, now: number): number {
    return Number(
      this.stmt('INSERT INTO sources (path, size, hash, format, imported_at) VALUES (?, ?, ?, ?, ?)').run(
        source.path,
        source.size,
        source.hash,
        source.format,
        now,
      ).lastInsertRowid,
    );
  }

  insertSession(r: SessionRowInput): void {
    if (!this.hasLibraryColumns()) {
      this.stmt(
        'INSERT INTO sessions (id, source_id, position, source_session_id, format, title, model, meta, message_count, step_count, turn_count, has_usage, started_at, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        r.id,
        r.sourceId,
        r.position,
        r.sourceSessionId,
        r.format,
        r.title,
        r.model,
        r.meta,
        r.messageCount,
        r.steps,
        r.turns,
        r.hasUsage,
        r.startedAt,
        r.importedAt,
      );
      return;
    }
    this.stmt(
      'INSERT INTO sessions (id, source_id, position, source_session_id, format, title, model, meta, message_count, step_count, turn_count, has_usage, started_at, imported_at, parent_id, spawned_by, spawned_at, cwd, compactions, prompt_tokens, output_tokens, cost, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(
      r.id,
      r.sourceId,
      r.position,
      r.sourceSessionId,
      r.format,
      r.title,
      r.model,
      r.meta,
      r.messageCount,
      r.steps,
      r.turns,
      r.hasUsage,
      r.startedAt,
      r.importedAt,
      r.parentId ?? null,
      r.spawnedBy ?? null,
      r.spawnedAt ?? null,
      r.cwd ?? null,
      r.compactions ?? 0,
      r.promptTokens ?? 0,
      r.outputTokens ?? 0,
      r.cost ?? null,
      r.endedAt ?? null,
    );
  }

  /** One call's usage row, with every column a first import stores (the call's key and 1-hour writes too). */
  insertUsageRow(sessionId: string, idx: number, u: ReportedUsage): void {
    this.usageInsert().run(sessionId, idx, ...usageColumns(u, this.hasCallKeys()));
  }

  /**
   * The usage table's columns as a first import fills them, for callers that insert many rows per
   * statement: `names` after (session_id, idx), and a row's values for them.
   */
  usageLayout(): { readonly names: string; readonly values: (u: ReportedUsage) => unknown[] } {
    const callKeys = this.hasCallKeys();
    return {
      names: `convention, input, cache_read, cache_write, output, reasoning${callKeys ? ', call_key, cache_write_1h' : ''}`,
      values: (u) => usageColumns(u, callKeys),
    };
  }

  /** Stores line `line` of source `sourceId` (UTF-8 bytes, stored as text as they are). */
  insertSourceLine(sourceId: number, line: number, text: Uint8Array): void {
    this.stmt('INSERT INTO source_lines (id, text) VALUES (?, CAST(? AS TEXT))').run(sourceLineId(sourceId, line), text);
  }

  /** Sets the hash and format of a source inserted before they were known (see store/writer.ts). */
  finishSource(sourceId: number, hash: string, format: FormatId): void {
    this.stmt('UPDATE sources SET hash = ?, format = ? WHERE id = ?').run(hash, format, sourceId);
  }

  /**
   * Inserts segments whose text is packed, in order, in `packed`. A message whose segment names a
   * raw line points at that line of source `sourceId`.
   */
  insertPackedMessages(segments: readonly PackedSegment[], packed: PackedText, sourceId = 0): void {
    // CAST(? AS TEXT) stores the UTF-8 bytes as text as they are; rows go in batches (row-batch.ts).
    const rows = new RowBatch(
      (sql) => this.stmt(sql),
      'INSERT INTO messages (session_id, idx, message_id, role, body, raw, raw_line) VALUES ',
      '(?, ?, ?, ?, CAST(? AS TEXT), CAST(? AS TEXT), ?)',
      7,
    );
    const insertUsage = this.usageInsert();
    const text = Buffer.from(packed.text.buffer, packed.text.byteOffset, packed.text.byteLength);
    const lengths = packed.lengths;
    let at = 0;
    let k = 0;
    for (const seg of segments) {
      const { sessionId, ids, roles, usage, rawLines } = seg;
      for (let j = 0; j < ids.length; j++, k++) {
        const i = seg.from + j;
        const b = lengths[2 * k]!;
        const r = lengths[2 * k + 1]!;
        const body = text.subarray(at, at + b);
        at += b;
        let raw: Buffer | null = null;
        if (r >= 0) {
          raw = text.subarray(at, at + r);
          at += r;
        }
        const line = rawLines[j]!;
        rows.add(sessionId, i, ids[j], roles[j], body, raw, line > 0 ? sourceLineId(sourceId, line) : null);
        const u = usage[j];
        if (u) insertUsage.run(sessionId, i, ...usageColumns(u, this.hasCallKeys()));
      }
    }
    rows.flush();
  }

  insertMessages(sessionId: string, rows: MessageRows): void {
    const insertMessage = this.stmt('INSERT INTO messages (session_id, idx, message_id, role, body, raw) VALUES (?, ?, ?, ?, ?, ?)');
    const insertUsage = this.usageInsert();
    const { ids, roles, bodies, raws, usage } = rows;
    for (let k = 0; k < ids.length; k++) {
      const i = rows.from + k;
      insertMessage.run(sessionId, i, ids[k], roles[k], bodies[k], raws[k]);
      const u = usage[k];
      if (u) insertUsage.run(sessionId, i, ...usageColumns(u, this.hasCallKeys()));
    }
  }

  /** The sessions of the files imported, in import order (subagents apart: see `listLibrary`). */
  listSessions(): StoredSessionRow[] {
    return (this.stmt(`${ROW_SELECT} WHERE s.parent_id IS NULL ORDER BY s.imported_at, s.position`).all() as SessionRowRaw[]).map(toRow);
  }

  /** Every session, subagents included, each right after its parent (same import time and position). */
  listLibrary(): StoredSessionRow[] {
    return (
      this.stmt(`${ROW_SELECT} ORDER BY s.imported_at, s.position, s.parent_id IS NOT NULL, s.spawned_at`).all() as SessionRowRaw[]
    ).map(toRow);
  }

  getRow(id: string): StoredSessionRow | undefined {
    const r = this.stmt(`${ROW_SELECT} WHERE s.id = ?`).get(id) as SessionRowRaw | undefined;
    return r ? toRow(r) : undefined;
  }

  /** The subagent rows of a session, in the order of the calls that spawned them. */
  childrenOf(id: string): StoredSessionRow[] {
    return (
      this.stmt(`${ROW_SELECT} WHERE s.parent_id = ? ORDER BY s.spawned_at IS NULL, s.spawned_at, s.rowid`).all(id) as SessionRowRaw[]
    ).map(toRow);
  }

  /**
   * Deletes a session and its subagents (ON DELETE CASCADE takes their messages, usage, counts,
   * pins and replay runs), then its source when no session is left of it, and the stored source
   * lines no message points at any more. Answers what went, or undefined for an unknown id.
   */
  deleteSession(id: string): { sessions: number; messages: number; calls: number; cached: number } | undefined {
    return this.db.transaction(() => {
      const row = this.stmt('SELECT source_id AS sourceId FROM sessions WHERE id = ?').get(id) as { sourceId: number } | undefined;
      if (!row) return undefined;
      const tree = 'WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT s.id FROM sessions s JOIN tree ON s.parent_id = tree.id)';
      const ids = (this.stmt(`${tree} SELECT id FROM tree`).raw().all(id) as [string][]).map(([x]) => x);
      const totals = this.stmt(
        `${tree} SELECT COUNT(*) AS sessions, SUM(message_count) AS messages, SUM(step_count) AS calls FROM sessions WHERE id IN (SELECT id FROM tree)`,
      ).get(id) as { sessions: number; messages: number; calls: number };
      let cached = 0;
      const sources = new Set<number>([row.sourceId]);
      for (const x of ids) {
        cached += this.stmt(
          'SELECT (SELECT COUNT(*) FROM token_counts WHERE session_id = ?) + (SELECT COUNT(*) FROM replay_runs WHERE session_id = ?)',
        )
          .pluck()
          .get(x, x) as number;
        // A grown file's carried-over messages name the lines of an earlier import: those may go too.
        for (const [src] of this.stmt('SELECT DISTINCT raw_line / 4294967296 FROM messages WHERE session_id = ? AND raw_line IS NOT NULL')
          .raw()
          .all(x) as [number][])
          sources.add(src);
      }
      this.stmt('DELETE FROM sessions WHERE id = ?').run(id);
      for (const src of sources) {
        this.stmt('DELETE FROM sources WHERE id = ? AND NOT EXISTS (SELECT 1 FROM sessions WHERE source_id = ?)').run(src, src);
        if (this.stmt('SELECT 1 FROM sources WHERE id = ?').get(src) !== undefined) continue;
        const lo = sourceLineId(src, 0);
        const hi = sourceLineId(src + 1, 0) - 1;
        // No index on raw_line: one scan, on a delete only, beats an index every import would write.
        if (this.stmt('SELECT 1 FROM messages WHERE raw_line BETWEEN ? AND ? LIMIT 1').get(lo, hi) === undefined)
          this.stmt('DELETE FROM source_lines WHERE id BETWEEN ? AND ?').run(lo, hi);
      }
      return { sessions: totals.sessions, messages: totals.messages ?? 0, calls: totals.calls ?? 0, cached };
    })();
  }

  /**
   * A session stored before v6 keeps its subagents inside its metadata: makes them child rows
   * (linked to the calls that spawned them) and empties that list, in one transaction, given the
   * session as loaded. Their messages keep no raw record (the metadata had none). Answers the
   * session as it now is; a read-only database is left as it is.
   */
  promoteSubagents(id: string, loaded: Session): Session {
    if (loaded.subagents.length === 0 || this.db.readonly || !this.hasLibraryColumns()) return loaded;
    return this.db.transaction(() => {
      const r = this.stmt('SELECT source_id AS sourceId, position, imported_at AS importedAt FROM sessions WHERE id = ?').get(id) as
        { sourceId: number; position: number; importedAt: number } | undefined;
      if (!r) return loaded;
      const links = linkSubagents(loaded);
      loaded.subagents.forEach((sub, k) => {
        const kid = randomUUID();
        this.insertSession(
          sessionRow(sub, kid, r.sourceId, r.position, r.importedAt, { parentId: id, link: links[k] ?? null, rowsForSubagents: true }),
        );
        this.insertMessages(kid, messageRows(sub.messages, 0, sub.messages.length));
      });
      const { messages, ...meta } = loaded;
      this.stmt('UPDATE sessions SET meta = ? WHERE id = ?').run(JSON.stringify({ ...meta, subagents: [] } satisfies SessionMeta), id);
      return { ...loaded, messages, subagents: [] };
    })();
  }

  /** The whole session, messages in order (without raw records). */
  loadSession(id: string): Session | undefined {
    const r = this.stmt('SELECT meta FROM sessions WHERE id = ?').get(id) as { meta: string } | undefined;
    if (!r) return undefined;
    const meta = JSON.parse(r.meta) as SessionMeta;
    const messages = (this.stmt('SELECT body FROM messages WHERE session_id = ? ORDER BY idx').raw().all(id) as [string][]).map(
      ([b]) => JSON.parse(b) as Message,
    );
    return { ...meta, messages };
  }

  /**
   * Messages [from, to) of a session, parsed from their rows alone: a page of the message list
   * costs its own rows, never the whole session (a 100 MB one took seconds to parse).
   */
  loadMessages(id: string, from: number, to: number): Message[] {
    if (to <= from) return [];
    return (
      this.stmt('SELECT body FROM messages WHERE session_id = ? AND idx >= ? AND idx < ? ORDER BY idx').raw().all(id, from, to) as [
        string,
      ][]
    ).map(([b]) => JSON.parse(b) as Message);
  }

  /** A session's metadata (everything but its messages), or undefined for an unknown id. */
  sessionMeta(id: string): Omit<Session, 'messages'> | undefined {
    const r = this.stmt('SELECT meta FROM sessions WHERE id = ?').get(id) as { meta: string } | undefined;
    return r ? (JSON.parse(r.meta) as SessionMeta) : undefined;
  }

  /** The JSON bodies of messages [from, to) (a page of store/lazy-session.ts: parsed there, once, as SQLite would only parse them again). */
  messageBodies(id: string, from: number, to: number): string[] {
    if (to <= from) return [];
    return this.stmt('SELECT body FROM messages WHERE session_id = ? AND idx >= ? AND idx < ? ORDER BY idx')
      .pluck()
      .all(id, from, to) as string[];
  }

  /** Whether a session has a message with this id (without loading the session). */
  hasMessage(id: string, messageId: string): boolean {
    return this.stmt('SELECT 1 FROM messages WHERE session_id = ? AND message_id = ? LIMIT 1').get(id, messageId) !== undefined;
  }

  /**
   * The raw source record of a message: kept in the row, or the source line(s) it names (a
   * response written over several lines is those lines, joined with newlines, as the importer
   * would have kept it).
   */
  rawOf(sessionId: string, idx: number): string | null {
    const r = this.stmt('SELECT raw, raw_line AS rawLine, body FROM messages WHERE session_id = ? AND idx = ?').get(sessionId, idx) as
      { raw: string | null; rawLine: number | null; body: string } | undefined;
    if (!r) return null;
    if (r.raw !== null || r.rawLine === null) return r.raw;
    const lineText = this.stmt('SELECT text FROM source_lines WHERE id = ?').pluck();
    const first = lineText.get(r.rawLine) as string | undefined;
    if (first === undefined) return null;
    // Only a merged response lists more lines; the body is read for nothing else.
    if (!r.body.includes('"mergedLines"')) return first;
    const m = JSON.parse(r.body) as Message;
    const base = r.rawLine - (m.sourceLine ?? 0);
    return [first, ...(m.mergedLines ?? []).map((l) => (lineText.get(base + l) as string | undefined) ?? '')].join('\n');
  }

  /**
   * Stores counts under the estimator's version (core/tokens/version.ts) and removes what an older
   * estimator (or one from before versions, keyed by the bare tokenizer id) stored for the same tokenizer.
   */
  saveCounts(sessionId: string, counts: SessionCounts, exactThrough?: number): void {
    const blob = Buffer.from(counts.perMessage.buffer, counts.perMessage.byteOffset, counts.perMessage.byteLength);
    const key = countsKey(counts.tokenizer);
    const stale = `${counts.tokenizer}@v`;
    this.stmt('DELETE FROM token_counts WHERE session_id = ? AND tokenizer <> ? AND (tokenizer = ? OR substr(tokenizer, 1, ?) = ?)').run(
      sessionId,
      key,
      counts.tokenizer,
      stale.length,
      stale,
    );
    const values = [sessionId, key, blob, counts.system, counts.tools, counts.unlogged, counts.approximate ? 1 : 0];
    if (!this.hasExactThrough()) {
      this.stmt(
        'INSERT OR REPLACE INTO token_counts (session_id, tokenizer, counts, system, tools, unlogged, approximate) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(...values);
      return;
    }
    this.stmt(
      'INSERT OR REPLACE INTO token_counts (session_id, tokenizer, counts, system, tools, unlogged, approximate, exact_through) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(
      ...values,
      // Every message counted: NULL, as counts stored before the column.
      exactThrough === undefined || exactThrough >= counts.perMessage.length ? null : Math.max(0, exactThrough),
    );
  }

  /**
   * Counts from the database — one row of numbers through the primary key, never the text. Only
   * counts made by the current estimator version are read: older ones are as good as absent.
   */
  loadCounts(sessionId: string, tokenizer: string): StoredCounts | undefined {
    const r = this.stmt(
      `SELECT counts, system, tools, unlogged, approximate, ${this.hasExactThrough() ? 'exact_through' : 'NULL'} AS exactThrough FROM token_counts WHERE session_id = ? AND tokenizer = ?`,
    ).get(sessionId, countsKey(tokenizer)) as
      { counts: Buffer; system: number; tools: number; unlogged: number; approximate: number; exactThrough: number | null } | undefined;
    if (!r) return undefined;
    // Copy into an aligned buffer: SQLite's blob may not be 4-byte aligned.
    const perMessage = new Uint32Array(r.counts.byteLength / 4);
    new Uint8Array(perMessage.buffer).set(r.counts);
    const prefix = new Float64Array(perMessage.length + 1);
    for (let i = 0; i < perMessage.length; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;
    return {
      tokenizer,
      perMessage,
      prefix,
      system: r.system,
      tools: r.tools,
      unlogged: r.unlogged,
      approximate: r.approximate === 1,
      exactThrough: Math.min(r.exactThrough ?? perMessage.length, perMessage.length),
    };
  }

  /**
   * What a count of session `id` reads of every message without its text (count/incremental.ts):
   * each message's role and reported usage, from their own columns, and whole the few messages
   * the agent sent rewritten (`Message.sentAs`, whose sent form is counted). Undefined for an
   * unknown id. A stored body holds `"sentAs":{` only as that key: inside a string the quote is
   * escaped.
   */
  messageHeads(id: string): Message[] | undefined {
    const row = this.getRow(id);
    if (!row) return undefined;
    const n = row.messageCount;
    const usage = new Array<ReportedUsage | undefined>(n);
    const reported = this.stmt(
      'SELECT idx, convention, input, cache_read, cache_write, output, reasoning FROM usage WHERE session_id = ? AND idx < ?',
    )
      .raw()
      .iterate(id, n) as Iterable<[number, UsageConvention, number, number, number, number, number | null]>;
    // One string per role and convention (each row's would be its own copy).
    const strings = new Map<string, string>();
    const one = <S extends string>(v: S): S => {
      const hit = strings.get(v);
      if (hit !== undefined) return hit as S;
      strings.set(v, v);
      return v;
    };
    for (const [idx, convention, input, cacheRead, cacheWrite, output, reasoning] of reported)
      usage[idx] = { convention: one(convention), input, cacheRead, cacheWrite, output, reasoning: reasoning ?? undefined };
    const heads = new Array<Message>(n);
    // One pass over the rows: the role, and the body only of a message sent rewritten.
    const rows = this.stmt(
      `SELECT idx, role, CASE WHEN instr(body, '"sentAs":{') > 0 THEN body END FROM messages WHERE session_id = ? AND idx < ?`,
    )
      .raw()
      .iterate(id, n) as Iterable<[number, Role, string | null]>;
    for (const [idx, role, body] of rows)
      heads[idx] = body !== null ? (JSON.parse(body) as Message) : { id: '', role: one(role), parts: NO_PARTS, usage: usage[idx] };
    for (let i = 0; i < n; i++) if (!heads[i]) throw new Error(`session ${id}: message #${i} is not stored (${n} expected)`);
    return heads;
  }

  /**
   * What changes whenever session `id`'s messages do: their number and its source's size and hash
   * (a live-tail append grows the file; a new import is a new session). A count made from what was
   * read under one fingerprint is stored only while it still holds (count/incremental.ts).
   */
  countFingerprint(id: string): string | undefined {
    const r = this.stmt(
      'SELECT s.message_count AS n, src.size AS size, src.hash AS hash FROM sessions s JOIN sources src ON src.id = s.source_id WHERE s.id = ?',
    ).get(id) as { n: number; size: number; hash: string } | undefined;
    return r ? `${r.n}:${r.size}:${r.hash}` : undefined;
  }

  setPinned(sessionId: string, messageId: string, pinned: boolean): void {
    if (pinned) this.stmt('INSERT OR IGNORE INTO pins (session_id, message_id) VALUES (?, ?)').run(sessionId, messageId);
    else this.stmt('DELETE FROM pins WHERE session_id = ? AND message_id = ?').run(sessionId, messageId);
  }

  pins(sessionId: string): Set<string> {
    return new Set((this.stmt('SELECT message_id FROM pins WHERE session_id = ?').raw().all(sessionId) as [string][]).map(([m]) => m));
  }

  summaryGet(key: string): string | undefined {
    return (this.stmt('SELECT summary FROM summaries WHERE key = ?').get(key) as { summary: string } | undefined)?.summary;
  }

  summarySet(key: string, summary: string): void {
    this.stmt('INSERT OR REPLACE INTO summaries (key, summary, created_at) VALUES (?, ?, ?)').run(key, summary, Date.now());
  }

  recordReplay(sessionId: string, policy: string, configHash: string, totals: unknown): void {
    this.stmt('INSERT INTO replay_runs (session_id, policy, config_hash, totals, created_at) VALUES (?, ?, ?, ?, ?)').run(
      sessionId,
      policy,
      configHash,
      JSON.stringify(totals),
      Date.now(),
    );
  }

  savePolicy(id: string, label: string, config: unknown): void {
    this.stmt('INSERT OR REPLACE INTO policies (id, label, config, updated_at) VALUES (?, ?, ?, ?)').run(
      id,
      label,
      JSON.stringify(config),
      Date.now(),
    );
  }

  savedPolicies(): { id: string; label: string; config: unknown }[] {
    return (this.stmt('SELECT id, label, config FROM policies ORDER BY id').all() as { id: string; label: string; config: string }[]).map(
      (r) => ({ ...r, config: JSON.parse(r.config) as unknown }),
    );
  }

  close(): void {
    this.db.close();
  }
}
