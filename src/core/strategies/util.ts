/** Turn arithmetic shared by the strategies. */
import type { MessageRange } from '../replay/types';
import type { HistoryView, StrategyContext } from './types';

/** Start of the turn that contains message `i` (the current turn when i = end - 1). */
export function turnStartOf(turnStarts: readonly number[], i: number): number {
  let lo = 0;
  let hi = turnStarts.length - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (turnStarts[mid]! <= i) {
      best = turnStarts[mid]!;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** First turn boundary ≥ i (or `limit` when none is before it). */
export function boundaryAtOrAfter(turnStarts: readonly number[], i: number, limit: number): number {
  for (const s of turnStarts) if (s >= i) return Math.min(s, limit);
  return limit;
}

/** The latest start a cut may use: the current turn (the one the call belongs to) always stays. */
export function latestCut(h: HistoryView, ctx: StrategyContext): number {
  return h.end > 0 ? turnStartOf(ctx.turnStarts, h.end - 1) : 0;
}

/** Everything in the history before `from` that is not kept again, as ranges. */
export function droppedRanges(h: HistoryView, from: number, keepBefore: readonly number[]): MessageRange[] {
  const keep = new Set(keepBefore);
  const candidates = [...h.keepBefore.filter((i) => i < from), ...range(h.from, Math.min(from, h.end))];
  return toRanges(candidates.filter((i) => !keep.has(i)));
}

export function range(a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = a; i < b; i++) out.push(i);
  return out;
}

export function toRanges(sorted: readonly number[]): MessageRange[] {
  const out: [number, number][] = [];
  // Callers almost always pass ascending indices: sort (a copy) only when they did not.
  let ascending = true;
  for (let k = 1; k < sorted.length && ascending; k++) if (sorted[k]! < sorted[k - 1]!) ascending = false;
  for (const i of ascending ? sorted : [...sorted].sort((x, y) => x - y)) {
    const last = out[out.length - 1];
    if (last && i === last[1] + 1) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}

/** Tokens of the history view. */
export function viewTokens(h: HistoryView, ctx: StrategyContext): number {
  let t = ctx.rangeTokens(h.from, h.end);
  for (const i of h.keepBefore) t += ctx.tokensOf(i);
  return t;
}

/** Smallest boundary b ≥ from with tokens of [b, end) + fixed ≤ budget, not past `latest`. */
export function cutToFit(h: HistoryView, ctx: StrategyContext, budget: number, fixed: number, earliest: number): number {
  const latest = latestCut(h, ctx);
  const starts = ctx.turnStarts;
  // Binary search for the first boundary ≥ earliest; then walk forward (tokens only shrink).
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! < earliest) lo = mid + 1;
    else hi = mid;
  }
  for (let k = lo; k < starts.length; k++) {
    const s = starts[k]!;
    if (s > latest) return latest;
    if (ctx.rangeTokens(s, h.end) + fixed <= budget) return s;
  }
  return latest;
}

export function isToolResultMessage(ctx: StrategyContext, i: number): boolean {
  const m = ctx.messages[i];
  return m !== undefined && m.parts.some((p) => p.kind === 'tool_result');
}
