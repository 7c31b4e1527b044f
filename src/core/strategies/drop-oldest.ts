/**
 * docs/policies.md §S2 DropOldest(keepSystem): remove the oldest messages until the history fits
 * the budget, keeping the system prompt (a region, it always stays) and the recent context (the
 * call's own turn, or its last exchange when the turn in progress may be cut). Messages, not
 * turns: the cut moves later only as far as needed so no tool result loses its call.
 */
import { defineStrategy } from './define';
import type { Strategy } from './types';
import { droppedRanges, latestCut, movedNote, pairSafeCut } from './util';

export const dropOldest: Strategy = (h, budget, ctx) => {
  const latest = Math.max(h.from, latestCut(h, ctx));
  // Tokens of [c, end) only shrink as c grows: the first c that fits, by binary search.
  let lo = h.from;
  let hi = latest;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ctx.rangeTokens(mid, h.end) <= budget) hi = mid;
    else lo = mid + 1;
  }
  // keepBefore (older than the live range) always goes; when the live range fits as it is, nothing else does.
  const { cut: from, moved } =
    lo === h.from ? { cut: lo, moved: 0 } : pairSafeCut(ctx, lo, h.end, { lo: h.from, hi: latest, prefer: 'later' });
  return {
    kept: { from, keepBefore: [] },
    dropped: droppedRanges(h, from, []),
    masked: [],
    note: `dropped the oldest ${from - h.from + h.keepBefore.length} messages${movedNote(moved)}`,
  };
};

export const strategy = defineStrategy({
  id: 'drop-oldest',
  description: 'Drops the oldest messages until the history fits the target, keeping the system prompt and the recent context.',
  run: dropOldest,
});
