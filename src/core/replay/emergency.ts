/**
 * S0's third path, emergency compression (docs/policies.md §S0): the provider would have answered
 * with a context-window error although the estimate fit — the true size of the request is over
 * the window. forceCompression drops the oldest ~50% of turns and notes it in the summary.
 *
 * The true size starts from what the provider reported for this very call (none where it reported
 * none: the path does not fire there). That figure is the size of the original agent's request;
 * the replay's may hold less (it compressed) or more (the agent compacted or cleared, the replay
 * did not). Within the agent's own uncompacted window the report is scaled by replay / original
 * as the estimate counts them (equal requests: exactly the report). Across a compaction of the
 * agent's, no ratio: the difference is added as estimated, since right after a compaction (aider's
 * `/clear`) the estimate of the agent's window is a few tokens while the report still holds
 * everything the log does not (system prompt, repository map), and their ratio is meaningless.
 * Without any reported usage in the session, the reference tokenizer stands in for the provider.
 */
import { compress, type CompressionOutcome } from './compress';
import { int, requestAt, type ReplayState, type StepDecision } from './state';

/** The original agent's window since its last compaction (what the reported usage measured). */
export interface OriginalWindow {
  from: number;
  summaryTokens: number;
  /** The agent has compacted (or cleared) its history before this call. */
  compacted: boolean;
}

/**
 * The true size of the replay's request before the call of message k, and the words that explain
 * it; undefined when the call reports no usage (and the session has some: no reference stands in).
 */
export function trueSizeAt(s: ReplayState, orig: OriginalWindow, k: number, request: number): { size: number; basis: string } | undefined {
  const counts = s.counts;
  if (s.shape.usageAt[k] === 1) {
    const reported = s.shape.promptOf[k]!;
    // The original agent's request as the policy's estimate counts it: its window since its last compaction.
    const original = s.fixed + orig.summaryTokens + (counts.prefix[k]! - counts.prefix[orig.from]!);
    if (!orig.compacted) {
      const size = original > 0 ? request * (reported / original) : reported;
      return { size, basis: `reported ${int(reported)} × ${int(request)} / ${int(original)} estimated` };
    }
    const diff = request - original;
    return { size: reported + diff, basis: `reported ${int(reported)} ${diff < 0 ? '−' : '+'} ${int(Math.abs(diff))} estimated ${diff < 0 ? 'that the replay no longer holds' : 'beyond the agent’s window since its compaction'}` };
  }
  if (!s.reference) return undefined;
  // Reference counts of the live range scale the history and summary; fixed regions are counted as they are.
  const ref = s.reference;
  const est = counts.prefix[k]! - counts.prefix[s.win.from]!;
  const ratio = est > 0 ? (ref.prefix[k]! - ref.prefix[s.win.from]!) / est : 1;
  return { size: ref.system + ref.unlogged + ref.tools + (s.summaryTokens + s.win.historyTokens(k)) * ratio, basis: '' };
}

/**
 * The emergency path before the call of message k: undefined when it does not fire or its
 * compression is done at once, a promise only while a remote summarizer answers (it runs before
 * every call of the policies that have it: a promise per call was a share of their replay).
 */
export function emergencyPath(s: ReplayState, orig: OriginalWindow, k: number, step: number, d: StepDecision): Promise<void> | undefined {
  if (!s.config.paths.emergency) return undefined;
  // Whether the message reports usage, and its prompt tokens, from the shape's table (setup.ts).
  if (s.shape.usageAt[k] !== 1 && !s.reference) return undefined;
  const request = requestAt(s, k);
  if (request > s.enforcement.limit) return undefined;
  const measured = trueSizeAt(s, orig, k, request);
  const window = s.limits.window;
  if (!measured || measured.size <= window) return undefined;
  const why = `true size ${int(measured.size)}${measured.basis ? ` (${measured.basis})` : ''} > window ${int(window)} though the estimate ${int(request)} fit`;
  const done = compress(s, 'emergency', k, step, 0, `emergency: ${why}`);
  if (done instanceof Promise) return done.then((x) => decision(d, why, x));
  decision(d, why, done);
  return undefined;
}

function decision(d: StepDecision, why: string, done: CompressionOutcome | null): void {
  if (!done) return;
  d.status = 'compress';
  d.reason = `emergency: ${why}; dropped the oldest ${done.turnsDropped} of ${done.turnsInWindow} turns (${int(done.before)} before → ${int(done.after)} after)`;
}
