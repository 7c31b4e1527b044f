/**
 * S0's first path, async summarization after a turn completes (docs/policies.md §S0): when the
 * messages in the window pass `asyncMessages`, or the estimated history passes `asyncRatio` of
 * the window (with `asyncFullBudget`, the whole request + MaxTokens: S0's first known gap fixed),
 * the oldest messages are folded into the summary by the strategy pipeline, cut at turn starts.
 */
import { compress, type CompressionOutcome } from './compress';
import { int, pct, type ReplayState, type StepDecision } from './state';

/**
 * Runs before the call of `step` when message `i` starts a new turn (so turn i − 1's is complete).
 * A promise only while a remote summarizer answers; undefined when done (or nothing to do).
 */
export function asyncPath(s: ReplayState, i: number, step: number, d: StepDecision): Promise<void> | undefined {
  const c = s.config;
  if (!c.paths.async || i === 0) return undefined;
  const win = s.win;
  const hist = win.historyTokens(i);
  const messagesInWindow = i - win.from + win.keepBefore.length;
  const measured = c.asyncFullBudget ? s.fixed + s.summaryTokens + hist + s.limits.maxOutput : hist;
  const byCount = messagesInWindow > c.asyncMessages;
  const byTokens = measured > c.asyncRatio * s.limits.window;
  if (!byCount && !byTokens) return undefined;
  // Triggered by the message count, the summary folds the oldest messages until about half the
  // count is left; by tokens, until the request is at the target.
  const budget = Math.max(0, s.enforcement.target - s.fixed - s.summaryTokens);
  const historyBudget = byCount ? Math.min(budget, win.rangeTokens(Math.max(win.from, i - Math.floor(c.asyncMessages / 2)), i)) : budget;
  const done = compress(s, 'async', i, step, historyBudget);
  if (done instanceof Promise) return done.then((x) => decision(s, i, d, byCount, messagesInWindow, measured, x));
  decision(s, i, d, byCount, messagesInWindow, measured, done);
  return undefined;
}

function decision(s: ReplayState, i: number, d: StepDecision, byCount: boolean, messagesInWindow: number, measured: number, done: CompressionOutcome | null): void {
  if (!done) return;
  const c = s.config;
  const turn = s.shape.turnOfMsg[i - 1]!;
  const why = byCount
    ? `${messagesInWindow} messages > ${c.asyncMessages}`
    : `${c.asyncFullBudget ? 'request + MaxTokens' : 'history'} ${int(measured)} > ${pct(c.asyncRatio, 1)} of window ${int(s.limits.window)}`;
  d.status = 'compress';
  d.reason = `async summarization after turn ${turn}: ${why} (${int(done.before)} before → ${int(done.after)} after)`;
}
