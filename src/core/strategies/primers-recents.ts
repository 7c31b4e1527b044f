/**
 * S3: primers (the first N messages, default 3) + an LLM summary of the middle + recents (the last
 * M messages, default 20). Primers are extended just enough to keep their tool calls' results.
 */
import type { Strategy, StrategyContext } from './types';
import { boundaryAtOrAfter, cutToFit, droppedRanges, latestCut, range, toRanges } from './util';

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
  let from = Math.max(primerEnd, h.from, Math.min(boundaryAtOrAfter(ctx.turnStarts, h.end - recents, h.end), latest));
  const keepBefore = primerSet.filter((i) => i < from);
  // A token-triggered policy (S3) aims at a token target: when the last `recents` messages alone
  // overflow it (S3's "pitfall 1"), whole turns of recents go too, so the request lands under the
  // target. An event-count condenser (OpenHands, `triggerMessages`) aims at a count and keeps them.
  let shrunk = '';
  // The summary takes a tenth of the budget; the kept messages get the rest.
  const summaryTarget = Math.max(64, Math.floor(budget * 0.1));
  if (ctx.config.triggerMessages === undefined) {
    const primerTokens = keepBefore.reduce((t, i) => t + ctx.tokensOf(i), 0);
    const fitted = cutToFit({ from, keepBefore: [], end: h.end }, ctx, budget - summaryTarget - primerTokens, 0, from);
    if (fitted > from) {
      shrunk = ` (recents shrunk from ${h.end - from} to ${h.end - fitted} messages to meet the target)`;
      from = fitted;
    }
  }
  const dropped = droppedRanges(h, from, keepBefore);
  const middle = dropped.length ? toRanges(dropped.flatMap(([a, b]) => range(a, b + 1))) : [];
  return {
    kept: { from, keepBefore },
    dropped,
    masked: [],
    ...(middle.length ? { summaryRequest: { ranges: middle, targetTokens: summaryTarget } } : {}),
    note: `primers ${keepBefore.length} + summary of ${middle.reduce((n, [a, b]) => n + b - a + 1, 0)} + recents ${h.end - from}${shrunk}`,
  };
};
