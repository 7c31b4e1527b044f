/**
 * The proactive path, checked before each call (docs/policies.md §Common, §S0, §S4; S2 and S3
 * are the same comparison with their own trigger): when the request reaches the trigger — or
 * the window holds more messages than a message-count trigger allows — compress toward the
 * target with the strategy pipeline, or with S0's forceCompression.
 */
import { pipelineMasksContinuously } from '../strategies/registry';
import { compress, type CompressionOutcome } from './compress';
import { overTrigger } from './enforce';
import { int, pct, requestAt, type ReplayState, type StepDecision } from './state';
import { plainRounded, plainWhole, templateHint } from './steps';

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
  return c.triggerMessages !== undefined
    ? k - s.win.from + s.win.keepBefore.length > c.triggerMessages
    : overTrigger(c, requestAt(s, k), s.enforcement.trigger);
}

/**
 * The proactive path before the call of message k. A promise only while a remote summarizer
 * answers: otherwise the compression is done when this returns (undefined), and the replay awaits
 * nothing — a policy compressing at every call awaited two promises per call.
 */
export function proactivePath(s: ReplayState, k: number, step: number, d: StepDecision): Promise<void> | undefined {
  const c = s.config;
  if (!proactiveFires(s, k)) return undefined;
  const e = s.enforcement;
  const request = requestAt(s, k);
  const messages = k - s.win.from + s.win.keepBefore.length;
  const force = c.proactiveAction === 'force-compression';
  const budget = Math.max(0, e.target - s.fixed - s.summaryTokens);
  if (s.lean) {
    // Statuses only (ReplayOptions.detail 'totals'): the same branches as below, without their words.
    const done = compress(s, 'proactive', k, step, budget, force ? '' : undefined);
    if (done instanceof Promise) return done.then((x) => leanDecision(s, d, x));
    leanDecision(s, d, done);
    return undefined;
  }
  // Why it fired, worded by whyOf from these numbers; a compression's reason is worded only when
  // read (a policy compressing at every call has a reason of its own at every call).
  const kind = c.triggerMessages !== undefined ? WHY_MESSAGES : e.basisName === 'window' ? WHY_WINDOW : WHY_BASIS;
  const n0 = c.triggerMessages !== undefined ? messages : request;
  const n1 = c.triggerMessages !== undefined ? c.triggerMessages : e.basisTokens;
  // A forced compression is worded now: its note in the summary says why.
  const forced = force ? (kind === WHY_MESSAGES ? whyOf(kind, n0, n1, e.basisName) : s0Condition(s, request)) : undefined;
  const done = compress(s, 'proactive', k, step, budget, forced);
  if (done instanceof Promise) return done.then((x) => decision(s, d, x, forced, kind, n0, n1));
  decision(s, d, done, forced, kind, n0, n1);
  return undefined;
}

function leanDecision(s: ReplayState, d: StepDecision, done: CompressionOutcome | null): void {
  if (done) d.status = 'compress';
  else if (d.status === 'ok' && !pipelineMasksContinuously(s.config.pipeline)) d.status = 'warn';
}

/** The step's status and reason after the proactive compression (`done`: null when nothing could be removed). */
function decision(
  s: ReplayState,
  d: StepDecision,
  done: CompressionOutcome | null,
  forced: string | undefined,
  kind: number,
  n0: number,
  n1: number,
): void {
  const e = s.enforcement;
  if (done) {
    d.status = 'compress';
    if (forced !== undefined) d.reason = `${forced}, compaction applied: ${int(done.before)} before → ${int(done.after)} after`;
    else {
      d.reason = '';
      d.deferred = { words: compactionWords, n0, n1, n2: kind, n3: 0, n4: done.before, n5: done.after, name: e.basisName };
    }
  } else if (d.status === 'ok' && !pipelineMasksContinuously(s.config.pipeline)) {
    // Masking-only policies mask continuously: a call with nothing newly aged out is their steady
    // state, not a warning (the enforced-limit check still warns above the limit).
    d.status = 'warn';
    if (forced !== undefined) d.reason = warnText(forced, e.trigger);
    else {
      // Worded when read, as a compaction's is: a policy over its trigger with nothing to compress
      // (Letta below its target at every call) formatted, hashed and kept a sentence per call.
      d.reason = '';
      d.deferred = { words: warnWords, n0, n1, n2: kind, n3: e.trigger, n4: 0, n5: 0, name: e.basisName };
    }
  }
}

