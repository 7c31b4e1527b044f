/**
 * S3: primers (the first N messages, default 3) + an LLM summary of the middle + recents (the last
 * M messages, default 20). Primers are extended just enough to keep their tool calls' results.
 */
import type { Strategy, StrategyContext } from './types';
import { boundaryAtOrAfter, droppedRanges, latestCut, range, toRanges } from './util';

/** First `n` messages, extended so no tool call in them loses its result. */
export function primerIndices(ctx: StrategyContext, n: number, limit: number): number[] {
  if (n <= 0) return [];
  let k = Math.min(n, limit);
  const open = new Set<string>();
  const scan = (i: number): void => {
    for (const p of ctx.messages[i]!.parts) {
      if (p.kind === 'tool_call') open.add(p.id);
      else if (p.kind === 'tool_result') open.delete(p.callId);
    }
  };
  for (let i = 0; i < k; i++) scan(i);
  while (open.size > 0 && k < limit) scan(k++);
  return open.size > 0 ? [] : range(0, k);
}

export const primersRecents: Strategy = (h, budget, ctx) => {
  const { primers, recents } = ctx.config;
  const latest = latestCut(h, ctx);
  const primerSet = primerIndices(ctx, primers, latest);
  const primerEnd = primerSet.length;
  const from = Math.max(primerEnd, h.from, Math.min(boundaryAtOrAfter(ctx.turnStarts, h.end - recents, h.end), latest));
  const keepBefore = primerSet.filter((i) => i < from);
  const dropped = droppedRanges(h, from, keepBefore);
  const middle = dropped.length ? toRanges(dropped.flatMap(([a, b]) => range(a, b + 1))) : [];
  return {
    kept: { from, keepBefore },
    dropped,
    masked: [],
    ...(middle.length ? { summaryRequest: { ranges: middle, targetTokens: Math.max(512, Math.floor(budget * 0.1)) } } : {}),
    note: `primers ${keepBefore.length} + summary of ${middle.reduce((n, [a, b]) => n + b - a + 1, 0)} + recents ${h.end - from}`,
  };
};
