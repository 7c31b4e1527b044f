/**
 * S4: head protection (the first turns — the task as given) and tail protection (the last turns —
 * the work in progress); the middle becomes a structured summary that tracks the files touched.
 */
import type { Strategy } from './types';
import { droppedRanges, latestCut, range } from './util';

export const headTail: Strategy = (h, budget, ctx) => {
  const { protectHead, protectTail } = ctx.config;
  const latest = latestCut(h, ctx);
  const headEnd = Math.min(ctx.turnStarts[protectHead] ?? h.end, latest);
  const currentIdx = ctx.turnStarts.indexOf(latest);
  const tailStart = Math.max(headEnd, h.from, ctx.turnStarts[Math.max(0, currentIdx - (Math.max(1, protectTail) - 1))] ?? latest);
  const keepBefore = range(0, headEnd).filter((i) => i < tailStart && (i >= h.from || h.keepBefore.includes(i) || h.from === 0));
  const dropped = droppedRanges(h, tailStart, keepBefore);
  return {
    kept: { from: tailStart, keepBefore },
    dropped,
    masked: [],
    ...(dropped.length ? { summaryRequest: { ranges: dropped, targetTokens: Math.max(512, Math.floor(budget * 0.15)) } } : {}),
    note: `protected ${keepBefore.length} head and ${h.end - tailStart} tail messages, summarized the middle`,
  };
};
