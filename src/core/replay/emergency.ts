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

/** The original agent's request at the call of message k, as the policy's estimate counts it: its window since its last compaction. */
function originalEstimate(s: ReplayState, orig: OriginalWindow, k: number): number {
  return s.fixed + orig.summaryTokens + (s.counts.prefix[k]! - s.counts.prefix[orig.from]!);
}

/**
 * The true size of the replay's request before the call of message k; NaN when the call reports
 * no usage (and the session has some: no reference stands in). A number, not an object with its
 * words: this runs before every call, and the words are needed only when the path fires.
 */
export function trueSizeAt(s: ReplayState, orig: OriginalWindow, k: number, request: number): number {
  const counts = s.counts;
  if (s.shape.usageAt[k] === 1) {
    const reported = s.shape.promptOf[k]!;
    const original = originalEstimate(s, orig, k);
    // Within the agent's own window: scaled; across its compaction: the estimated difference added.
    if (!orig.compacted) return original > 0 ? request * (reported / original) : reported;
    return reported + (request - original);
  }
  if (!s.reference) return NaN;
  // Reference counts of the live range scale the history and summary; fixed regions are counted as they are.
  const ref = s.reference;
  const est = counts.prefix[k]! - counts.prefix[s.win.from]!;
  const ratio = est > 0 ? (ref.prefix[k]! - ref.prefix[s.win.from]!) / est : 1;
  return ref.system + ref.unlogged + ref.tools + (s.summaryTokens + s.win.historyTokens(k)) * ratio;
}

/** How trueSizeAt made its figure, for the reason ('' for the reference tokenizer's count). */
function trueSizeBasis(s: ReplayState, orig: OriginalWindow, k: number, request: number): string {
  if (s.shape.usageAt[k] !== 1) return '';
  const reported = s.shape.promptOf[k]!;
  const original = originalEstimate(s, orig, k);
  if (!orig.compacted) return ` (reported ${int(reported)} × ${int(request)} / ${int(original)} estimated)`;
  const diff = request - original;
  return diff < 0
    ? ` (reported ${int(reported)} − ${int(-diff)} estimated that the replay no longer holds)`
    : ` (reported ${int(reported)} + ${int(diff)} estimated beyond the agent’s window since its compaction)`;
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
  const size = trueSizeAt(s, orig, k, request);
  const window = s.limits.window;
  if (!(size > window)) return undefined;
  const why = `true size ${int(size)}${trueSizeBasis(s, orig, k, request)} > window ${int(window)} though the estimate ${int(request)} fit`;
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
