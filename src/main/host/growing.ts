/**
 * A session still being imported, as the replay worker holds it (docs/architecture.md "Opening a
 * big session"): a prefix of what is stored, read from SQLite and grown by a bounded step before
 * each request that reads it — never the whole session at once, never read again from call 0.
 *
 * Why: the chart of a partial session was asked for when a 1 GB import had stored tens of
 * thousands of calls, and the worker read and replayed all of them before the first chart (and
 * every chunk stored meanwhile stopped that replay and began it again). Here the first request reads
 * at most FIRST_MESSAGES messages (its chart within a second whatever the file's size), and each
 * later request at most STEP_MESSAGES more: the run kept for the chart is continued over them
 * (core/replay/resume.ts, exact), so every request of a growing session costs a bounded time and
 * the chart grows chunk after chunk while steps and other requests are answered between.
 *
 * The import's chunks are not applied from the host's messages: each request reads the rows
 * stored since (one indexed range), so a chunk stored while a replay ran costs nothing until the
 * next request. A chunk that rewrote messages the prefix holds (a response extended by its next
 * lines) marks them, and they are read again from there.
 */
import type { Message, Session, SourceCompaction } from '../../core/model';
import type { SessionCounts } from '../../core/tokens/index';
import { carryReplayCaches } from '../../core/replay/carry';

/**
 * Messages read for the first request of a growing session (~200 calls), fewer than the import's
 * first prefix holds: a first replay of them is fast because it runs before the session's first
 * fold summary. A fresh thread read and replayed 400 messages of the bench's 100 MB session in
 * 32–63 ms and 1,226 (the 2 MB prefix, past its first compaction) in 321–373 ms, at load 11;
 * the chart grows from there at the window's next request.
 */
export const FIRST_MESSAGES = 400;
/** Messages read at most before each later request (a chart of them continued in well under a second). */
export const STEP_MESSAGES = 6_000;

/** What a growing session is read from (the worker's read-only store). */
export interface GrowingSource {
  /** Messages stored so far, or undefined when the session is gone. */
  storedMessages(id: string): number | undefined;
  /** The session without its messages, as stored now. */
  meta(id: string): Omit<Session, 'messages'> | undefined;
  /** Messages [from, to) as stored. */
  messages(id: string, from: number, to: number): Message[];
}

export interface GrowingOptions {
  readonly first?: number;
  readonly step?: number;
}

/** The prefix `messages` of a session as stored: its compactions limited to those messages. */
function prefixOf(meta: Omit<Session, 'messages'>, messages: Message[]): Session {
  const n = messages.length;
  const compactions: readonly SourceCompaction[] = meta.sourceCompactions.filter((c) => c.atMessage < n);
  return { ...meta, sourceCompactions: compactions, messages };
}

export class GrowingSessions {
  /** Sessions being imported, each with the first message index a chunk rewrote since the last read (Infinity: none). */
  private readonly dirty = new Map<string, number>();
  private readonly first: number;
  private readonly step: number;

  constructor(
    private readonly source: GrowingSource,
    options: GrowingOptions = {},
  ) {
    this.first = options.first ?? FIRST_MESSAGES;
    this.step = options.step ?? STEP_MESSAGES;
  }

  has(id: string): boolean {
    return this.dirty.has(id);
  }

  /** How many sessions are being imported. */
  get size(): number {
    return this.dirty.size;
  }

  /** The session is being imported (again a chunk, written from message `from` on), or no longer (`on` false). */
  mark(id: string, on: boolean, from = Infinity): void {
    if (!on) this.dirty.delete(id);
    else this.dirty.set(id, Math.min(this.dirty.get(id) ?? Infinity, from));
  }

  /**
   * After a chunk: the messages of `held` it wrote again (a response extended by its next lines)
   * read again at once, so that what is held is always what the store holds for those messages —
   * the counts a replay loads later are the store's, and must count the messages it replays.
   * Undefined when no held message was written again.
   */
  refresh(id: string, held: Session): Session | undefined {
    const rewritten = this.dirty.get(id);
    const n = held.messages.length;
    if (rewritten === undefined || rewritten >= n) return undefined;
    const meta = this.source.meta(id);
    if (!meta) return undefined;
    const messages = [...held.messages.slice(0, rewritten), ...this.source.messages(id, rewritten, n)];
    carryReplayCaches(held.messages, messages, rewritten);
    this.dirty.set(id, Infinity);
    return prefixOf(meta, messages);
  }

  /**
   * Before a request of growing session `id`: `held` (the prefix held, if any) read on by at most
   * a step from the store; undefined when nothing changed (or the session is not growing, or gone).
   * `appended` says whether the result continues `held` (its first messages the same objects, so
   * the runs kept for it may be continued) or replaces it.
   */
  catchUp(id: string, held: Session | undefined): { session: Session; appended: boolean } | undefined {
    const rewritten = this.dirty.get(id);
    if (rewritten === undefined) return undefined;
    const stored = this.source.storedMessages(id);
    if (stored === undefined) return undefined;
    if (!held || stored < held.messages.length) {
      const meta = this.source.meta(id);
      if (!meta) return undefined;
      this.dirty.set(id, Infinity);
      return { session: prefixOf(meta, this.source.messages(id, 0, Math.min(stored, this.first))), appended: false };
    }
    const n = held.messages.length;
    const from = Math.min(rewritten, n);
    const to = Math.min(stored, n + this.step);
    if (from === n && to === n) return undefined;
    const meta = this.source.meta(id);
    if (!meta) return undefined;
    const messages = [...held.messages.slice(0, from), ...this.source.messages(id, from, to)];
    // The messages before `from` are the same objects: what replays extracted from them carries over.
    carryReplayCaches(held.messages, messages, from);
    this.dirty.set(id, Infinity);
    return { session: prefixOf(meta, messages), appended: true };
  }
}

/**
 * Stored counts of a whole (growing) session cut to the `n` messages held: only where each
 * message's count is its own (the calibrated tokenizer fits an overhead over all of them).
 */
export function countsPrefix(c: SessionCounts, n: number): SessionCounts {
  if (c.perMessage.length <= n || c.tokenizer === 'calibrated' || c.unlogged !== 0) return c;
  return { ...c, perMessage: c.perMessage.slice(0, n), prefix: c.prefix.slice(0, n + 1) };
}
