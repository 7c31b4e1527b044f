/**
 * The proactive path, checked before each call (docs/policies.md §Common, §S0, §S4; S2 and S3
 * are the same comparison with their own trigger): when the request reaches the trigger — or
 * the window holds more messages than a message-count trigger allows — compress toward the
 * target with the strategy pipeline, or with S0's forceCompression.
 */
import { compress } from './compress';
import { overTrigger } from './enforce';
import { int, pct, requestAt, type ReplayState, type StepDecision } from './state';

/** S0's condition in its own terms: messages + tools + MaxTokens > ContextWindow. */
function s0Condition(s: ReplayState, request: number): string {
  const tools = s.counts.tools;
  const out = s.limits.maxOutput;
  return `messages + tools + MaxTokens > window (${int(request - tools)} + ${int(tools)} + ${int(out)} = ${int(request + out)} > ${int(s.limits.window)})`;
}

/**
 * Whether the proactive path fires before the call of message k: the replay asks this first and
 * awaits proactivePath only when it does (most calls are under the trigger; an await each cost a
 * share of a sweep's replays).
 */
export function proactiveFires(s: ReplayState, k: number): boolean {
  const c = s.config;
  if (!c.paths.proactive) return false;
  return c.triggerMessages !== undefined ? k - s.win.from + s.win.keepBefore.length > c.triggerMessages : overTrigger(c, requestAt(s, k), s.enforcement.trigger);
}

export async function proactivePath(s: ReplayState, k: number, step: number, d: StepDecision): Promise<void> {
  const c = s.config;
  if (!proactiveFires(s, k)) return;
  const e = s.enforcement;
  const request = requestAt(s, k);
  const messages = k - s.win.from + s.win.keepBefore.length;
  const force = c.proactiveAction === 'force-compression';
  if (s.lean) {
    // Statuses only (ReplayOptions.detail 'totals'): the same branches as below, without their words.
    const done = await compress(s, 'proactive', k, step, Math.max(0, e.target - s.fixed - s.summaryTokens), force ? '' : undefined);
    if (done) d.status = 'compress';
    else if (d.status === 'ok' && !c.pipeline.every((id) => id === 'observation-masking')) d.status = 'warn';
    return;
  }
  const why =
    c.triggerMessages !== undefined
      ? `${messages} messages > ${c.triggerMessages}`
      : force
        ? s0Condition(s, request)
        : e.basisName === 'window'
          ? `context window at ${pct(request, e.basisTokens)} capacity (${int(request)}/${int(e.basisTokens)} tokens)` // S2's status text
          : `${pct(request, e.basisTokens)} of ${e.basisName} (${int(request)}/${int(e.basisTokens)} tokens)`;
  const done = await compress(s, 'proactive', k, step, Math.max(0, e.target - s.fixed - s.summaryTokens), force ? why : undefined);
  if (done) {
    d.status = 'compress';
    d.reason = `${why}, compaction applied: ${int(done.before)} before → ${int(done.after)} after`;
  } else if (d.status === 'ok' && !c.pipeline.every((id) => id === 'observation-masking')) {
    // Masking-only policies mask continuously: a call with nothing newly aged out is their steady
    // state, not a warning (the enforced-limit check still warns above the limit).
    d.status = 'warn';
    d.reason = `${why}: over the trigger ${Number.isNaN(e.trigger) ? '' : int(e.trigger) + ' '}with nothing left to compress outside the protected messages`.replace('  ', ' ');
  }
}
