/**
 * S0's first path, async summarization after a turn completes (docs/policies.md §S0): when the
 * messages in the window pass `asyncMessages`, or the estimated history passes `asyncRatio` of
 * the window (with `asyncFullBudget`, the whole request + MaxTokens: S0's first known gap fixed),
 * the oldest messages are folded into the summary by the strategy pipeline, cut at turn starts.
 * The reason gives the compression's before → after at the end of the turn, and what the call
 * after it sends with the messages that arrived since (docs/policies.md §S0, path 1).
 */
import { compress, type CompressionOutcome } from './compress';
import { int, pct, requestAt, type ReplayState, type StepDecision } from './state';

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

function decision(
  s: ReplayState,
  i: number,
  d: StepDecision,
  byCount: boolean,
  messagesInWindow: number,
  measured: number,
  done: CompressionOutcome | null,
): void {
  if (!done) return;
  const c = s.config;
  const turn = s.shape.turnOfMsg[i - 1]!;
  const why = byCount
    ? `${messagesInWindow} messages > ${c.asyncMessages}`
    : `${c.asyncFullBudget ? 'request + MaxTokens' : 'history'} ${int(measured)} > ${pct(c.asyncRatio, 1)} of window ${int(s.limits.window)}`;
  d.status = 'compress';
  d.reason = `async summarization after turn ${turn}: ${why} (${int(done.before)} before → ${int(done.after)} after, at the end of the turn)`;
  if (!s.lean)
    pendingReasons.set(d, {
      head: `async summarization after turn ${turn}: ${why} (${int(done.before)} before → ${int(done.after)} after at the end of the turn`,
      reason: d.reason,
      endedAt: i,
    });
}

/** The async reason of a call, to be finished with what the call sends once every message before it has arrived. */
const pendingReasons = new WeakMap<StepDecision, { readonly head: string; readonly reason: string; readonly endedAt: number }>();

/**
 * The summary is made when the turn ends; the call after it also carries what arrived since — the
 * next user message — so the step's total is larger than the compression's "after". Called when
 * every message before the call of message `k` has arrived (and been rewritten as the agent sent
 * it): the reason then names both, the "after" of the compression and the request the call sends,
 * which is the step's total unless a later path compresses again (and words its own reason).
 */
export function settleAsyncReason(s: ReplayState, k: number, d: StepDecision): void {
  const pending = pendingReasons.get(d);
  if (!pending) return;
  pendingReasons.delete(d);
  if (d.reason !== pending.reason) return;
  const since = k - pending.endedAt;
  const what = since === 1 && s.messages[pending.endedAt]!.role === 'user' ? 'the next user message' : `the ${since} messages since`;
  d.reason = `${pending.head}; the call sends ${int(requestAt(s, k))} with ${what})`;
}
