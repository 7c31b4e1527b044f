/**
 * Messages the original agent itself rewrote before a call (docs/policies.md §Common, messages
 * as sent): a history processor such as SWE-agent's `last_n_observations` sends older
 * observations as placeholders. The transcript logs them in full, and each message says from which
 * call on it was sent rewritten (`Message.sentAs`); before that call the replay counts it in full,
 * from it on at its size as sent, shown as masked (a placeholder replaces it) — so every call is
 * replayed on the message list as the agent produced it for that call.
 */
import { sentAsTokens, type SentAsTokens } from '../tokens/sent-as';
import type { ReplayState } from './state';

export class SentAsHandler {
  readonly entries: readonly SentAsTokens[];
  /** Rewrites applied so far (entries before it). */
  next = 0;

  /** `resumeAt`: continuing a run (resume.ts) that applied that many — its warning is already out. */
  constructor(s: ReplayState, resumeAt?: number) {
    this.entries = sentAsTokens(s.session, s.counts);
    if (resumeAt !== undefined) this.next = resumeAt;
    else if (this.entries.length > 0) {
      s.events.push({
        kind: 'warning',
        step: 0,
        text: `${this.entries.length} message${this.entries.length === 1 ? '' : 's'} the agent sent rewritten by its history processor from a later call on (elided observations): each call counts them as that call received them`,
      });
    }
  }

  /** Before the call at message k (step j): the rewrites that apply from it on take effect. */
  applyUpTo(s: ReplayState, k: number, j: number): void {
    const win = s.win;
    for (; this.next < this.entries.length && this.entries[this.next]!.from <= k; this.next++) {
      const e = this.entries[this.next]!;
      win.reduceTo(e.index, e.tokens);
      win.masked[e.index] = 1;
      // What the placeholder replaced is no longer in the window: retention sees it leave here.
      s.retention.markLeft(e.index, j);
    }
  }
}
