/**
 * The cost handler (docs/policies.md §Common, cost; docs/cost.md): each call is billed its request
 * as input, split the way its provider bills a prompt — cache reads, cache writes, plain input —
 * and the transcript's own output. A call the budgets abort is not made and not billed. Calls the
 * agent makes beside its loop (S1's full-chunked extraction) are billed where they happen
 * (`billSideCalls`).
 *
 * The cache, by provider (`CacheRules`):
 * - Anthropic: the agent marks cache breakpoints; Claude Code marks the tools, the system prompt
 *   and the last message, so everything sent is cached. The part of the request already cached
 *   (the previous request's, or the prefix a compression left unchanged) is read; the rest is
 *   written, at the 5-minute or the 1-hour write price.
 * - Automatic prefix caching (OpenAI, Gemini, others): a prompt of 1,024 tokens or more has its
 *   prefix shared with the previous request read from the cache in 128-token steps; nothing is
 *   billed as a write.
 * Both: a gap between calls longer than the cache's lifetime (from the timestamps) finds the
 * cache empty; a compression leaves only what comes before the first changed message (system and
 * tools: a compression changes the history from its first message, where the summary goes); the
 * first call starts with what it reported as read (a warm start: earlier sessions cached the
 * system prompt and tools).
 */
import type { ModelInfo } from '../catalog';
import { callCost } from '../catalog';
import type { Message, Session } from '../model';
import type { ReplayState } from './state';

/** How a provider caches prompts, as the replay applies it. */
export interface CacheRules {
  /** `breakpoints`: Anthropic's explicit cache with writes; `automatic`: OpenAI-style prefix caching. */
  readonly kind: 'breakpoints' | 'automatic';
  /** How long an unused cache entry lives, in ms. */
  readonly lifetimeMs: number;
  /** Writes are 1-hour writes (2× input on Anthropic) rather than 5-minute ones. */
  readonly write1h: boolean;
  /** The shortest prompt that is cached at all. */
  readonly minPrefix: number;
  /** Cached tokens come in steps of this many (automatic caching). */
  readonly step: number;
  /** Tokens the first call finds cached (its reported cache reads). */
  readonly warmStart: number;
  /** What the replay had to assume because the log does not say (shown with the totals). */
  readonly assumed: readonly string[];
}

const MINUTE = 60_000;
/** Anthropic's cache lifetimes: 5 minutes by default, 1 hour when the agent asks for it. */
export const ANTHROPIC_LIFETIME_MS = 5 * MINUTE;
export const ANTHROPIC_LIFETIME_1H_MS = 60 * MINUTE;
/** OpenAI keeps an idle prefix 5 to 10 minutes (longer off-peak): the replay takes 10. */
export const AUTOMATIC_LIFETIME_MS = 10 * MINUTE;
/** OpenAI caches prompts of 1,024 tokens or more, in 128-token steps. */
export const AUTOMATIC_MIN_PREFIX = 1024;
export const AUTOMATIC_STEP = 128;
/** Anthropic's minimum cacheable prompt (Sonnet and Opus; Haiku's is 2,048). */
export const ANTHROPIC_MIN_PREFIX = 1024;
export const ANTHROPIC_HAIKU_MIN_PREFIX = 2048;

const ANTHROPIC_FORMATS = new Set(['claude-code', 'claude-stream-json', 'anthropic']);

/** The cache rules of a session's provider, and what the log leaves to assume. */
export function cacheRulesOf(session: Session, model: ModelInfo | undefined): CacheRules {
  // Read from every message: a slider move re-runs the replay of the same list, and this scan of a
  // 300,000-call session was ~130 ms of each. Kept per list and what else decides them; a list
  // never changes once made (a live-tail append makes a new one), its length checked all the same.
  const key = `${session.format}\u0000${session.model ?? ''}\u0000${model?.provider ?? ''}\u0000${model?.id ?? ''}`;
  let held = rulesHeld.get(session.messages);
  if (!held || held.length !== session.messages.length)
    rulesHeld.set(session.messages, (held = { length: session.messages.length, rules: new Map() }));
  let rules = held.rules.get(key);
  if (!rules) held.rules.set(key, (rules = rulesOf(session, model)));
  // A copy: a result states its `assumed` list, which no two results share.
  return { ...rules, assumed: [...rules.assumed] };
}
const rulesHeld = new WeakMap<readonly Message[], { readonly length: number; readonly rules: Map<string, CacheRules> }>();

