/**
 * What the tuner makes of its replays: each setting's outcome (billed cost, references lost,
 * forced finals and aborts), the frontier of settings no other setting beats, and the proposal —
 * the cheapest setting that loses no referenced fact and no user needle and never forces a final
 * turn or aborts. When none qualifies it says so and names the best near-miss: the fewest forced
 * finals and aborts (a run that ends early is the worst outcome), then the fewest lost needles
 * (the user asked for those), then the fewest lost facts, then the cheapest.
 */
import type { ReplayResult } from '../replay/types';

/** One setting's replay, reduced to what the tuner weighs. */
export interface TuneOutcome {
  /** Position in the grid (expandGrid's order). */
  readonly index: number;
  /** USD at the catalog's prices for the model (0 when the model has none: see `billedInputTokens`). */
  readonly cost: number;
  readonly billedInputTokens: number;
  /** Facts (identifiers, paths, numbers, names) a later message needed after they had left the window. */
  readonly lostFacts: number;
  /** User needles whose every mention left the window (history and summary) at some call. */
  readonly lostNeedles: number;
  readonly forcedFinals: number;
  readonly aborts: number;
  readonly compressions: number;
  readonly peak: number;
  /** The replay failed for this setting (it then never qualifies nor sits on the frontier). */
  readonly error?: string;
}

/** A replay's result as the tuner's outcome for grid position `index`. */
export function outcomeOf(index: number, r: Pick<ReplayResult, 'totals' | 'retention'>): TuneOutcome {
  const t = r.totals;
  return {
    index,
    cost: t.cost,
    billedInputTokens: t.billedInputTokens,
    lostFacts: r.retention.lost.filter((l) => l.kind !== 'needle').length,
    // A needle counts once however often it left; NeedleTrack.leftAt lists every time.
    lostNeedles: (r.retention.needles ?? []).filter((n) => n.leftAt.length > 0).length,
    forcedFinals: t.forcedFinals,
    aborts: t.aborts,
    compressions: t.compressions,
    peak: t.peak,
  };
}

/** Lost references: facts and needles together (the frontier's second axis). */
export const lostOf = (o: TuneOutcome): number => o.lostFacts + o.lostNeedles;
/** Runs that ended early (the frontier's third axis). */
export const endedOf = (o: TuneOutcome): number => o.forcedFinals + o.aborts;

/**
 * What the tuner compares money by: USD when any setting costs something, else billed input
 * tokens (a model with no prices in the catalog bills $0 for every setting).
 */
export type CostBasis = 'usd' | 'tokens';
export const costBasisOf = (outcomes: readonly TuneOutcome[]): CostBasis =>
  outcomes.some((o) => !o.error && o.cost > 0) ? 'usd' : 'tokens';
const costIn =
  (basis: CostBasis) =>
  (o: TuneOutcome): number =>
    basis === 'usd' ? o.cost : o.billedInputTokens;

/** `a` is at least as good as `b` on cost, lost references and early ends, and better on one. */
function dominates(a: TuneOutcome, b: TuneOutcome, cost: (o: TuneOutcome) => number): boolean {
  const ca = cost(a),
    cb = cost(b),
    la = lostOf(a),
    lb = lostOf(b),
    ea = endedOf(a),
    eb = endedOf(b);
  return ca <= cb && la <= lb && ea <= eb && (ca < cb || la < lb || ea < eb);
}

/**
 * The Pareto frontier over (cost, lost references, forced finals + aborts), all minimised: the
 * grid indices of settings no other setting dominates, cheapest first. Settings with the same
 * three figures are all on it (none dominates another). O(n²): the grid is capped at 10,000.
 */
export function paretoFrontier(outcomes: readonly TuneOutcome[], basis: CostBasis = costBasisOf(outcomes)): number[] {
  const cost = costIn(basis);
  const ok = outcomes.filter((o) => !o.error);
  // Sorted by cost, a point can only be dominated by one at or before it in this order.
  ok.sort((a, b) => cost(a) - cost(b) || lostOf(a) - lostOf(b) || endedOf(a) - endedOf(b) || a.index - b.index);
  const front: TuneOutcome[] = [];
  for (const o of ok) if (!front.some((f) => dominates(f, o, cost))) front.push(o);
  return front.map((o) => o.index);
}

export const qualifies = (o: TuneOutcome): boolean =>
  !o.error && o.lostFacts === 0 && o.lostNeedles === 0 && o.forcedFinals === 0 && o.aborts === 0;

export interface Proposal {
  /** Grid index of the proposed setting, or null when no setting qualifies. */
  readonly proposal: number | null;
  /** When none qualifies: the best near-miss (see the file's comment); null when every replay failed. */
  readonly nearMiss: number | null;
  /** One sentence for the person: what is proposed and why, or why nothing is. */
  readonly verdict: string;
}

/**
 * The cheapest qualifying setting (ties: fewer billed input tokens, fewer compressions, then grid
 * order); else the best near-miss.
 */
export function propose(outcomes: readonly TuneOutcome[], basis: CostBasis = costBasisOf(outcomes)): Proposal {
  const cost = costIn(basis);
  const byCost = (a: TuneOutcome, b: TuneOutcome): number =>
    cost(a) - cost(b) || a.billedInputTokens - b.billedInputTokens || a.compressions - b.compressions || a.index - b.index;
  const good = outcomes.filter(qualifies).sort(byCost);
  const money = (o: TuneOutcome): string =>
    basis === 'usd' ? `$${o.cost.toFixed(4)}` : `${Math.round(o.billedInputTokens).toLocaleString('en-US')} billed input tokens`;
  if (good.length > 0) {
    const p = good[0]!;
    return {
      proposal: p.index,
      nearMiss: null,
      verdict: `cheapest of ${good.length} setting(s) that lose no referenced fact or needle and never force a final turn or abort: ${money(p)}`,
    };
  }
  const ran = outcomes.filter((o) => !o.error);
  if (ran.length === 0)
    return {
      proposal: null,
      nearMiss: null,
      verdict: `no setting qualifies: every replay failed (${outcomes[0]?.error ?? 'no settings'})`,
    };
  const near = [...ran].sort(
    (a, b) => endedOf(a) - endedOf(b) || a.lostNeedles - b.lostNeedles || a.lostFacts - b.lostFacts || byCost(a, b),
  )[0]!;
  const misses = [
    near.forcedFinals ? `${near.forcedFinals} forced final turn(s)` : '',
    near.aborts ? `${near.aborts} abort(s)` : '',
    near.lostNeedles ? `${near.lostNeedles} lost needle(s)` : '',
    near.lostFacts ? `${near.lostFacts} lost fact(s)` : '',
  ].filter(Boolean);
  return {
    proposal: null,
    nearMiss: near.index,
    verdict: `no setting qualifies; the best near-miss still has ${misses.join(', ')} (${money(near)})`,
  };
}
