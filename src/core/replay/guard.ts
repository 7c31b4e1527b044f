/**
 * S1's turn_preflight, as a pure decision: a projected request over the limit is let through when
 * only the tool schemas push it over (S1's special case), skipped to the first fallback model
 * whose own limit it fits, or — when none fits — answered with a forced final turn whose tools
 * are restricted to final_report.
 */
import { resolveLimits } from '../budget/limits';
import type { ModelInfo } from '../catalog';
import { int, type ReplayState, type StepDecision } from './state';

export interface PreflightInput {
  /** Projected request tokens (system + summary + history + tool schemas). */
  readonly projected: number;
  /** Tokens of the tool schemas inside `projected`. */
  readonly schemaTokens: number;
  readonly limit: number;
  /** Name of the model the call was meant for. */
  readonly model: string;
  readonly fallbackModels: readonly string[];
  readonly buffer: number;
}

export type PreflightOutcome =
  | { readonly decision: 'ok'; readonly reason: string }
  | {
      readonly decision: 'skip';
      readonly fallback: string;
      readonly limit: number;
      readonly model: ModelInfo | undefined;
      readonly reason: string;
    }
  | { readonly decision: 'final'; readonly reason: string };

/** Only called when `projected > limit`. */
export function turnPreflight(p: PreflightInput): PreflightOutcome {
  if (p.projected - p.schemaTokens <= p.limit)
    return { decision: 'ok', reason: 'only the tool schemas overflow: allowed (S1 special case)' };
  for (const name of p.fallbackModels) {
    const fb = resolveLimits({ model: name, buffer: p.buffer });
    if (p.projected <= fb.limit)
      return {
        decision: 'skip',
        fallback: name,
        limit: fb.limit,
        model: fb.model,
        reason: `projected ${int(p.projected)} > limit ${int(p.limit)} on ${p.model}: skip to ${name}`,
      };
  }
  return {
    decision: 'final',
    reason: `still over limit after shrink: projected ${int(p.projected)} > limit ${int(p.limit)}; final turn, tools restricted to final_report`,
  };
}

/**
 * The guard as a step handler (docs/policies.md §S1): runs when the request is over the limit and
 * records the decision. The schema-only special case lets the call through, but a step above its
 * limit is never `ok`: it is a warning naming the case.
 */
export function guardStep(s: ReplayState, step: number, request: number, d: StepDecision, sessionModel: string | undefined): void {
  const limit = s.enforcement.limit;
  if (!s.config.paths.guard || d.status === 'final' || request <= limit) return;
  const modelName = s.limits.model?.id ?? s.config.model ?? sessionModel ?? 'default';
  const g = turnPreflight({
    projected: request,
    schemaTokens: s.counts.tools,
    limit,
    model: modelName,
    fallbackModels: s.config.fallbackModels,
    buffer: s.config.buffer,
  });
  s.events.push({
    kind: 'guard',
    step,
    decision: g.decision,
    model: modelName,
    ...(g.decision === 'skip' ? { fallback: g.fallback } : {}),
    projected: request,
    limit,
    reason: g.reason,
  });
  if (g.decision === 'skip') {
    // The fallback model takes this call: its limit applies, and its prices.
    d.limit = g.limit;
    d.model = g.model;
    d.status = 'skip';
    d.reason = g.reason;
  } else if (g.decision === 'final') {
    d.status = 'final';
    s.totals.forcedFinals++;
    d.reason = g.reason;
  } else if (d.status === 'ok') {
    d.status = 'warn';
    d.reason = `projected ${int(request)} > limit ${int(limit)}: ${g.reason}`;
  }
}

/** S1's tool budget (tool_preflight) makes this call the forced final turn. */
export function toolBudgetFinal(s: ReplayState, step: number, d: StepDecision): void {
  if (s.toolBudgetHitAt !== step) return;
  d.status = 'final';
  s.totals.forcedFinals++;
  const e = s.events.findLast((x) => x.kind === 'tool-preflight' && x.action === 'budget-exceeded');
  const why = e?.kind === 'tool-preflight' && e.reason ? e.reason : 'tool budget exceeded';
  d.reason = `${why}: final turn, tools restricted to final_report`;
}