/**
 * What the cache rules read of a message list, folded message by message: whether any call reports
 * Anthropic usage or a cache write, any cache field, a 1-hour write, any timestamp; and the first
 * call and first assistant message. Kept per list and carried to a grown one (carryCacheFacts), so a
 * live-tail append reads only its new messages.
 */
interface CacheFacts {
  readonly length: number;
  readonly anthropicUsage: boolean;
  readonly anyCacheField: boolean;
  readonly anyCacheWrite: boolean;
  readonly write1h: boolean;
  readonly timed: boolean;
  /** The first assistant message with usage, and the first assistant message (-1: none yet). */
  readonly firstCall: number;
  readonly firstAssistant: number;
}
const factsHeld = new WeakMap<readonly Message[], CacheFacts>();

/** `facts` (of the messages before `from`) folded over messages [from, end). */
function foldCacheFacts(messages: readonly Message[], from: number, facts: CacheFacts | undefined): CacheFacts {
  let { anthropicUsage, anyCacheField, anyCacheWrite, write1h, timed, firstCall, firstAssistant } = facts ?? {
    anthropicUsage: false,
    anyCacheField: false,
    anyCacheWrite: false,
    write1h: false,
    timed: false,
    firstCall: -1,
    firstAssistant: -1,
  };
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.timestamp !== undefined) timed = true;
    if (m.role !== 'assistant') continue;
    if (firstAssistant < 0) firstAssistant = i;
    const u = m.usage;
    if (u === undefined) continue;
    if (firstCall < 0) firstCall = i;
    if (u.convention === 'anthropic' || u.cacheWrite > 0) anthropicUsage = true;
    if (u.cacheRead > 0 || u.cacheWrite > 0) anyCacheField = true;
    if (u.cacheWrite > 0) anyCacheWrite = true;
    if ((u.cacheWrite1h ?? 0) > 0) write1h = true;
  }
  return { length: messages.length, anthropicUsage, anyCacheField, anyCacheWrite, write1h, timed, firstCall, firstAssistant };
}

function cacheFactsOf(messages: readonly Message[]): CacheFacts {
  let f = factsHeld.get(messages);
  if (!f || f.length !== messages.length) factsHeld.set(messages, (f = foldCacheFacts(messages, 0, undefined)));
  return f;
}

/**
 * The facts of `old` carried to `next`, which holds `old`'s first `from` messages (a live-tail
 * append, core/replay/carry.ts), folded on over the new messages. Only when `next` holds all of
 * `old` (`from` = its length): a message written again may take back what it said (an "any" can
 * not be unfolded), and `next` is then read whole when its rules are asked for.
 */
export function carryCacheFacts(old: readonly Message[], next: readonly Message[], from: number): void {
  const held = factsHeld.get(old);
  if (!held || held.length !== old.length || factsHeld.has(next) || from !== old.length) return;
  factsHeld.set(next, foldCacheFacts(next, from, held));
}

