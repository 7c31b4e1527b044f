/**
 * S0's third path, emergency compression (docs/policies.md §S0): the provider would have answered
 * with a context-window error although the estimate fit — the true size (reported usage scaled to
 * this window, or the reference tokenizer where the transcript reports none) is over the window.
 * forceCompression drops the oldest ~50% of turns and notes it in the summary.
 */
import { compress, type CompressionOutcome } from './compress';
import { int, requestAt, type ReplayState, type StepDecision } from './state';

/** The original agent's window since its last compaction (for the correction factor). */
export interface OriginalWindow {
  from: number;
  summaryTokens: number;
}

/**
 * The emergency path before the call of message k: undefined when it does not fire or its
 * compression is done at once, a promise only while a remote summarizer answers (it runs before
 * every call of the policies that have it: a promise per call was a share of their replay).
 */
export function emergencyPath(s: ReplayState, orig: OriginalWindow, k: number, step: number, d: StepDecision): Promise<void> | undefined {
  if (!s.config.paths.emergency) return undefined;
  // Whether the message reports usage, and its prompt tokens, from the shape's table (setup.ts).
  const usage = s.shape.usageAt[k] === 1;
  const request = requestAt(s, k);
  if ((!usage && !s.reference) || request > s.enforcement.limit) return undefined;
  let trueSize: number;
  const counts = s.counts;
  if (usage) {
    // The original agent's own window (since its last compaction) against what it reported.
    const origEstimate = s.fixed + orig.summaryTokens + (counts.prefix[k]! - counts.prefix[orig.from]!);
    trueSize = request * (origEstimate > 0 ? s.shape.promptOf[k]! / origEstimate : 1);
  } else {
    // Reference counts of the live range scale the history and summary; fixed regions are counted as they are.
    const ref = s.reference!;
    const est = counts.prefix[k]! - counts.prefix[s.win.from]!;
    const ratio = est > 0 ? (ref.prefix[k]! - ref.prefix[s.win.from]!) / est : 1;
    trueSize = ref.system + ref.unlogged + ref.tools + (s.summaryTokens + s.win.historyTokens(k)) * ratio;
  }
  const window = s.limits.window;
  if (trueSize <= window) return undefined;
  const why = `true size ${int(trueSize)} > window ${int(window)} though the estimate ${int(request)} fit`;
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
