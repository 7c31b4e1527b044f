/**
 * Compare two replays of one session (docs/policies.md §Common): totals side by side and the per-step
 * differences. Works on the typed arrays directly, so comparing two 10,000-step runs allocates
 * one delta array and one entry per step that actually differs.
 */
import { compressionsOf } from './compressions';
import { stepReason } from './steps';
import { STEP_STATUSES, type ReplayResult, type ReplayTotals, type StepStatus } from './types';

export type TotalKey = keyof ReplayTotals;
export const TOTAL_KEYS: readonly TotalKey[] = [
  'billedInputTokens',
  'cachedInputTokens',
  'cacheWriteTokens',
  'outputTokens',
  'cost',
  'compressions',
  'tokensRemoved',
  'peak',
  'forcedFinals',
  'aborts',
  'overflows',
];

export interface TotalComparison {
  readonly a: number;
  readonly b: number;
  /** b − a. */
  readonly delta: number;
  /** (b − a) / a; null when a is 0. */
  readonly ratio: number | null;
}

export interface StepDifference {
  readonly step: number;
  readonly messageIndex: number;
  readonly a: { readonly status: StepStatus; readonly total: number; readonly reason: string };
  readonly b: { readonly status: StepStatus; readonly total: number; readonly reason: string };
}

export interface ReplayComparison {
  readonly policies: readonly [string, string];
  readonly totals: Readonly<Record<TotalKey, TotalComparison>>;
  /** Steps compared (the shorter run's count; both come from one session so they are equal). */
  readonly steps: number;
  /** Per step: b.total − a.total. */
  readonly totalDelta: Float64Array;
  /** Steps where the status or the request size differ. */
  readonly differences: readonly StepDifference[];
  /** First step that differs, or −1 when the runs agree everywhere. */
  readonly firstDifference: number;
  /** Steps at which each run compressed. */
  readonly compressions: { readonly a: readonly number[]; readonly b: readonly number[] };
}

/** The calls that compressed: from the result's columns when it has them (no event objects made), else its events. */
function compressionSteps(r: ReplayResult): number[] {
  const cols = compressionsOf(r);
  if (!cols) return r.events.filter((e) => e.kind === 'compression').map((e) => e.step);
  return Array.from(cols.log.step.subarray(0, cols.count));
}

export function compare(a: ReplayResult, b: ReplayResult): ReplayComparison {
  if (a.steps.count !== b.steps.count) {
    // Two sessions were mixed up: say so rather than compare unrelated steps.
    throw new Error(`compare: the replays have ${a.steps.count} and ${b.steps.count} steps; compare two replays of the same session`);
  }
  const totals = {} as Record<TotalKey, TotalComparison>;
  for (const k of TOTAL_KEYS) {
    // A total a result may lack (cacheWriteTokens before it was counted) compares as 0.
    const x = a.totals[k] ?? 0;
    const y = b.totals[k] ?? 0;
    totals[k] = { a: x, b: y, delta: y - x, ratio: x === 0 ? null : (y - x) / x };
  }
  const n = a.steps.count;
  const totalDelta = new Float64Array(n);
  const differences: StepDifference[] = [];
  for (let i = 0; i < n; i++) {
    const ta = a.steps.total[i]!;
    const tb = b.steps.total[i]!;
    totalDelta[i] = tb - ta;
    const sa = a.steps.status[i]!;
    const sb = b.steps.status[i]!;
    if (ta === tb && sa === sb) continue;
    differences.push({
      step: i,
      messageIndex: a.steps.messageIndex[i]!,
      a: { status: STEP_STATUSES[sa]!, total: ta, reason: stepReason(a.steps, i) },
      b: { status: STEP_STATUSES[sb]!, total: tb, reason: stepReason(b.steps, i) },
    });
  }
  return {
    policies: [a.policy, b.policy],
    totals,
    steps: n,
    totalDelta,
    differences,
    firstDifference: differences[0]?.step ?? -1,
    compressions: { a: compressionSteps(a), b: compressionSteps(b) },
  };
}

/** The comparison as plain JSON data (typed arrays become number arrays), for the CLI and the contract. */
export function comparisonToJSON(c: ReplayComparison): Omit<ReplayComparison, 'totalDelta'> & { totalDelta: number[] } {
  return { ...c, totalDelta: Array.from(c.totalDelta) };
}