function rulesOf(session: Session, model: ModelInfo | undefined): CacheRules {
  const facts = cacheFactsOf(session.messages);
  // Without a catalog row: the format, the model's name, or a reported cache write (only explicit caching writes) tell.
  const anthropic = model
    ? model.provider === 'anthropic'
    : ANTHROPIC_FORMATS.has(session.format) || /claude/i.test(session.model ?? '') || facts.anthropicUsage;
  const assumed: string[] = [];
  if (!facts.timed) assumed.push('no timestamps: the cache never expires between calls');
  const first = facts.firstCall >= 0 ? session.messages[facts.firstCall]!.usage! : undefined;
  const warmStart = first && facts.firstCall === facts.firstAssistant ? first.cacheRead : 0;
  if (!first) assumed.push('no reported usage: the first call starts with nothing cached');
  else if (!facts.anyCacheField) assumed.push('the log reports no cache reads or writes: cold start, the provider’s default cache');
  if (anthropic) {
    const write1h = facts.write1h;
    if (!write1h && !facts.anyCacheWrite) assumed.push('cache lifetime not logged: Anthropic’s 5-minute cache');
    const haiku = model?.id.includes('haiku') === true;
    return {
      kind: 'breakpoints',
      lifetimeMs: write1h ? ANTHROPIC_LIFETIME_1H_MS : ANTHROPIC_LIFETIME_MS,
      write1h,
      minPrefix: haiku ? ANTHROPIC_HAIKU_MIN_PREFIX : ANTHROPIC_MIN_PREFIX,
      step: 1,
      warmStart,
      assumed,
    };
  }
  return {
    kind: 'automatic',
    lifetimeMs: AUTOMATIC_LIFETIME_MS,
    write1h: false,
    minPrefix: AUTOMATIC_MIN_PREFIX,
    step: AUTOMATIC_STEP,
    warmStart,
    assumed,
  };
}

/** The rules as the result states them (`config.resolved.cache`): what the view's totals line shows. */
export function cacheSummary(rules: CacheRules): {
  kind: CacheRules['kind'];
  lifetimeMinutes: number;
  writes: '5m' | '1h' | 'none';
  warmStart: number;
  assumed: readonly string[];
} {
  return {
    kind: rules.kind,
    lifetimeMinutes: rules.lifetimeMs / MINUTE,
    writes: rules.kind === 'automatic' ? 'none' : rules.write1h ? '1h' : '5m',
    warmStart: rules.warmStart,
    assumed: rules.assumed,
  };
}

/** One call's request as billed. */
export interface CallSplit {
  readonly uncached: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/**
 * How one request of `request` tokens is billed when `cached` tokens of its prefix are in the
 * cache (already limited to what is unchanged and still alive).
 */
export function splitRequest(rules: CacheRules, request: number, cached: number): CallSplit {
  if (request < rules.minPrefix) return { uncached: request, cacheRead: 0, cacheWrite: 0 };
  const common = Math.max(0, Math.min(cached, request));
  if (rules.kind === 'automatic') {
    const read = common >= rules.minPrefix ? Math.floor(common / rules.step) * rules.step : 0;
    return { uncached: request - read, cacheRead: read, cacheWrite: 0 };
  }
  // The last breakpoint is on the last message: all the rest of the request is written.
  return { uncached: 0, cacheRead: common, cacheWrite: request - common };
}

/** Per-step figures the handler writes (StepArrays holds them). */
export interface CostArrays {
  readonly cacheRead: Float64Array;
  readonly cacheWrite: Float64Array;
  readonly cost: Float64Array;
}

export class CostHandler {
  /** Tokens in the cache after the previous call (its whole prompt), -1 before the first call. */
  private cachedPrefix = -1;
  private compressedSincePrev = false;
  private prevTime: number | undefined = undefined;

  constructor(readonly rules: CacheRules) {}

  /** A copy to go on from (resume.ts continues a kept run and leaves it as it was). */
  clone(): CostHandler {
    return Object.assign(new CostHandler(this.rules), {
      cachedPrefix: this.cachedPrefix,
      compressedSincePrev: this.compressedSincePrev,
      prevTime: this.prevTime,
    });
  }

  /** A compression ran before the coming call: the cache holds only what precedes the first changed message. */
  compressed(): void {
    this.compressedSincePrev = true;
  }

