/**
 * A live-tail update as data (docs/user-guide.md "Live tail"): the messages a session gained or had rewritten
 * from `from` on. A thread that holds the session (the host, the replay worker) applies it instead
 * of reading the whole session from SQLite again.
 */
import type { Message, Session, SourceCompaction } from '../../core/model';
import { carryReplayCaches } from '../../core/replay/carry';
import { keepPages, storedTail } from '../store/lazy-session';

export interface SessionAppend {
  /** First message index written again. */
  readonly from: number;
  /** The message count the update started from. */
  readonly previous: number;
  /** Messages [from, …) as stored. */
  readonly messages: readonly Message[];
  /** Compactions the update recorded after the ones held (the live tail's fast path appends them). */
  readonly compactions?: readonly SourceCompaction[];
}

/**
 * The session after the update, or undefined when the one held is not the one it started from. A
 * session held lazily (store/lazy-session.ts) stays so: the new messages' text is read from the
 * store like the rest, and is not kept here.
 */
export function appendToSession(s: Session, a: SessionAppend): Session | undefined {
  if (s.messages.length !== a.previous || a.from > a.previous) return undefined;
  const messages = [...s.messages.slice(0, a.from), ...(storedTail(s, a.from, a.messages) ?? a.messages)];
  keepPages(s, messages);
  // The messages before `from` are the same objects: what replays extracted from them carries over.
  carryReplayCaches(s.messages, messages, a.from);
  return a.compactions && a.compactions.length > 0
    ? { ...s, messages, sourceCompactions: [...s.sourceCompactions, ...a.compactions] }
    : { ...s, messages };
}
