/**
 * Pinned / sticky messages (the "important message" marking of docs/policies.md §S3, the sticky sections of §S4) never leave
 * the window. `keepPinned` wraps any strategy: the whole turn of a pinned message that the
 * strategy dropped is kept (a turn is never split, so its tool calls keep their results), and a
 * pinned tool result is never masked.
 */
import type { Strategy } from './types';
import { toRanges } from './util';

export function keepPinned(inner: Strategy, pinnedIds: ReadonlySet<string> = new Set()): Strategy {
  return (history, budget, ctx) => {
    const r = inner(history, budget, ctx);
    const isPinned = (i: number): boolean => ctx.messages[i]?.pinned === true || pinnedIds.has(ctx.messages[i]?.id ?? '');
    const dropped: number[] = [];
    for (const [a, b] of r.dropped) for (let i = a; i <= b; i++) dropped.push(i);
    const rescued = new Set<number>();
    const starts = ctx.turnStarts;
    for (const i of dropped) {
      if (!isPinned(i)) continue;
      // The turn of i: [start, next start), clipped to what is before the kept range.
      let t = 0;
      while (t + 1 < starts.length && starts[t + 1]! <= i) t++;
      const a = starts[t] ?? 0;
      const z = Math.min(starts[t + 1] ?? history.end, r.kept.from);
      for (let x = a; x < z; x++) if (dropped.includes(x)) rescued.add(x);
    }
    const masked = r.masked.filter((i) => !isPinned(i));
    if (rescued.size === 0 && masked.length === r.masked.length) return r;
    const stillDropped = dropped.filter((i) => !rescued.has(i));
    const keepBefore = [...new Set([...r.kept.keepBefore, ...rescued])].sort((x, y) => x - y);
    const summaryRequest = r.summaryRequest && {
      ranges: toRanges(stillDropped.filter((i) => r.summaryRequest!.ranges.some(([a, b]) => i >= a && i <= b))),
      targetTokens: r.summaryRequest.targetTokens,
    };
    return {
      kept: { from: r.kept.from, keepBefore },
      dropped: toRanges(stillDropped),
      masked,
      ...(summaryRequest && summaryRequest.ranges.length > 0 ? { summaryRequest } : {}),
      note: `${r.note}; kept ${rescued.size} messages of pinned turns`,
    };
  };
}
