/**
 * The budget handler (docs/policies.md §Common, budgets; §S4): the session, task and agent layers
 * of S3, each with its mode — hard (the call is not made: the run aborts), soft (warn and go on),
 * approval (a human must confirm: shown as a warning) — its warning threshold and backpressure;
 * S4's hard limits are a session layer checked at the start of each call (`used ≥ max`, S4's
 * turns being LLM calls). Called before each call with what the calls before it used.
 */
import {
  backpressureDelayMs,
  BUDGET_DIMENSIONS,
  dimensionCheck,
  fmt,
  fmtMax,
  type BudgetDimensionName,
  type BudgetLayer,
  type BudgetLayerName,
  type BudgetUsage,
} from '../budget/layers';
import type { BudgetLayerConfig, ReplayConfig } from '../config';
import type { Message } from '../model';
import type { ReplayEvent } from './types';
import type { DeferredReason, StepDecision } from './state';
import { plainRounded, templateHint } from './steps';

/**
 * Minutes the calls before the one at message `k` used (docs/policies.md §S4: checked at the start
 * of each call with what the calls before it used): from the session's first timestamp to the
 * moment the call is sent — the timestamp of the last message before it that has one (the prompt
 * or tool result it answers). The call's own response time is not counted: a call sent at 29.5
 * minutes is checked at 29.5, whenever its answer came. 0 without timestamps.
 */
export function minutesBeforeCall(messages: readonly Message[], k: number): number {
  const sent = sentTimes(messages);
  const t = sent.at[k];
  return sent.start === undefined || t === undefined || Number.isNaN(t) ? 0 : (t - sent.start) / 60_000;
}

/** Per message list: the session's first timestamp, and for each message the last timestamp before it (NaN: none). */
const sentCache = new WeakMap<readonly Message[], { readonly start: number | undefined; readonly at: Float64Array }>();
function sentTimes(messages: readonly Message[]): { readonly start: number | undefined; readonly at: Float64Array } {
  let held = sentCache.get(messages);
  if (!held) {
    const at = new Float64Array(messages.length);
    let last = NaN;
    let start: number | undefined;
    for (let i = 0; i < messages.length; i++) {
      at[i] = last;
      const ts = messages[i]!.timestamp;
      if (ts !== undefined) {
        last = ts;
        start ??= ts;
      }
    }
    sentCache.set(messages, (held = { start, at }));
  }
  return held;
}

interface Layer extends BudgetLayer {
  readonly config: BudgetLayerConfig;
}

function layerOf(name: BudgetLayerName, b: BudgetLayerConfig): Layer | null {
  const limits = {
    turns: b.turns ?? Infinity,
    tokens: b.tokens ?? Infinity,
    toolCalls: b.toolCalls ?? Infinity,
    cost: b.cost ?? Infinity,
    minutes: b.minutes ?? Infinity,
  };
  if (!BUDGET_DIMENSIONS.some((d) => Number.isFinite(limits[d]))) return null;
  return { name, limits, mode: b.mode, warningThreshold: b.warningThreshold, rule: b.includeRequest ? 'projected' : 'used', config: b };
}

const unit = (d: string): string => (d === 'turns' ? ' calls' : '');

export class BudgetHandler {
  private readonly layers: readonly Layer[];
  /** False when no budget is set: the replay skips the handler entirely. */
  readonly active: boolean;
  /** Exceeded (layer, dimension) pairs already announced by an event: layer index × dimensions + dimension. */
  private readonly warned = new Set<number>();
  private lastDelay = 0;

  constructor(config: ReplayConfig) {
    this.layers = [layerOf('session', config.budget), layerOf('task', config.taskBudget), layerOf('agent', config.agentBudget)].filter(
      (l): l is Layer => l !== null,
    );
    this.active = this.layers.length > 0;
  }

