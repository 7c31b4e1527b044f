/**
 * docs/policies.md §S2 SlidingWindow(N): keep the N most recent messages — messages, not turns.
 * Where the cut would separate a tool call from its result it moves by the fewest messages
 * (earlier on a tie, so never fewer than N are kept), and the note says so. The system prompt is a
 * region and always stays.
 */
import type { Strategy } from './types';
import { droppedRanges, movedNote, pairSafeCut } from './util';

export const slidingWindow: Strategy = (h, _budget, ctx) => {
  const n = ctx.config.slidingWindow;
  const target = Math.max(h.from, h.end - n);
  const { cut: from, moved } =
    target === h.from ? { cut: h.from, moved: 0 } : pairSafeCut(ctx, target, h.end, { lo: h.from, hi: h.end, prefer: 'nearest' });
  return {
    kept: { from, keepBefore: [] },
    dropped: droppedRanges(h, from, []),
    masked: [],
    note: `sliding window: kept the last ${h.end - from} messages (N = ${n})${movedNote(moved)}`,
  };
};
