/**
 * A live-tail update as data (README "Live tail"): the messages a session gained or had rewritten
 * from `from` on. A thread that holds the session (the host, the replay worker) applies it instead
 * of reading the whole session from SQLite again.
 */
import type { Message, Session } from '../../core/model';

export interface SessionAppend {
  /** First message index written again. */
  readonly from: number;
  /** The message count the update started from. */
  readonly previous: number;
  /** Messages [from, …) as stored. */
  readonly messages: readonly Message[];
}

/** The session after the update, or undefined when the one held is not the one it started from. */
export function appendToSession(s: Session, a: SessionAppend): Session | undefined {
  if (s.messages.length !== a.previous || a.from > a.previous) return undefined;
  return { ...s, messages: [...s.messages.slice(0, a.from), ...a.messages] };
}
