/**
 * docs/policies.md §S4: tool results are the first thing pruned — the primary source of bloat.
 * Tool results between the protected head and the protected tail are replaced by a placeholder,
 * oldest first, until the history fits. The head and tail are protected from pruning as they are
 * from the summary (head-tail.ts).
 */
import { defineStrategy } from './define';
import { headEnd, tailStart, type HeadTailConfig } from './head-tail';
import type { Strategy } from './types';
import { isToolResultMessage, viewTokens } from './util';

export const toolPruning: Strategy<HeadTailConfig> = (h, budget, ctx) => {
  const head = headEnd(h, ctx);
  const tail = tailStart(h, ctx);
  let tokens = viewTokens(h, ctx);
  const masked: number[] = [];
  const prune = (i: number): boolean => {
    if (tokens <= budget) return false;
    // A result already no bigger than the placeholder gains nothing from pruning.
    if (isToolResultMessage(ctx, i) && !ctx.isMasked(i) && ctx.tokensOf(i) > PLACEHOLDER_TOKENS) {
      tokens -= ctx.tokensOf(i) - PLACEHOLDER_TOKENS;
      masked.push(i);
    }
    return true;
  };
  let going = true;
  for (const i of h.keepBefore) if (going && i >= head && i < tail) going = prune(i);
  for (let i = Math.max(h.from, head); going && i < tail; i++) going = prune(i);
  return {
    kept: { from: h.from, keepBefore: h.keepBefore },
    dropped: [],
    masked,
    note: `pruned ${masked.length} tool results${tokens > budget ? ' (still over the target: the rest is in the protected head and tail)' : ''}`,
  };
};

/** What a pruned or masked tool result still costs: the placeholder and the call id. */
export const PLACEHOLDER_TOKENS = 12;
export const PLACEHOLDER_TEXT = '[tool result pruned to save context]';

export const strategy = defineStrategy<'tool-pruning', Record<never, never>, HeadTailConfig>({
  id: 'tool-pruning',
  description: 'Replaces tool results between the protected head and tail by a placeholder, oldest first, until the history fits.',
  // The head and tail are protected from pruning as they are from head-tail's summary.
  reads: ['protectHead', 'protectTail'],
  run: toolPruning,
});
