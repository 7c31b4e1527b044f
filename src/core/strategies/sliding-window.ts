/** S2 SlidingWindow(N): keep the last N messages (snapped forward to a turn boundary). */
import type { Strategy } from './types';
import { boundaryAtOrAfter, droppedRanges, latestCut } from './util';

export const slidingWindow: Strategy = (h, _budget, ctx) => {
  const n = ctx.config.slidingWindow;
  const from = Math.max(h.from, Math.min(boundaryAtOrAfter(ctx.turnStarts, h.end - n, h.end), latestCut(h, ctx)));
  return { kept: { from, keepBefore: [] }, dropped: droppedRanges(h, from, []), masked: [], note: `sliding window: kept the last ${h.end - from} messages (N = ${n})` };
};
