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
import type { MessageState, SourcedValue, StepDetail } from '../view/replay-view';
import { minutesBeforeCall } from './budgets';
import { compressionsOf, otherEvents } from './compressions';
import { stepReason } from './steps';
import { ledgersAtStep } from './ledger';
import {
  REGIONS,
  STEP_STATUSES,
  type BudgetDimension,
  type CompressionPath,
  type MessageRange,
  type Region,
  type ReplayEvent,
  type ReplayResult,
} from './types';
import { mergeRanges } from '../strategies/util';
import { sameSummary, summaryOf, type SummaryText } from '../summarize/summary-text';

type Compression = Extract<ReplayEvent, { kind: 'compression' }>;

/**
 * `config.resolved` as core/replay/index.ts records it. The enforced limit, its basis and the
 * trigger's basis are read when the replay records them (docs/policies.md §Common), and inferred
 * from the numbers when it does not.
 */
interface Resolved {
  readonly tokenizer: string;
  readonly window: number;
  readonly maxOutput: number;
  readonly buffer: number;
  readonly limit: number;
  readonly windowSource: WindowSource | 'transcript';
  readonly maxOutputSource?: string;
  readonly bufferSource?: string;
  readonly enforcedLimit?: number;
  /** How the enforced limit is derived, in words ("window − buffer − maxOutput", "trigger", "token budget", …). */
  readonly enforcedLimitBasis?: string;
  /** What the trigger is a ratio of ("window", "limit", "token budget"). */
  readonly triggerBasis?: string;
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

const fmt = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const DIMENSIONS: readonly BudgetDimension[] = ['turns', 'tokens', 'toolCalls', 'cost', 'minutes'];
const STATE_NAMES: readonly MessageState[] = ['window', 'summarised', 'masked', 'dropped', 'future'];
const WINDOW = 0;
const SUMMARISED = 1;
const MASKED = 2;
const DROPPED = 3;
const FUTURE = 4;
const GUARD_FORMULA = 'window − buffer − maxOutput';

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
    case 'request':
      // An older replay passed the transcript's reported window as a request when the config set none.
      return config.window !== undefined ? originOf('window', options) : 'transcript';
    case 'transcript':
      return 'transcript';
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

/** window, buffer and maxOutput with where each came from (S1: limit = window − buffer − maxOutput). */
function guardParts(config: RanConfig, options: StepDetailOptions): ({ name: string } & SourcedValue)[] {
  const res = config.resolved;
  const bufferDefault =
    res.bufferSource !== undefined
      ? res.bufferSource === 'default'
      : res.buffer === DEFAULT_BUFFER && !hasKey(options.policyConfig, 'buffer') && !options.overridden?.has('buffer');
  const maxOutputSet = res.maxOutputSource !== undefined ? res.maxOutputSource === 'request' : config.maxOutput !== undefined;
  return [
    { name: 'window', value: res.window, source: windowSourceOf(config, options) },
    { name: 'buffer', value: res.buffer, source: bufferDefault ? 'default' : originOf('buffer', options) },
    { name: 'maxOutput', value: res.maxOutput, source: maxOutputSet ? originOf('maxOutput', options) : 'default: floor(window / 4)' },
  ];
}

function limitOf(
  r: ReplayResult,
  config: RanConfig,
  step: number,
  options: StepDetailOptions,
  stepEvents: readonly ReplayEvent[],
): StepDetail['limit'] {
  const value = r.steps.limit[step]!;
  const res = config.resolved;
  const guard = stepEvents.find((e): e is Extract<ReplayEvent, { kind: 'guard' }> => e.kind === 'guard' && e.decision === 'skip');
  if (guard?.fallback && value !== (res.enforcedLimit ?? res.limit)) {
    // S1: the fallback model takes the call, with its own window and the same buffer.
    const fb = resolveLimits({
      model: guard.fallback,
      buffer: config.buffer,
      ...(config.maxOutput !== undefined ? { maxOutput: config.maxOutput } : {}),
    });
    return {
      value,
      formula: `${GUARD_FORMULA} of the fallback model ${guard.fallback}`,
      parts: [
        { name: 'window', value: fb.window, source: fb.model ? `model catalog (${fb.model.id})` : 'default' },
        { name: 'buffer', value: fb.buffer, source: originOf('buffer', options) },
        {
          name: 'maxOutput',
          value: fb.maxOutput,
          source: config.maxOutput !== undefined ? originOf('maxOutput', options) : 'default: floor(window / 4)',
        },
      ],
    };
  }
  const trigger = r.steps.trigger[step]!;
  // The basis the replay recorded, else the one the numbers match.
  const basis =
    res.enforcedLimitBasis !== undefined && value === res.enforcedLimit
      ? res.enforcedLimitBasis
      : value === res.limit
        ? GUARD_FORMULA
        : value === trigger
          ? 'trigger'
          : config.budget.tokens !== undefined && value === config.budget.tokens
            ? 'token budget'
            : value === res.window
              ? 'window'
              : `${Math.round((value / res.window) * 1000) / 10}% of the window`;
  const windowPart = guardParts(config, options)[0]!;
  switch (basis) {
    case GUARD_FORMULA:
      return { value, formula: GUARD_FORMULA, parts: guardParts(config, options) };
    case 'limit':
      return { value, formula: `the limit: ${GUARD_FORMULA}`, parts: guardParts(config, options) };
    case 'trigger': {
      const t = triggerOf(r, config, step);
      return { value, formula: t ? `the compression trigger: ${t.basis}` : 'the compression trigger', parts: [windowPart] };
    }
    case 'token budget':
      return {
        value,
        formula: 'the token budget (budget.tokens)',
        parts: [{ name: 'budget.tokens', value, source: originOf('budget.tokens', options) }],
      };
    default:
      return { value, formula: basis, parts: [windowPart] };
  }
}

function triggerOf(r: ReplayResult, config: RanConfig, step: number): StepDetail['trigger'] {
  const value = r.steps.trigger[step]!;
  if (Number.isNaN(value)) return null;
  const res = config.resolved;
  let basis: string;
  if (config.triggerTokens !== undefined) basis = `triggerTokens ${fmt(config.triggerTokens)} (absolute)`;
  else if (config.autoCompact) {
    const a = config.autoCompact;
    const raw = Math.min(Math.floor((res.window - a.reserve) * a.pct), res.window - a.cap);
    basis = `auto-compact threshold min(floor((window − ${fmt(a.reserve)}) × ${a.pct}), window − ${fmt(a.cap)})${raw !== value ? ` = ${fmt(raw)}, clamped to ${fmt(value)}` : ''}`;
  } else {
    const of = res.triggerBasis ?? (config.triggerBasis === 'limit' ? 'limit' : 'window');
    basis = `${Math.round(config.trigger * 1000) / 10}% of the ${of === 'limit' ? `limit (${GUARD_FORMULA})` : of}`;
  }
  return { value, basis };
}

/** S3's budget layers as the config names them: the session's `budget`, and any other `…Budget` object with a mode. */
function budgetLayers(config: RanConfig): { name: string; limits: Readonly<Record<string, unknown>> }[] {
  const out: { name: string; limits: Readonly<Record<string, unknown>> }[] = [];
  for (const [key, value] of Object.entries(config)) {
    if ((key !== 'budget' && !key.endsWith('Budget')) || !value || typeof value !== 'object' || !('mode' in value)) continue;
    out.push({ name: key === 'budget' ? 'session' : key.slice(0, -'Budget'.length), limits: value as Readonly<Record<string, unknown>> });
  }
  return out;
}

/**
 * What every budget in force had used when the call was about to be made (docs/policies.md
 * §Common, budgets: checked before each call with what the calls before it used): calls made
 * (S4 counts its turns as LLM calls), billed input + output tokens (with S1's full-chunked
 * extraction calls), tool calls that arrived, cost, and transcript minutes.
 */
function budgetsOf(
  r: ReplayResult,
  session: Session,
  config: RanConfig,
  step: number,
  options: StepDetailOptions,
  compressedAt: ReadonlySet<number>,
  fallbackAt: ReadonlyMap<number, string>,
): StepDetail['budgets'] {
  const layers = budgetLayers(config).filter((l) => DIMENSIONS.some((d) => typeof l.limits[d] === 'number'));
  if (layers.length === 0) return [];
  const s = r.steps;
  const messages = session.messages;
  const model: ModelInfo | undefined = lookupModel(config.resolved.model ?? undefined);
  let calls = 0;
  let billed = 0;
  let outputTokens = 0;
  let cost = 0;
  let prevTotal = -1;
  for (let t = 0; t < step; t++) {
    // An aborted call is not made; after a forced final turn no call is.
    const code = STEP_STATUSES[s.status[t]!];
    if (code === 'abort') break;
    const k = s.messageIndex[t]!;
    // The replay bills the unchanged prefix since the previous call as cached (docs/policies.md §Common, cost).
    const request = s.total[t]!;
    const fixed = s.regions.system[t]! + s.regions.unlogged[t]! + s.regions.tools[t]!;
    const cached = prevTotal < 0 ? 0 : compressedAt.has(t) ? Math.min(request, fixed) : Math.min(prevTotal, request);
    const out = messages[k]!.usage?.output ?? options.perMessage?.[k] ?? 0;
    calls++;
    billed += request;
    outputTokens += out;
    const callModel = fallbackAt.has(t) ? lookupModel(fallbackAt.get(t)) : model;
    // The cost the replay billed the call (cache reads and writes by provider, cost.ts); a result without it, the simple rule.
    if (s.cost) cost += s.cost[t]!;
    else if (callModel) cost += callCost(callModel, request - cached, cached, out);
    prevTotal = request;
    if (code === 'final') break;
  }
  // S1's full-chunked extraction calls made before this call (as its tool outputs arrived) are billed too.
  for (const e of otherEvents(r)) {
    if (e.step > step || e.kind !== 'tool-preflight' || e.chunkInput === undefined) continue;
    billed += e.chunkInput;
    outputTokens += e.chunkOutput ?? 0;
    if (model) cost += callCost(model, e.chunkInput, 0, e.chunkOutput ?? 0);
  }
  // Tool calls are counted as the messages carrying them arrive, up to this call.
  const k = s.messageIndex[step]!;
  let toolCalls = 0;
  for (let i = 0; i < k; i++) for (const p of messages[i]!.parts) if (p.kind === 'tool_call') toolCalls++;
  // Up to the moment the call is sent, as the replay checked it (replay/budgets.ts minutesBeforeCall).
  const minutes = k < messages.length ? minutesBeforeCall(messages, k) : 0;
  const used: Record<BudgetDimension, number> = { turns: calls, tokens: billed + outputTokens, toolCalls, cost, minutes };
  const out: StepDetail['budgets'][number][] = [];
  for (const layer of layers) {
    for (const d of DIMENSIONS) {
      const limit = layer.limits[d];
      if (typeof limit !== 'number') continue;
      // A layer that projects counts the tokens this call would send (docs/policies.md §Common, budgets).
      const pending = d === 'tokens' && layer.limits['includeRequest'] === true ? s.total[step]! : 0;
      out.push({
        layer: layer.name,
        dimension: d,
        used: used[d],
        ...(pending > 0 ? { pending } : {}),
        limit,
        pct: Math.round(((used[d] + pending) / limit) * 1000) / 10,
      });
    }
  }
  return out;
}

/**
 * Which of a compression's removed messages went into the summary. A compression event records
 * what left the window and the summary after it; when the summary changed (and the path was not
 * S0's emergency drop, which only appends a note) what left was folded into it.
 */
function foldedBy(path: CompressionPath, summary: SummaryText | null, summaryBefore: SummaryText | null): boolean {
  return path !== 'emergency' && summary !== null && !sameSummary(summary, summaryBefore);
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
    throw new StepDetailError(
      s.count === 0
        ? `step ${step} does not exist: this replay has no calls (the session has no assistant message)`
        : `step ${step} does not exist: this replay has ${s.count} call${s.count === 1 ? '' : 's'} (0–${s.count - 1})`,
    );
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
  // Summaries, not their texts: only the ones this call shows are written (summary-text.ts).
  let summary: SummaryText | null = null;
  let compression: StepDetail['compression'] = null;
  let lastKept: readonly MessageRange[] | null = null;
  const preflight: Extract<ReplayEvent, { kind: 'tool-preflight' }>[] = [];
  // A compression before the call, in order: its removals marked in `state`. `pairs` gives its
  // dropped and masked ranges; `event` its event object, made only for this call's compressions.
  const compressionAt = (
    at: number,
    path: CompressionPath,
    after: SummaryText | null,
    dropped: (visit: (a: number, z: number) => void) => void,
    masked: (visit: (a: number, z: number) => void) => void,
    event: () => Compression,
  ): void => {
    compressedAt.add(at);
    const folded = foldedBy(path, after, summary);
    dropped((a, z) => {
      for (let i = a; i <= Math.min(z, k - 1); i++)
        if (state[i] === WINDOW || state[i] === MASKED) state[i] = folded ? SUMMARISED : DROPPED;
    });
    masked((a, z) => {
      for (let i = a; i <= Math.min(z, k - 1); i++) if (state[i] === WINDOW) state[i] = MASKED;
    });
    if (at === step) {
      const e = event();
      stepEvents.push(e);
      compression = {
        path: e.path,
        strategy: e.strategy,
        tokensBefore: e.tokensBefore,
        tokensAfter: e.tokensAfter,
        dropped: folded ? [] : e.dropped,
        masked: e.masked ?? [],
        summarised: folded ? e.dropped : [],
        summary: after?.text ?? null,
        summaryBefore: summary?.text ?? null,
        // Compression only removes: the history before it is what it kept plus what it removed.
        before: mergeRanges([...e.dropped, ...e.kept]),
        note: e.note ?? '',
      };
    }
    summary = after;
  };
  const other = (e: ReplayEvent): void => {
    if (e.step === step) stepEvents.push(e);
    if (e.kind === 'tool-preflight' && e.messageIndex < k) preflight.push(e);
    if (e.kind === 'guard' && e.decision === 'skip' && e.fallback) fallbackAt.set(e.step, e.fallback);
  };
  const cols = compressionsOf(r);
  if (cols) {
    // From the columns (compressions.ts): no event object for a compression before the call. The
    // other events are visited where they were recorded among the compressions (this call's events in order).
    const { log, others } = cols;
    let o = 0;
    let lastRow = -1;
    for (let c = 0; c < cols.count && log.step[c]! <= step; c++) {
      for (const at = Math.min(log.at[c]!, cols.otherCount); o < at; o++) if (others[o]!.step <= step) other(others[o]!);
      const from = log.droppedAt[c]!;
      const mid = log.maskedAt[c]!;
      const to = log.droppedAt[c + 1]!;
      const ranges = log.ranges;
      compressionAt(
        log.step[c]!,
        log.pathOf(c),
        log.summaries[c]!,
        (visit) => {
          for (let q = from; q < mid; q++) visit(ranges[2 * q]!, ranges[2 * q + 1]!);
        },
        (visit) => {
          for (let q = mid; q < to; q++) visit(ranges[2 * q]!, ranges[2 * q + 1]!);
        },
        () => log.event(c),
      );
      lastRow = c;
    }
    for (; o < cols.otherCount; o++) if (others[o]!.step <= step) other(others[o]!);
    lastKept = lastRow >= 0 ? log.kept(lastRow) : null;
  } else {
    for (const e of r.events) {
      if (e.step > step) continue;
      if (e.kind !== 'compression') {
        other(e);
        continue;
      }
      compressionAt(
        e.step,
        e.path,
        summaryOf(e) ?? null,
        (visit) => {
          for (const [a, z] of e.dropped) visit(a, z);
        },
        (visit) => {
          for (const [a, z] of e.masked ?? []) visit(a, z);
        },
        () => e,
      );
      lastKept = e.kept;
    }
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

  // Messages the original agent itself sent as placeholders from an earlier call on (docs/policies.md §Common, messages as sent).
  const sentAs: { messageIndex: number; text: string }[] = [];
  for (let i = 0; i < k; i++) {
    const sent = messages[i]!.sentAs;
    if (!sent || sent.fromMessage > k || (state[i] !== WINDOW && state[i] !== MASKED)) continue;
    state[i] = MASKED;
    sentAs.push({ messageIndex: i, text: sent.text });
  }

  const messageStates: [number, number, MessageState][] = [];
  for (let i = 0; i < n;) {
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
  const reduced = preflight
    .filter((e) => inRequest(state[e.messageIndex]!))
    .map((e) => ({ messageIndex: e.messageIndex, action: e.action, bytesBefore: e.bytesBefore, bytesAfter: e.bytesAfter }));

  const regions = {} as Record<Region, number>;
  for (const key of REGIONS) regions[key] = s.regions[key][step]!;
  const reported = s.reported[step]!;
  const res = config.resolved;

  // The loss ledger only where something left the view at this call (ledger.ts: made on request, never by the replay).
  const ledger = compression !== null || stepEvents.some((e) => e.kind === 'source-compaction') ? ledgersAtStep(r, session, step) : [];
  return {
    key: options.key,
    step,
    stepCount: s.count,
    messageIndex: k,
    turn: s.turn[step]!,
    status: STEP_STATUSES[s.status[step]!]!,
    reason: stepReason(s, step),
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
      summary: { tokens: regions.summary, text: (summary as SummaryText | null)?.text ?? null },
      history: { tokens: regions.history, messages: historyMessages, ranges: historyRanges, masked: maskedRanges, reduced, sentAs },
      tools: { tokens: regions.tools, names: session.tools.map((t) => t.name) },
    },
    messageStates,
    events: stepEvents,
    ...(ledger.length > 0 ? { ledger } : {}),
  };
}
