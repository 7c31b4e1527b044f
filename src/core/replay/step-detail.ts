/**
 * Everything the debugger shows about one call of a replay (its selected call), derived from the
 * ReplayResult and the session alone: status and reason, the request against the limit the policy
 * enforces and how that limit is derived (core/budget/limits.ts), the trigger, every budget in
 * force with what was used up to the call, the compression that ran before it, exactly what the
 * model receives, and the state of every message at that point (window / summarised / masked /
 * dropped / future), replayed from the compression events up to the call.
 *
 * Cost: one pass over the calls up to the step (budgets) and over the events; nothing kept.
 */
import { DEFAULT_BUFFER, resolveLimits, type WindowSource } from '../budget/limits';
import { callCost, lookupModel, type ModelInfo } from '../catalog';
import type { ReplayConfig } from '../config';
import type { Session } from '../model';
import { isTurnBoundary } from '../turns';
import type { MessageState, SourcedValue, StepDetail } from '../../shared/api';
import { REGIONS, STEP_STATUSES, type BudgetDimension, type MessageRange, type Region, type ReplayEvent, type ReplayResult } from './types';

type Compression = Extract<ReplayEvent, { kind: 'compression' }>;

/** `config.resolved` as core/replay/index.ts records it. */
interface Resolved {
  readonly tokenizer: string;
  readonly window: number;
  readonly maxOutput: number;
  readonly buffer: number;
  readonly limit: number;
  readonly windowSource: WindowSource;
  readonly model: string | null;
  readonly warnings: readonly string[];
}
/** The config a replay ran with: the validated ReplayConfig plus what it resolved. */
type RanConfig = ReplayConfig & { readonly resolved: Resolved };

export class StepDetailError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepDetailError';
  }
}

