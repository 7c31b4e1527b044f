/** Observation masking (OpenHands): every tool result but the last N is replaced by a placeholder, whatever the budget. */
import type { Strategy } from './types';
import { PLACEHOLDER_TOKENS } from './tool-pruning';
import { isToolResultMessage } from './util';

export const observationMasking: Strategy = (h, _budget, ctx) => {
  const keep = ctx.config.keepToolResults;
  // OpenHands' attention window counts events (messages), not observations.
  const window = ctx.config.attentionWindow;
  let older: number[];
  const results: number[] = [];
  if (window !== undefined) {
    // Masking runs at every call, oldest first: walk back from the edge of the attention window
    // and stop at the first result already masked — everything before it was masked earlier.
    older = [];
    for (let i = h.end - window - 1; i >= h.from; i--) {
      if (!isToolResultMessage(ctx, i)) continue;
      if (ctx.isMasked(i)) break;
      older.push(i);
    }
    for (const i of h.keepBefore) if (i < h.end - window && isToolResultMessage(ctx, i)) older.push(i);
    older.sort((a, b) => a - b);
  } else {
    for (const i of [...h.keepBefore, ...Array.from({ length: h.end - h.from }, (_, k) => h.from + k)]) if (isToolResultMessage(ctx, i)) results.push(i);
    older = results.slice(0, Math.max(0, results.length - keep));
  }
  const masked = older.filter((i) => !ctx.isMasked(i) && ctx.tokensOf(i) > PLACEHOLDER_TOKENS);
  const kept = window !== undefined ? `outside the last ${window} messages` : `kept the last ${Math.min(keep, results.length)}`;
  return { kept: { from: h.from, keepBefore: h.keepBefore }, dropped: [], masked, note: `masked ${masked.length} observations, ${kept}` };
};