  bill(s: ReplayState, j: number, k: number, request: number, model: ModelInfo | undefined, out?: CostArrays): void {
    const rules = this.rules;
    const times = timesOf(s.messages);
    // When call `k` was sent: the latest timestamp before its response, else the response's.
    const sent = times ? (timeAt(times, k - 1) ?? timeAt(times, k)) : (s.messages[k - 1]?.timestamp ?? s.messages[k]?.timestamp);
    let cached = this.cachedPrefix < 0 ? rules.warmStart : this.cachedPrefix;
    // The cache lived past its lifetime unused: the provider evicted it.
    if (this.prevTime !== undefined && sent !== undefined && sent - this.prevTime > rules.lifetimeMs) cached = 0;
    if (this.compressedSincePrev) cached = Math.min(cached, s.fixed);
    const split = splitRequest(rules, request, cached);
    // The message's `usage?.output ?? perMessage[k]`, from the shape's table (setup.ts).
    const output = s.shape.outputAt[k] === 1 ? s.shape.outputOf[k]! : s.counts.perMessage[k]!;
    const t = s.totals;
    t.billedInputTokens += request;
    t.cachedInputTokens += split.cacheRead;
    t.cacheWriteTokens += split.cacheWrite;
    t.outputTokens += output;
    const cost = model
      ? callCost(model, split.uncached, split.cacheRead, output, rules.write1h ? 0 : split.cacheWrite, rules.write1h ? split.cacheWrite : 0)
      : 0;
    t.cost += cost;
    t.peak = Math.max(t.peak, request);
    if (out) {
      out.cacheRead[j] = split.cacheRead;
      out.cacheWrite[j] = split.cacheWrite;
      out.cost[j] = cost;
    }
    // What this call sent is what the next one finds cached (a prompt too short to cache leaves nothing).
    this.cachedPrefix = request >= rules.minPrefix ? request : 0;
    this.prevTime = (times ? timeAt(times, k) : s.messages[k]?.timestamp) ?? sent ?? this.prevTime;
    this.compressedSincePrev = false;
    s.callsMade++;
  }
}

/**
 * Each message's timestamp (`at`) and whether it has one (`has`), per message list: the bill reads
 * two or three per call, and reading them from the message objects of a 300,000-call session (one
 * cache miss each) was most of the bill's time. A list never changes once made; its length is
 * checked all the same.
 */
interface Times {
  readonly at: Float64Array;
  readonly has: Uint8Array;
}
const timesHeld = new WeakMap<readonly Message[], Times | null>();
/** The table, or undefined when a timestamp is anything but a number or absent (read from the messages then). */
function timesOf(messages: readonly Message[]): Times | undefined {
  let t = timesHeld.get(messages);
  if (t === undefined || (t !== null && t.has.length !== messages.length)) {
    t = timesFrom(messages, 0, undefined);
    timesHeld.set(messages, t);
  }
  return t ?? undefined;
}

/** The table of `messages`, its first `from` entries copied from `held`'s (a list they share). */
function timesFrom(messages: readonly Message[], from: number, held: Times | undefined): Times | null {
  const at = new Float64Array(messages.length);
  const has = new Uint8Array(messages.length);
  if (held) {
    at.set(held.at.subarray(0, from));
    has.set(held.has.subarray(0, from));
  }
  for (let i = from; i < messages.length; i++) {
    const ts: unknown = messages[i]!.timestamp;
    if (ts === undefined) continue;
    if (typeof ts !== 'number') return null;
    at[i] = ts;
    has[i] = 1;
  }
  return { at, has };
}

/** The timestamp table of `old` carried to `next`, which holds `old`'s first `from` messages (core/replay/carry.ts). */
export function carryTimes(old: readonly Message[], next: readonly Message[], from: number): void {
  const held = timesHeld.get(old);
  if (!held || held.has.length !== old.length || timesHeld.has(next) || from > old.length) return;
  timesHeld.set(next, timesFrom(next, from, held));
}

/** Message `i`'s timestamp as `messages[i]?.timestamp` reads it (undefined past either end or without one). */
function timeAt(t: Times, i: number): number | undefined {
  return t.has[i] === 1 ? t.at[i] : undefined;
}

/**
 * LLM calls made beside the agent's loop — S1's full-chunked extraction, one call per chunk
 * (docs/policies.md §S1) — billed with nothing cached at the session model's prices. They count
 * in the tokens and cost the budgets see, not in the agent's turns (S4's turns are loop iterations).
 */
export function billSideCalls(s: ReplayState, input: number, output: number): void {
  const t = s.totals;
  t.billedInputTokens += input;
  t.outputTokens += output;
  if (s.model) t.cost += callCost(s.model, input, 0, output);
}