/** The reason of a call over the trigger with nothing to compress, after `why` it fired. */
function warnText(why: string, trigger: number): string {
  return `${why}: over the trigger ${Number.isNaN(trigger) ? '' : int(trigger) + ' '}with nothing left to compress outside the protected messages`.replace(
    '  ',
    ' ',
  );
}

/** warnText as a DeferredReason: n0, n1 and n2 as whyOf takes them, n3 the trigger (NaN: none). */
export function warnWords(n: ArrayLike<number>, at: number, name: string): string {
  return warnText(whyOf(n[at + 2]!, n[at]!, n[at + 1]!, name), n[at + 3]!);
}

/** pct()'s number is plain (steps.ts plainWhole). */
const plainPct = (part: number, whole: number): boolean => plainWhole(whole > 0 ? Math.floor((part / whole) * 100 + 1e-9) : 0);

/** whyOf's numbers are plain (kind as whyOf takes it: messages written by String(), tokens by int() and pct()). */
function whyPlain(kind: number, n0: number, n1: number): boolean {
  if (kind === WHY_MESSAGES) return plainWhole(n0) && plainWhole(n1);
  return (kind === WHY_WINDOW || kind === WHY_BASIS) && plainRounded(n0) && plainRounded(n1) && plainPct(n0, n1);
}

// The template of a warning or a compaction's reason without wording it (steps.ts TemplateHint):
// the words change only with whyOf's kind, whether there is a trigger, and the basis' name.
templateHint(warnWords, {
  key: (n, at) => {
    const trigger = n[at + 3]!;
    if (!whyPlain(n[at + 2]!, n[at]!, n[at + 1]!) || !(Number.isNaN(trigger) || plainRounded(trigger))) return -1;
    // whyOf's kind (0, 1 or 2), and whether there is a trigger.
    return n[at + 2]! * 2 + (Number.isNaN(trigger) ? 0 : 1);
  },
  standIn: (n, at) => [1, 1, n[at + 2]!, Number.isNaN(n[at + 3]!) ? NaN : 1, 0, 0],
});
templateHint(compactionWords, {
  key: (n, at) => (whyPlain(n[at + 2]!, n[at]!, n[at + 1]!) && plainRounded(n[at + 4]!) && plainRounded(n[at + 5]!) ? n[at + 2]! : -1),
  standIn: (n, at) => [1, 1, n[at + 2]!, 0, 1, 1],
});

/** What the trigger compared (whyOf): a message count, the window (S2's status text), another basis. */
const WHY_MESSAGES = 0;
const WHY_WINDOW = 1;
const WHY_BASIS = 2;

/** Why the proactive path fired: `n0`, `n1` are messages and the trigger count, or the request and the basis' tokens. */
function whyOf(kind: number, n0: number, n1: number, basisName: string): string {
  if (kind === WHY_MESSAGES) return `${n0} messages > ${n1}`;
  if (kind === WHY_WINDOW) return `context window at ${pct(n0, n1)} capacity (${int(n0)}/${int(n1)} tokens)`;
  return `${pct(n0, n1)} of ${basisName} (${int(n0)}/${int(n1)} tokens)`;
}

/** A proactive compression's reason (DeferredReason): n0, n1 and n2 as whyOf takes them, n4 and n5 the tokens before and after. */
export function compactionWords(n: ArrayLike<number>, at: number, name: string): string {
  return `${whyOf(n[at + 2]!, n[at]!, n[at + 1]!, name)}, compaction applied: ${int(n[at + 4]!)} before → ${int(n[at + 5]!)} after`;
}
