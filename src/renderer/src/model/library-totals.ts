/**
 * The library's totals over every stored session (subagents included: each is a session of its
 * own with its own calls), a call that a resumed session repeats counted once and the repeats
 * counted as skipped (SessionSummary.repeated, docs/cost.md "Folders of sessions").
 */
import type { SessionSummary } from '../../../shared/api';

export interface LibraryTotals {
  readonly calls: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** USD over the sessions whose cost is known; null when none is. */
  readonly cost: number | null;
  /** Calls left out because another stored session holds the same call. */
  readonly repeatedCalls: number;
}

export function libraryTotals(sessions: readonly SessionSummary[]): LibraryTotals {
  let calls = 0;
  let promptTokens = 0;
  let outputTokens = 0;
  let cost: number | null = null;
  let repeatedCalls = 0;
  for (const s of sessions) {
    const r = s.repeated;
    calls += s.steps - (r?.calls ?? 0);
    promptTokens += s.promptTokens - (r?.promptTokens ?? 0);
    outputTokens += s.outputTokens - (r?.outputTokens ?? 0);
    if (s.cost !== null) cost = (cost ?? 0) + s.cost - (r?.cost ?? 0);
    repeatedCalls += r?.calls ?? 0;
  }
  return { calls, promptTokens, outputTokens, cost, repeatedCalls };
}