  /** A copy to go on from (resume.ts continues a kept run and leaves it as it was). */
  clone(): BudgetHandler {
    return Object.assign(Object.create(BudgetHandler.prototype) as BudgetHandler, this, { warned: new Set(this.warned) });
  }

  /**
   * The status `check` sets, in numbers only: no text, no events, no backpressure levels (a lean
   * replay, ReplayOptions.detail 'totals'). Per dimension checkBudget's own arithmetic (dimensionCheck): a hard
   * layer over its limit aborts; any other layer over it, or one past its warning threshold, warns.
   */
  verdict(used: BudgetUsage, request: number, d: StepDecision): void {
    let warn = false;
    const pending = { tokens: request };
    for (const layer of this.layers) {
      let exceeded = false;
      let warned = false;
      for (const dim of BUDGET_DIMENSIONS) {
        const c = dimensionCheck(layer, dim, used, pending);
        if (!c) continue;
        if (c.over) {
          exceeded = true;
          break;
        }
        if (c.now / c.max > layer.warningThreshold) warned = true;
      }
      if (exceeded && layer.mode === 'hard') {
        d.status = 'abort';
        return;
      }
      if (exceeded || warned) warn = true;
    }
    if (warn && d.status === 'ok') d.status = 'warn';
  }

  /**
   * The verdict for the call of `step`: `used` before it, `request` the tokens it would send.
   * checkBudget's verdict per layer, with only what this reads worked out: the layer's usage, its
   * first exceeded dimension, its first warning. A warning's reason is kept as numbers and worded
   * when read (a soft budget warns at every call, each time with new figures).
   */
  check(step: number, used: BudgetUsage, request: number, d: StepDecision, events: ReplayEvent[]): void {
    let hard: { layer: Layer; dimension: (typeof BUDGET_DIMENSIONS)[number]; used: number; max: number } | undefined;
    let warning: DeferredReason | undefined;
    let usage = 0;
    let pressured = false;
    const pending = { tokens: request };
    for (let l = 0; l < this.layers.length; l++) {
      const layer = this.layers[l]!;
      let layerUsage = 0;
      let over = -1;
      let overUsed = 0;
      let overMax = 0;
      let warned = -1;
      let warnedNow = 0;
      let warnedMax = 0;
      for (let q = 0; q < BUDGET_DIMENSIONS.length; q++) {
        const c = dimensionCheck(layer, BUDGET_DIMENSIONS[q]!, used, pending);
        if (!c) continue;
        layerUsage = Math.max(layerUsage, c.now / c.max);
        if (c.over) {
          if (over < 0) {
            over = q;
            overUsed = c.next;
            overMax = c.max;
          }
        } else if (warned < 0 && c.now / c.max > layer.warningThreshold) {
          warned = q;
          warnedNow = c.now;
          warnedMax = c.max;
        }
      }
      if (layer.config.backpressure) {
        usage = Math.max(usage, layerUsage);
        pressured = true;
      }
      if (over >= 0 && layer.mode === 'hard') {
        hard ??= { layer, dimension: BUDGET_DIMENSIONS[over]!, used: overUsed, max: overMax };
      } else if (over >= 0) {
        const exceeded: DeferredReason = {
          words: budgetWords,
          n0: layer.mode === 'approval' ? EXCEEDED_APPROVAL : EXCEEDED_SOFT,
          n1: over,
          n2: overUsed,
          n3: overMax,
          n4: 0,
          n5: 0,
          name: layer.name,
        };
        warning ??= exceeded;
        // One event when a budget is first exceeded; every later call still carries the status.
        const key = l * BUDGET_DIMENSIONS.length + over;
        if (!this.warned.has(key)) events.push({ kind: 'warning', step, text: budgetText(exceeded) });
        this.warned.add(key);
      } else if (warned >= 0)
        warning ??= { words: budgetWords, n0: PAST_THRESHOLD, n1: warned, n2: warnedNow, n3: warnedMax, n4: 0, n5: 0, name: layer.name };
    }
    if (hard) {
      const { layer, dimension, used: u, max } = hard;
      d.status = 'abort';
      d.reason = `${layer.name} ${dimension} budget exceeded (${fmt(u, dimension)}${unit(dimension)} of ${fmtMax(max, dimension)}): run aborted`;
      events.push({ kind: 'abort', step, budget: dimension, used: u, max, layer: layer.name });
    } else if (warning && d.status === 'ok') {
      d.status = 'warn';
      d.reason = '';
      d.deferred = warning;
    }
    if (pressured) {
      // S3 delays every call past 80%; an event marks each change of level (50 → 300 → 750 → 1,500 ms).
      const delay = backpressureDelayMs(usage);
      if (delay !== this.lastDelay && delay > 0) events.push({ kind: 'backpressure', step, delayMs: delay, usage });
      this.lastDelay = delay;
    }
  }
}

