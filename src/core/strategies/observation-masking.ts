/** Observation masking (OpenHands): every tool result but the last N is replaced by a placeholder, whatever the budget. */
import type { Strategy } from './types';
import { isToolResultMessage } from './util';

export const observationMasking: Strategy = (h, _budget, ctx) => {
  const keep = ctx.config.keepToolResults;
  const results: number[] = [];
  for (const i of [...h.keepBefore, ...Array.from({ length: h.end - h.from }, (_, k) => h.from + k)]) if (isToolResultMessage(ctx, i)) results.push(i);
  const masked = results.slice(0, Math.max(0, results.length - keep)).filter((i) => !ctx.isMasked(i));
  return { kept: { from: h.from, keepBefore: h.keepBefore }, dropped: [], masked, note: `masked ${masked.length} observations, kept the last ${Math.min(keep, results.length)}` };
};
