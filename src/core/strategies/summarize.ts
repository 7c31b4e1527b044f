/** Summarize (docs/policies.md §S2 Summarize(model), and the presets' summarizers): fold the oldest turns into the summary until the rest fits. */
import type { Strategy } from './types';
import { cutToFit, droppedRanges } from './util';

export const summarize: Strategy = (h, budget, ctx) => {
  // Leave room for the summary itself: aim the kept history at 80% of the budget.
  const from = cutToFit(h, ctx, Math.floor(budget * 0.8), 0, h.from);
  const dropped = droppedRanges(h, from, []);
  return {
    kept: { from, keepBefore: [] },
    dropped,
    masked: [],
    ...(dropped.length ? { summaryRequest: { ranges: dropped, targetTokens: Math.max(512, Math.floor(budget * 0.2)) } } : {}),
    note: `summarized ${dropped.reduce((n, [a, b]) => n + b - a + 1, 0)} messages`,
  };
};
