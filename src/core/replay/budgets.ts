/**
 * The replay's budget handler (S3 session/task budgets with hard / soft / approval modes, warning
 * threshold and backpressure; S4's hard limits: 200 turns, 1M tokens, 200 tool calls, $2, 30 min).
 * Called once per call with what has been used so far; it says whether the call is aborted or
 * warned about, and emits an event when a budget is first exceeded or the backpressure level changes.
 */
import { backpressureDelayMs, checkBudget, exceededDimension, type BudgetLimits } from '../budget/layers';
import type { ReplayConfig } from '../config';
import type { ReplayEvent, StepStatus } from './types';

export interface BudgetUsage {
  readonly turns: number;
  readonly tokens: number;
  readonly toolCalls: number;
  readonly cost: number;
  readonly minutes: number;
}

export interface BudgetVerdict {
  readonly status: StepStatus;
  readonly reason: string;
}

export class BudgetHandler {
  private readonly limits: BudgetLimits;
  /** False when no budget is set: the replay skips the handler entirely. */
  readonly active: boolean;
  private readonly warned = new Set<string>();
  private lastDelay = 0;

  constructor(private readonly budget: ReplayConfig['budget']) {
    const b = budget;
    this.limits = { turns: b.turns ?? Infinity, tokens: b.tokens ?? Infinity, toolCalls: b.toolCalls ?? Infinity, cost: b.cost ?? Infinity, minutes: b.minutes ?? Infinity };
    this.active = Object.values(this.limits).some(Number.isFinite);
  }

  /** The verdict for the call of `step`, given the status and reason the other paths gave it. */
  check(step: number, used: BudgetUsage, status: StepStatus, reason: string, events: ReplayEvent[]): BudgetVerdict {
    const b = this.budget;
    const over = exceededDimension(this.limits, used);
    const check = checkBudget([{ name: 'session', limits: this.limits, mode: b.mode, warningThreshold: b.warningThreshold }], used);
    let st = status;
    let why = reason;
    if (over && b.mode === 'hard') {
      st = 'abort';
      why = `${over} budget exceeded (${Math.round(used[over] * 100) / 100}/${this.limits[over]}): run aborted`;
      events.push({ kind: 'abort', step, budget: over, used: used[over], max: this.limits[over] });
    } else if (over) {
      if (st === 'ok') st = 'warn';
      const text = `${over} budget exceeded (${b.mode} mode${b.mode === 'approval' ? ': approval required' : ''})`;
      why ||= text;
      // One event when a budget is first exceeded; every later call still carries the status.
      if (!this.warned.has(over)) events.push({ kind: 'warning', step, text });
      this.warned.add(over);
    } else if (check.warnings.length > 0 && st === 'ok') {
      st = 'warn';
      why = check.warnings[0]!;
    }
    if (b.backpressure) {
      // S3 delays every call past 80%; an event marks each change of level (50 → 300 → 750 → 1,500 ms).
      const delay = backpressureDelayMs(check.usage);
      if (delay !== this.lastDelay && delay > 0) events.push({ kind: 'backpressure', step, delayMs: delay, usage: check.usage });
      this.lastDelay = delay;
    }
    return { status: st, reason: why };
  }
}