export interface StepDetailOptions {
  readonly key: string;
  /** Per-message token counts the replay used: the output of a call without reported usage (as the replay bills it). */
  readonly perMessage?: ArrayLike<number>;
  /** Config keys (dotted) the request overrode. */
  readonly overridden?: ReadonlySet<string>;
  /** The policy's own config (before defaults), to tell a policy value from a default. */
  readonly policyConfig?: Readonly<Record<string, unknown>>;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const DIMENSIONS: readonly BudgetDimension[] = ['turns', 'tokens', 'toolCalls', 'cost', 'minutes'];
const STATE_NAMES: readonly MessageState[] = ['window', 'summarised', 'masked', 'dropped', 'future'];
const WINDOW = 0;
const SUMMARISED = 1;
const MASKED = 2;
const DROPPED = 3;
const FUTURE = 4;

function hasKey(config: Readonly<Record<string, unknown>> | undefined, dotted: string): boolean {
  let o: unknown = config;
  for (const part of dotted.split('.')) {
    if (!o || typeof o !== 'object' || !(part in o)) return false;
    o = (o as Record<string, unknown>)[part];
  }
  return o !== undefined;
}

/** Where a setting's value came from: the request's override, the policy, or the schema's default. */
function originOf(key: string, options: StepDetailOptions): string {
  if (options.overridden?.has(key)) return 'override';
  // Without the policy's own config, a value the replay's config holds is the policy's.
  if (!options.policyConfig || hasKey(options.policyConfig, key)) return 'policy';
  return 'default';
}

function windowSourceOf(config: RanConfig, options: StepDetailOptions): string {
  const r = config.resolved;
  switch (r.windowSource) {
    // The replay passes the transcript's reported window as a request when the config sets none.
    case 'request':
      return config.window !== undefined ? originOf('window', options) : 'transcript';
    case 'model':
      return `model catalog (${r.model ?? 'model'})`;
    case 'provider':
      return 'provider default';
    case 'maxOutput×4':
      return 'maxOutput × 4 (S0)';
    default:
      return 'default';
  }
}

function limitOf(r: ReplayResult, config: RanConfig, step: number, options: StepDetailOptions, stepEvents: readonly ReplayEvent[]): StepDetail['limit'] {
  const value = r.steps.limit[step]!;
  const res = config.resolved;
  const guard = stepEvents.find((e): e is Extract<ReplayEvent, { kind: 'guard' }> => e.kind === 'guard' && e.decision === 'skip');
  if (guard?.fallback) {
    // S1: the fallback model takes the call, with its own window and the same buffer.
    const fb = resolveLimits({ model: guard.fallback, buffer: config.buffer, ...(config.maxOutput !== undefined ? { maxOutput: config.maxOutput } : {}) });
    return {
      value,
      formula: `window − buffer − maxOutput of the fallback model ${guard.fallback}`,
      parts: [
        { name: 'window', value: fb.window, source: fb.model ? `model catalog (${fb.model.id})` : 'default' },
        { name: 'buffer', value: fb.buffer, source: originOf('buffer', options) },
        { name: 'maxOutput', value: fb.maxOutput, source: config.maxOutput !== undefined ? originOf('maxOutput', options) : 'default: floor(window / 4)' },
      ],
    };
  }
  const windowPart = { name: 'window', value: res.window, source: windowSourceOf(config, options) };
  if (value === res.limit) {
    return {
      value,
      formula: 'window − buffer − maxOutput',
      parts: [
        windowPart,
        { name: 'buffer', value: res.buffer, source: res.buffer === DEFAULT_BUFFER && !hasKey(options.policyConfig, 'buffer') && !options.overridden?.has('buffer') ? 'default' : originOf('buffer', options) },
        { name: 'maxOutput', value: res.maxOutput, source: config.maxOutput !== undefined ? originOf('maxOutput', options) : 'default: floor(window / 4)' },
      ],
    };
  }
  const trigger = r.steps.trigger[step]!;
  if (value === trigger) {
    const t = triggerOf(r, config, step)!;
    return { value, formula: `the compression trigger: ${t.basis}`, parts: [windowPart] };
  }
  if (config.budget.tokens !== undefined && value === config.budget.tokens) {
    return { value, formula: 'the token budget (budget.tokens)', parts: [{ name: 'budget.tokens', value, source: originOf('budget.tokens', options) }] };
  }
  const pct = Math.round((value / res.window) * 1000) / 10;
  return { value, formula: `${pct}% of the window`, parts: [windowPart] };
}

function triggerOf(r: ReplayResult, config: RanConfig, step: number): StepDetail['trigger'] {
  const value = r.steps.trigger[step]!;
  if (Number.isNaN(value)) return null;
  let basis: string;
  if (config.triggerTokens !== undefined) basis = `triggerTokens ${fmt(config.triggerTokens)} (absolute)`;
  else if (config.autoCompact) {
    const a = config.autoCompact;
    basis = `auto-compact threshold min(floor((window − ${fmt(a.reserve)}) × ${a.pct}), window − ${fmt(a.cap)})`;
  } else basis = `${Math.round(config.trigger * 1000) / 10}% of the ${config.triggerBasis === 'limit' ? 'limit (window − buffer − maxOutput)' : 'window'}`;
  return { value, basis };
}

/** Used-so-far of every budget dimension at the call, as core/replay/budgets.ts is given it. */
function budgetsOf(r: ReplayResult, session: Session, config: RanConfig, step: number, options: StepDetailOptions, compressedAt: ReadonlySet<number>, fallbackAt: ReadonlyMap<number, string>): StepDetail['budgets'] {
  const b = config.budget;
  const inForce = DIMENSIONS.filter((d) => b[d] !== undefined);
  if (inForce.length === 0) return [];
  const s = r.steps;
  const messages = session.messages;
  const model: ModelInfo | undefined = lookupModel(config.resolved.model ?? undefined);
  let turns = 0;
  let toolCalls = 0;
  let entered = 0;
  let billed = 0;
  let outputTokens = 0;
  let cost = 0;
  let prevTotal = -1;
  let lastMsg = 0;
  for (let t = 0; t <= step; t++) {
    const k = s.messageIndex[t]!;
    for (let i = entered; i < k; i++) {
      const m = messages[i]!;
      if (isTurnBoundary(m)) turns++;
      for (const p of m.parts) if (p.kind === 'tool_call') toolCalls++;
    }
    entered = k;
    lastMsg = k;
    // The replay bills the unchanged prefix since the previous call as cached (core/replay/index.ts).
    const request = s.total[t]!;
    const fixed = s.regions.system[t]! + s.regions.unlogged[t]! + s.regions.tools[t]!;
    const cached = prevTotal < 0 ? 0 : compressedAt.has(t) ? Math.min(request, fixed) : Math.min(prevTotal, request);
    const out = messages[k]!.usage?.output ?? options.perMessage?.[k] ?? 0;
    billed += request;
    outputTokens += out;
    const callModel = fallbackAt.has(t) ? lookupModel(fallbackAt.get(t)) : model;
    if (callModel) cost += callCost(callModel, request - cached, cached, out);
    prevTotal = request;
    // After a final / abort the later calls never happen: nothing more is used.
    const code = STEP_STATUSES[s.status[t]!];
    if (code === 'final' || code === 'abort') break;
  }
  const start = messages.find((m) => m.timestamp !== undefined)?.timestamp;
  const at = messages[lastMsg]?.timestamp;
  const minutes = start !== undefined && at !== undefined ? (at - start) / 60_000 : 0;
  const used: Record<BudgetDimension, number> = { turns, tokens: billed + outputTokens, toolCalls, cost, minutes };
  return inForce.map((d) => {
    const limit = b[d]!;
    return { dimension: d, used: used[d], limit, pct: Math.round((used[d] / limit) * 1000) / 10 };
  });
}

function mergeRanges(ranges: readonly MessageRange[]): MessageRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/**
 * Which of a compression's removed messages went into the summary. A compression event records
 * what left the window and the summary after it; when the summary changed (and the path was not
 * S0's emergency drop, which only appends a note) what left was folded into it.
 */
function foldedBy(e: Compression, summaryBefore: string | null): boolean {
  return e.path !== 'emergency' && e.summary !== undefined && e.summary !== summaryBefore;
}

function runsOf(state: Uint8Array, from: number, to: number, pick: (s: number) => boolean): MessageRange[] {
  const out: MessageRange[] = [];
  let a = -1;
  for (let i = from; i <= to; i++) {
    if (pick(state[i]!)) {
      if (a < 0) a = i;
    } else if (a >= 0) {
      out.push([a, i - 1]);
      a = -1;
    }
  }
  if (a >= 0) out.push([a, to]);
  return out;
}

export function stepDetail(r: ReplayResult, session: Session, step: number, options: StepDetailOptions): StepDetail {
  const s = r.steps;
  if (!Number.isInteger(step) || step < 0 || step >= s.count) {
    throw new StepDetailError(`step ${step} does not exist: this replay has ${s.count} call${s.count === 1 ? '' : 's'} (0–${Math.max(0, s.count - 1)})`);
  }
  const config = r.config as unknown as RanConfig;
  const messages = session.messages;
  const n = messages.length;
  const k = s.messageIndex[step]!;

  // One pass over the events up to the call: the message states, the summary in force, this call's events.
  const state = new Uint8Array(n);
  state.fill(FUTURE, k);
  const stepEvents: ReplayEvent[] = [];
  const compressedAt = new Set<number>();
  const fallbackAt = new Map<number, string>();
  let summary: string | null = null;
  let compression: StepDetail['compression'] = null;
  let lastKept: readonly MessageRange[] | null = null;
  for (const e of r.events) {
    if (e.step > step) continue;
    if (e.step === step) stepEvents.push(e);
    if (e.kind === 'guard' && e.decision === 'skip' && e.fallback) fallbackAt.set(e.step, e.fallback);
    if (e.kind !== 'compression') continue;
    compressedAt.add(e.step);
    const folded = foldedBy(e, summary);
    for (const [a, z] of e.dropped) for (let i = a; i <= Math.min(z, k - 1); i++) if (state[i] === WINDOW || state[i] === MASKED) state[i] = folded ? SUMMARISED : DROPPED;
    for (const [a, z] of e.masked ?? []) for (let i = a; i <= Math.min(z, k - 1); i++) if (state[i] === WINDOW) state[i] = MASKED;
    lastKept = e.kept;
    if (e.step === step) {
      compression = {
        path: e.path,
        strategy: e.strategy,
        tokensBefore: e.tokensBefore,
        tokensAfter: e.tokensAfter,
        dropped: folded ? [] : e.dropped,
        masked: e.masked ?? [],
        summarised: folded ? e.dropped : [],
        summary: e.summary ?? null,
        summaryBefore: summary,
        // Compression only removes: the history before it is what it kept plus what it removed.
        before: mergeRanges([...e.dropped, ...e.kept]),
        note: e.note ?? '',
      };
    }
    summary = e.summary ?? null;
  }
  // Whatever the last compression left out of its window (below its end) is gone, listed or not.
  if (lastKept && lastKept.length > 0) {
    const end = Math.min(lastKept[lastKept.length - 1]![1], k - 1);
    let r0 = 0;
    for (let i = 0; i <= end; i++) {
      while (r0 < lastKept.length && lastKept[r0]![1] < i) r0++;
      const inKept = r0 < lastKept.length && lastKept[r0]![0] <= i;
      if (!inKept && (state[i] === WINDOW || state[i] === MASKED)) state[i] = DROPPED;
    }
  }

  const messageStates: [number, number, MessageState][] = [];
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && state[j + 1] === state[i]) j++;
    messageStates.push([i, j, STATE_NAMES[state[i]!]!]);
    i = j + 1;
  }
  const inRequest = (x: number): boolean => x === WINDOW || x === MASKED;
  const historyRanges = k > 0 ? runsOf(state, 0, k - 1, inRequest) : [];
  const maskedRanges = k > 0 ? runsOf(state, 0, k - 1, (x) => x === MASKED) : [];
  let historyMessages = 0;
  for (const [a, z] of historyRanges) historyMessages += z - a + 1;

  const regions = {} as Record<Region, number>;
  for (const key of REGIONS) regions[key] = s.regions[key][step]!;
  const reported = s.reported[step]!;
  const res = config.resolved;

  return {
    key: options.key,
    step,
    stepCount: s.count,
    messageIndex: k,
    turn: s.turn[step]!,
    status: STEP_STATUSES[s.status[step]!]!,
    reason: s.reasons[s.reasonIndex[step]!] ?? '',
    request: s.total[step]!,
    reported: Number.isNaN(reported) ? null : reported,
    regions,
    window: { value: res.window, source: windowSourceOf(config, options) } satisfies SourcedValue,
    limit: limitOf(r, config, step, options, stepEvents),
    trigger: triggerOf(r, config, step),
    budgets: budgetsOf(r, session, config, step, options, compressedAt, fallbackAt),
    compression,
    context: {
      system: { tokens: regions.system, text: session.systemPrompt },
      unlogged: { tokens: regions.unlogged, inferred: true },
      summary: { tokens: regions.summary, text: summary },
      history: { tokens: regions.history, messages: historyMessages, ranges: historyRanges, masked: maskedRanges },
      tools: { tokens: regions.tools, names: session.tools.map((t) => t.name) },
    },
    messageStates,
    events: stepEvents,
  };
}
