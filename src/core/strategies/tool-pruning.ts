/**
 * S4: tool results are the first thing pruned — the primary source of bloat. Older tool results
 * (outside the protected tail) are replaced by a placeholder, oldest first, until the history fits.
 */
import type { Strategy } from './types';
import { isToolResultMessage, turnStartOf, viewTokens } from './util';

export const toolPruning: Strategy = (h, budget, ctx) => {
  const tailTurns = Math.max(1, ctx.config.protectTail);
  const tailIdx = Math.max(0, ctx.turnStarts.findIndex((s) => s === turnStartOf(ctx.turnStarts, h.end - 1)) - (tailTurns - 1));
  const tailStart = ctx.turnStarts[tailIdx] ?? 0;
  let tokens = viewTokens(h, ctx);
  const masked: number[] = [];
  const candidates = [...h.keepBefore, ...Array.from({ length: Math.max(0, tailStart - h.from) }, (_, k) => h.from + k)];
  for (const i of candidates) {
    if (tokens <= budget) break;
    // A result already no bigger than the placeholder gains nothing from pruning.
    if (!isToolResultMessage(ctx, i) || ctx.isMasked(i) || ctx.tokensOf(i) <= PLACEHOLDER_TOKENS) continue;
    tokens -= Math.max(0, ctx.tokensOf(i) - PLACEHOLDER_TOKENS);
    masked.push(i);
  }
  return { kept: { from: h.from, keepBefore: h.keepBefore }, dropped: [], masked, note: `pruned ${masked.length} tool results` };
};

/** What a pruned or masked tool result still costs: the placeholder and the call id. */
export const PLACEHOLDER_TOKENS = 12;
export const PLACEHOLDER_TEXT = '[tool result pruned to save context]';