/** What a budget warning says (budgetWords' n0): past the warning threshold, or exceeded in soft or approval mode. */
const PAST_THRESHOLD = 0;
const EXCEEDED_SOFT = 1;
const EXCEEDED_APPROVAL = 2;

/** A budget warning's text (DeferredReason): n0 what it says, n1 the dimension's index, n2 the usage, n3 the limit; `name` the layer. */
export function budgetWords(n: ArrayLike<number>, at: number, name: string): string {
  const dimension = BUDGET_DIMENSIONS[n[at + 1]!]!;
  const amount = n[at + 2]!;
  const max = n[at + 3]!;
  const kind = n[at]!;
  if (kind === PAST_THRESHOLD)
    return `${name} ${dimension} budget at ${Math.round((amount / max) * 100)}% (${fmt(amount, dimension)} of ${fmtMax(max, dimension)})`;
  const mode = kind === EXCEEDED_APPROVAL ? 'approval' : 'soft';
  return `${name} ${dimension} budget exceeded (${fmt(amount, dimension)}${unit(dimension)} of ${fmtMax(max, dimension)}; ${mode} mode${mode === 'approval' ? ': approval required' : ''})`;
}

/** Whether `fmt` (or `fmtMax`) writes `x` of `d` as one run of digits, commas and points, with the same words around it whatever it is. */
function plainFigure(x: number, d: BudgetDimensionName, max: boolean): boolean {
  if (d === 'cost') {
    // `$` and toFixed's digits; a budget's own odd figure as String writes it (1e-7 is not plain).
    if (!(x >= 0 && x < 1e21)) return false;
    return !max || Math.round(x * 100) === x * 100 || !String(x).includes('e');
  }
  if (d === 'minutes') return plainRounded(x * 10);
  return plainRounded(x);
}

// The template of a budget warning without wording it (steps.ts TemplateHint): its words change
// only with what it says and the dimension (and the layer's name, which the template is kept by).
// S3's budgets warn at every call past the threshold, each with its own figures: a chart of such
// a replay worded ~9,000 reasons to find their templates (15–25 ms per chart view, 10,000 calls).
templateHint(budgetWords, {
  key: (n, at) => {
    const kind = n[at]!;
    const dim = n[at + 1]!;
    const d = BUDGET_DIMENSIONS[dim];
    if (d === undefined || !(kind === PAST_THRESHOLD || kind === EXCEEDED_SOFT || kind === EXCEEDED_APPROVAL)) return -1;
    const amount = n[at + 2]!;
    const max = n[at + 3]!;
    if (!plainFigure(amount, d, false) || !plainFigure(max, d, true)) return -1;
    if (kind === PAST_THRESHOLD && !plainRounded((amount / max) * 100)) return -1;
    return kind * BUDGET_DIMENSIONS.length + dim;
  },
  standIn: (n, at) => [n[at]!, n[at + 1]!, 1, 1, 0, 0],
});

function budgetText(r: DeferredReason): string {
  return budgetWords([r.n0, r.n1, r.n2, r.n3], 0, r.name);
}
