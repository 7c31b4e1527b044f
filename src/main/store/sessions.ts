/**
 * Sessions in SQLite. One import is one transaction: a failed or cancelled import leaves nothing.
 * The same file (same content hash) is not stored twice; a file that grew (a live agent
 * appending) adds only the messages that are new. Counts are stored per (session, tokenizer)
 * and read back as numbers only.
 */
import { randomUUID } from 'node:crypto';
import type { FormatId, Message, Session } from '../../core/model';
import { stepIndices } from '../../core/model';
import type { SessionCounts } from '../../core/tokens/types';
import { turnStarts } from '../../core/turns';
import type { Db } from './db';

export interface SourceInfo {
  readonly path: string;
  readonly size: number;
  readonly hash: string;
  readonly format: FormatId;
}

export interface StoredSessionRow {
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
});

/** Session metadata kept as JSON (everything but the messages). */
type SessionMeta = Omit<Session, 'messages'>;

export class SessionStore {
  constructor(readonly db: Db) {}

  /** Ids of the sessions already stored from a file with this content hash, or undefined. */
  findByHash(hash: string): string[] | undefined {
    const src = this.db.prepare('SELECT id FROM sources WHERE hash = ?').get(hash) as { id: number } | undefined;
    if (!src) return undefined;
    return (this.db.prepare('SELECT id FROM sessions WHERE source_id = ? ORDER BY position').all(src.id) as { id: string }[]).map((r) => r.id);
  }

  /** The latest stored import of this path (to detect a grown file). */
  latestByPath(path: string): { sourceId: number; size: number; hash: string } | undefined {
    return this.db.prepare('SELECT id AS sourceId, size, hash FROM sources WHERE path = ? ORDER BY id DESC LIMIT 1').get(path) as { sourceId: number; size: number; hash: string } | undefined;
  }

