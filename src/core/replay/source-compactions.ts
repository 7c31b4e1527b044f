/**
 * Compactions the original agent did (a Claude Code `compact_boundary`, a Codex compaction), as
 * events at the call they precede (docs/policies.md §Common, source compactions). One after the
 * last call is attached to the last step, so it is never lost. They also move the original
 * agent's window start, against which S0's emergency path measures the replay's request.
 */
import type { ReplayState } from './state';
import type { OriginalWindow } from './emergency';

export class SourceCompactions {
  /** Compactions emitted so far (sorted before it). */
  next = 0;
  readonly sorted;
  /** The original agent's window since its last compaction. */
  readonly original: OriginalWindow = { from: 0, summaryTokens: 0, compacted: false };

  constructor(private readonly s: ReplayState) {
    this.sorted = [...s.session.sourceCompactions].sort((a, b) => a.atMessage - b.atMessage);
  }

  /** Emits those at or before message `upTo` (Infinity: all that are left) at `step`. */
  emitUpTo(upTo: number, step: number): void {
    while (this.next < this.sorted.length && this.sorted[this.next]!.atMessage <= upTo) {
      const c = this.sorted[this.next++]!;
      this.original.from = Math.min(c.atMessage, this.s.messages.length);
      this.original.summaryTokens = c.summary ? this.s.countText(c.summary) : 0;
      this.original.compacted = true;
      this.s.events.push({
        kind: 'source-compaction',
        step,
        messageIndex: c.atMessage,
        trigger: c.trigger,
        ...(c.tokensBefore !== undefined ? { tokensBefore: c.tokensBefore } : {}),
        ...(c.tokensAfter !== undefined ? { tokensAfter: c.tokensAfter } : {}),
        ...(c.summary ? { summary: c.summary } : {}),
      });
    }
  }
}
