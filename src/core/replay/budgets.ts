/**
 * The budget handler (docs/policies.md §Common, budgets; §S4): the session, task and agent layers
 * of S3, each with its mode — hard (the call is not made: the run aborts), soft (warn and go on),
 * approval (a human must confirm: shown as a warning) — its warning threshold and backpressure;
 * S4's hard limits are a session layer checked at the start of each call (`used ≥ max`, S4's
 * turns being LLM calls). Called before each call with what the calls before it used.
 */
import { backpressureDelayMs, BUDGET_DIMENSIONS, checkBudget, dimensionCheck, fmt, fmtMax, type BudgetLayer, type BudgetLayerName, type BudgetUsage } from '../budget/layers';
import type { BudgetLayerConfig, ReplayConfig } from '../config';
import type { ReplayEvent } from './types';
import type { StepDecision } from './state';

interface Layer extends BudgetLayer {
  readonly config: BudgetLayerConfig;
}

function layerOf(name: BudgetLayerName, b: BudgetLayerConfig): Layer | null {
  const limits = { turns: b.turns ?? Infinity, tokens: b.tokens ?? Infinity, toolCalls: b.toolCalls ?? Infinity, cost: b.cost ?? Infinity, minutes: b.minutes ?? Infinity };
  if (!BUDGET_DIMENSIONS.some((d) => Number.isFinite(limits[d]))) return null;
  return { name, limits, mode: b.mode, warningThreshold: b.warningThreshold, rule: b.includeRequest ? 'projected' : 'used', config: b };
}

const unit = (d: string): string => (d === 'turns' ? ' calls' : '');

export class BudgetHandler {
  private readonly layers: readonly Layer[];
  /** False when no budget is set: the replay skips the handler entirely. */
  readonly active: boolean;
  private readonly warned = new Set<string>();
  private lastDelay = 0;

  constructor(config: ReplayConfig) {
    this.layers = [layerOf('session', config.budget), layerOf('task', config.taskBudget), layerOf('agent', config.agentBudget)].filter((l): l is Layer => l !== null);
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

  /** The verdict for the call of `step`: `used` before it, `request` the tokens it would send. */
  check(step: number, used: BudgetUsage, request: number, d: StepDecision, events: ReplayEvent[]): void {
    let hard: { layer: Layer; dimension: (typeof BUDGET_DIMENSIONS)[number]; used: number; max: number } | undefined;
    let warnText: string | undefined;
    let usage = 0;
    let pressured = false;
    for (const layer of this.layers) {
      const r = checkBudget([layer], used, { tokens: request });
      if (layer.config.backpressure) {
        usage = Math.max(usage, r.usage);
        pressured = true;
      }
      const x = r.exceeded;
      if (x && layer.mode === 'hard') {
        hard ??= { layer, dimension: x.dimension, used: x.used, max: x.max };
      } else if (x) {
        const text = `${layer.name} ${x.dimension} budget exceeded (${fmt(x.used, x.dimension)}${unit(x.dimension)} of ${fmtMax(x.max, x.dimension)}; ${layer.mode} mode${layer.mode === 'approval' ? ': approval required' : ''})`;
        warnText ??= text;
        // One event when a budget is first exceeded; every later call still carries the status.
        const key = `${layer.name}.${x.dimension}`;
        if (!this.warned.has(key)) events.push({ kind: 'warning', step, text });
        this.warned.add(key);
      } else if (r.warnings.length > 0) warnText ??= r.warnings[0]!;
    }
    if (hard) {
      const { layer, dimension, used: u, max } = hard;
      d.status = 'abort';
      d.reason = `${layer.name} ${dimension} budget exceeded (${fmt(u, dimension)}${unit(dimension)} of ${fmtMax(max, dimension)}): run aborted`;
      events.push({ kind: 'abort', step, budget: dimension, used: u, max, layer: layer.name });
    } else if (warnText && d.status === 'ok') {
      d.status = 'warn';
      d.reason = warnText;
    }
    if (pressured) {
      // S3 delays every call past 80%; an event marks each change of level (50 → 300 → 750 → 1,500 ms).
      const delay = backpressureDelayMs(usage);
      if (delay !== this.lastDelay && delay > 0) events.push({ kind: 'backpressure', step, delayMs: delay, usage });
      this.lastDelay = delay;
    }
  }
}
