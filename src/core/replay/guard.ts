/**
 * S1's turn_preflight, as a pure decision: a projected request over the limit is let through when
 * only the tool schemas push it over (S1's special case), skipped to the first fallback model
 * whose own limit it fits, or — when none fits — answered with a forced final turn whose tools
 * are restricted to final_report.
 */
import { resolveLimits } from '../budget/limits';
import type { ModelInfo } from '../catalog';

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
  | { readonly decision: 'skip'; readonly fallback: string; readonly limit: number; readonly model: ModelInfo | undefined; readonly reason: string }
  | { readonly decision: 'final'; readonly reason: string };

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Only called when `projected > limit`. */
export function turnPreflight(p: PreflightInput): PreflightOutcome {
  if (p.projected - p.schemaTokens <= p.limit) return { decision: 'ok', reason: 'only the tool schemas overflow: allowed (S1 special case)' };
  for (const name of p.fallbackModels) {
    const fb = resolveLimits({ model: name, buffer: p.buffer });
    if (p.projected <= fb.limit) return { decision: 'skip', fallback: name, limit: fb.limit, model: fb.model, reason: `projected ${int(p.projected)} > limit ${int(p.limit)} on ${p.model}: skip to ${name}` };
  }
  return { decision: 'final', reason: `still over limit after shrink: projected ${int(p.projected)} > limit ${int(p.limit)}; final turn, tools restricted to final_report` };
}
