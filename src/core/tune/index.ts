/**
 * The tuner, pure: sweep specs → grid of settings (grid.ts), replay outcomes → frontier and
 * proposal (frontier.ts), and the one result shape the CLI's `--json`, the host's `runTune` and
 * the tuner panel share. Running the replays is the host's (src/main/tune/): on worker threads,
 * the session loaded and counted once per worker.
 */
import type { Overrides } from '../config';
import { costBasisOf, paretoFrontier, propose, type CostBasis, type TuneOutcome } from './frontier';
import type { Sweep, SweepValue } from './grid';

export { checkSweeps, expandGrid, gridSize, GRID_CAP, parseSweep, SweepError, type Sweep, type SweepValue } from './grid';
export { defaultRange, preferredSweepKey, rangeProblem, type SweepContext, type SweepRange } from './ranges';
export {
  costBasisOf,
  endedOf,
  lostOf,
  outcomeOf,
  paretoFrontier,
  propose,
  qualifies,
  type CostBasis,
  type Proposal,
  type TuneOutcome,
} from './frontier';

/** One setting of the grid and its outcome. */
export interface TunePoint extends TuneOutcome {
  /** The swept keys' values (the base overrides are the result's `baseOverrides`). */
  readonly settings: Readonly<Record<string, SweepValue>>;
  readonly onFrontier: boolean;
}

export interface TuneResult {
  readonly policy: string;
  readonly sweeps: readonly { readonly key: string; readonly values: readonly SweepValue[] }[];
  /** Overrides every setting starts from (the user's own), under the swept keys. */
  readonly baseOverrides: Overrides;
  readonly needles: readonly string[];
  /** LLM calls of the session, each replayed once per setting. */
  readonly calls: number;
  readonly costBasis: CostBasis;
  /** Grid order. */
  readonly points: readonly TunePoint[];
  /** Grid indices on the frontier, cheapest first. */
  readonly frontier: readonly number[];
  readonly proposal: number | null;
  readonly nearMiss: number | null;
  readonly verdict: string;
  /** Wall time of the sweep (replays and worker start), and the threads it ran on. */
  readonly elapsedMs: number;
  readonly threads: number;
}

export interface TuneRunInfo {
  readonly policy: string;
  readonly sweeps: readonly Sweep[];
  readonly baseOverrides: Overrides;
  readonly needles: readonly string[];
  readonly calls: number;
  readonly elapsedMs: number;
  readonly threads: number;
}

/** The result of a sweep from its outcomes (grid order; `outcomes[i].index === i`). */
export function tuneResult(info: TuneRunInfo, outcomes: readonly TuneOutcome[]): TuneResult {
  const basis = costBasisOf(outcomes);
  const frontier = paretoFrontier(outcomes, basis);
  const on = new Set(frontier);
  const { proposal, nearMiss, verdict } = propose(outcomes, basis);
  // Settings are recomputed from the grid position (last sweep fastest) rather than shipped back from the workers.
  const settingsAt = (index: number): Record<string, SweepValue> => {
    const out: Record<string, SweepValue> = {};
    let rest = index;
    for (let i = info.sweeps.length - 1; i >= 0; i--) {
      const s = info.sweeps[i]!;
      out[s.key] = s.values[rest % s.values.length]!;
      rest = Math.floor(rest / s.values.length);
    }
    return Object.fromEntries(info.sweeps.map((s) => [s.key, out[s.key]!]));
  };
  return {
    policy: info.policy,
    sweeps: info.sweeps.map((s) => ({ key: s.key, values: s.values })),
    baseOverrides: info.baseOverrides,
    needles: info.needles,
    calls: info.calls,
    costBasis: basis,
    points: outcomes.map((o) => ({ ...o, settings: settingsAt(o.index), onFrontier: on.has(o.index) })),
    frontier,
    proposal,
    nearMiss,
    verdict,
    elapsedMs: info.elapsedMs,
    threads: info.threads,
  };
}