  /**
   * Stores an import in ONE transaction. When `grownFrom` names an earlier import of the same
   * path whose content is a prefix of this one, sessions with the same source id get only their
   * new messages appended instead of a second copy.
   */
  saveImport(source: SourceInfo, sessions: readonly Session[], options: { grownFrom?: number } = {}): string[] {
    const now = Date.now();
    const insertSource = this.db.prepare('INSERT INTO sources (path, size, hash, format, imported_at) VALUES (?, ?, ?, ?, ?)');
    const insertSession = this.db.prepare(
      'INSERT INTO sessions (id, source_id, position, source_session_id, format, title, model, meta, message_count, step_count, turn_count, has_usage, started_at, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertMessage = this.db.prepare('INSERT INTO messages (session_id, idx, message_id, role, body, raw) VALUES (?, ?, ?, ?, ?, ?)');
    const insertUsage = this.db.prepare('INSERT INTO usage (session_id, idx, convention, input, cache_read, cache_write, output, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const updateSession = this.db.prepare('UPDATE sessions SET source_id = ?, meta = ?, message_count = ?, step_count = ?, turn_count = ?, has_usage = ?, title = ?, model = ? WHERE id = ?');

    const writeMessages = (sessionId: string, messages: readonly Message[], from: number): void => {
      for (let i = from; i < messages.length; i++) {
        const m = messages[i]!;
        const { raw, ...body } = m;
        insertMessage.run(sessionId, i, m.id, m.role, JSON.stringify(body), raw ?? null);
        const u = m.usage;
        if (u) insertUsage.run(sessionId, i, u.convention, u.input, u.cacheRead, u.cacheWrite, u.output, u.reasoning ?? null);
      }
    };
    const stats = (s: Session) => ({ steps: stepIndices(s.messages).length, turns: turnStarts(s.messages).length, usage: s.messages.some((m) => m.usage) ? 1 : 0 });
    const metaOf = (s: Session): string => {
      const { messages: _messages, ...meta } = s;
      return JSON.stringify(meta satisfies SessionMeta);
    };

    return this.db.transaction(() => {
      const sourceId = Number(insertSource.run(source.path, source.size, source.hash, source.format, now).lastInsertRowid);
      const ids: string[] = [];
      sessions.forEach((s, position) => {
        const st = stats(s);
        if (options.grownFrom !== undefined) {
          const prev = this.db.prepare('SELECT id, message_count FROM sessions WHERE source_id = ? AND source_session_id = ?').get(options.grownFrom, s.id) as { id: string; message_count: number } | undefined;
          if (prev && prev.message_count <= s.messages.length) {
            writeMessages(prev.id, s.messages, prev.message_count);
            // Counts cover the old messages only: drop them so they are recomputed.
            this.db.prepare('DELETE FROM token_counts WHERE session_id = ?').run(prev.id);
            updateSession.run(sourceId, metaOf(s), s.messages.length, st.steps, st.turns, st.usage, s.title ?? null, s.model ?? null, prev.id);
            ids.push(prev.id);
            return;
          }
        }
        const id = randomUUID();
        insertSession.run(id, sourceId, position, s.id, s.format, s.title ?? null, s.model ?? null, metaOf(s), s.messages.length, st.steps, st.turns, st.usage, s.startedAt ?? null, now);
        writeMessages(id, s.messages, 0);
        ids.push(id);
      });
      if (options.grownFrom !== undefined) this.db.prepare('DELETE FROM sources WHERE id = ? AND NOT EXISTS (SELECT 1 FROM sessions WHERE source_id = ?)').run(options.grownFrom, options.grownFrom);
      return ids;
    })();
  }

  listSessions(): StoredSessionRow[] {
    return (this.db.prepare('SELECT s.*, src.path FROM sessions s JOIN sources src ON src.id = s.source_id ORDER BY s.imported_at, s.position').all() as SessionRowRaw[]).map(toRow);
  }

  getRow(id: string): StoredSessionRow | undefined {
    const r = this.db.prepare('SELECT s.*, src.path FROM sessions s JOIN sources src ON src.id = s.source_id WHERE s.id = ?').get(id) as SessionRowRaw | undefined;
    return r ? toRow(r) : undefined;
  }

  /** The whole session, messages in order (without raw records). */
  loadSession(id: string): Session | undefined {
    const r = this.db.prepare('SELECT meta FROM sessions WHERE id = ?').get(id) as { meta: string } | undefined;
    if (!r) return undefined;
    const meta = JSON.parse(r.meta) as SessionMeta;
    const messages = (this.db.prepare('SELECT body FROM messages WHERE session_id = ? ORDER BY idx').raw().all(id) as [string][]).map(([b]) => JSON.parse(b) as Message);
    return { ...meta, messages };
  }

  rawOf(sessionId: string, idx: number): string | null {
    const r = this.db.prepare('SELECT raw FROM messages WHERE session_id = ? AND idx = ?').get(sessionId, idx) as { raw: string | null } | undefined;
    return r?.raw ?? null;
  }

  saveCounts(sessionId: string, counts: SessionCounts): void {
    const blob = Buffer.from(counts.perMessage.buffer, counts.perMessage.byteOffset, counts.perMessage.byteLength);
    this.db
      .prepare('INSERT OR REPLACE INTO token_counts (session_id, tokenizer, counts, system, tools, unlogged, approximate) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(sessionId, counts.tokenizer, blob, counts.system, counts.tools, counts.unlogged, counts.approximate ? 1 : 0);
  }

  /** Counts from the database — one row of numbers through the primary key, never the text. */
  loadCounts(sessionId: string, tokenizer: string): SessionCounts | undefined {
    const r = this.db.prepare('SELECT counts, system, tools, unlogged, approximate FROM token_counts WHERE session_id = ? AND tokenizer = ?').get(sessionId, tokenizer) as
      | { counts: Buffer; system: number; tools: number; unlogged: number; approximate: number }
      | undefined;
    if (!r) return undefined;
    // Copy into an aligned buffer: SQLite's blob may not be 4-byte aligned.
    const perMessage = new Uint32Array(r.counts.byteLength / 4);
    new Uint8Array(perMessage.buffer).set(r.counts);
    const prefix = new Float64Array(perMessage.length + 1);
    for (let i = 0; i < perMessage.length; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;
    return { tokenizer, perMessage, prefix, system: r.system, tools: r.tools, unlogged: r.unlogged, approximate: r.approximate === 1 };
  }

  setPinned(sessionId: string, messageId: string, pinned: boolean): void {
    if (pinned) this.db.prepare('INSERT OR IGNORE INTO pins (session_id, message_id) VALUES (?, ?)').run(sessionId, messageId);
    else this.db.prepare('DELETE FROM pins WHERE session_id = ? AND message_id = ?').run(sessionId, messageId);
  }

  pins(sessionId: string): Set<string> {
    return new Set((this.db.prepare('SELECT message_id FROM pins WHERE session_id = ?').raw().all(sessionId) as [string][]).map(([m]) => m));
  }

  summaryGet(key: string): string | undefined {
    return (this.db.prepare('SELECT summary FROM summaries WHERE key = ?').get(key) as { summary: string } | undefined)?.summary;
  }

  summarySet(key: string, summary: string): void {
    this.db.prepare('INSERT OR REPLACE INTO summaries (key, summary, created_at) VALUES (?, ?, ?)').run(key, summary, Date.now());
  }

  recordReplay(sessionId: string, policy: string, configHash: string, totals: unknown): void {
    this.db.prepare('INSERT INTO replay_runs (session_id, policy, config_hash, totals, created_at) VALUES (?, ?, ?, ?, ?)').run(sessionId, policy, configHash, JSON.stringify(totals), Date.now());
  }

  savePolicy(id: string, label: string, config: unknown): void {
    this.db.prepare('INSERT OR REPLACE INTO policies (id, label, config, updated_at) VALUES (?, ?, ?, ?)').run(id, label, JSON.stringify(config), Date.now());
  }

  savedPolicies(): { id: string; label: string; config: unknown }[] {
    return (this.db.prepare('SELECT id, label, config FROM policies ORDER BY id').all() as { id: string; label: string; config: string }[]).map((r) => ({ ...r, config: JSON.parse(r.config) as unknown }));
  }

  close(): void {
    this.db.close();
  }
}
