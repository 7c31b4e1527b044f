/** S2 DropOldest(keepSystem): drop the oldest turns until the history fits the budget. The system prompt is a region and always stays. */
import type { Strategy } from './types';
import { cutToFit, droppedRanges } from './util';

export const dropOldest: Strategy = (h, budget, ctx) => {
  const from = cutToFit(h, ctx, budget, 0, h.from);
  return { kept: { from, keepBefore: [] }, dropped: droppedRanges(h, from, []), masked: [], note: `dropped the oldest ${from - h.from + h.keepBefore.length} messages` };
};
