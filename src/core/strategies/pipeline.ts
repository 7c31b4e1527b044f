/**
 * A pipeline composes strategies in order (docs/policies.md §S4: prune tool results first, then
 * summarize the middle): each one sees the window the previous one left, and the pipeline stops as soon as the
 * history fits the budget. The result is itself a Strategy, so pipelines nest and a user's own
 * strategy (loaded by the CLI) slots in like any other.
 */
import { PLACEHOLDER_TOKENS } from './tool-pruning';
import type { HistoryView, Strategy, StrategyContext, StrategyResult } from './types';
import { range, toRanges, viewTokens } from './util';

/** The context as it stands once `masked` messages are placeholders (no recount: a subtraction per masked message). */
function withMasked(ctx: StrategyContext, masked: ReadonlySet<number>): StrategyContext {
  if (masked.size === 0) return ctx;
  const saved = (i: number): number => (masked.has(i) && !ctx.isMasked(i) ? Math.max(0, ctx.tokensOf(i) - PLACEHOLDER_TOKENS) : 0);
  return {
    ...ctx,
    tokensOf: (i) => ctx.tokensOf(i) - saved(i),
    rangeTokens: (a, b) => {
      let t = ctx.rangeTokens(a, b);
      for (const i of masked) if (i >= a && i < b) t -= saved(i);
      return t;
    },
    isMasked: (i) => masked.has(i) || ctx.isMasked(i),
  };
}

export function pipeline(stages: readonly Strategy[], name = 'pipeline'): Strategy {
  return (history, budget, ctx) => {
    let view: HistoryView = history;
    const masked = new Set<number>();
    const dropped = new Set<number>();
    const fold = new Set<number>();
    let targetTokens = 0;
    const notes: string[] = [];
    let stageCtx = ctx;
    let keptWhateverTarget = false;
    for (const stage of stages) {
      if (notes.length > 0 && viewTokens(view, stageCtx) <= budget) break;
      const r: StrategyResult = stage(view, budget, stageCtx);
      for (const i of r.masked) masked.add(i);
      for (const [a, b] of r.dropped) for (let i = a; i <= b; i++) dropped.add(i);
      if (r.summaryRequest) {
        for (const [a, b] of r.summaryRequest.ranges) for (let i = a; i <= b; i++) fold.add(i);
        targetTokens = Math.max(targetTokens, r.summaryRequest.targetTokens);
      }
      notes.push(r.note);
      if (r.keptWhateverTarget) keptWhateverTarget = true;
      view = { from: Math.max(view.from, r.kept.from), keepBefore: r.kept.keepBefore, end: view.end };
      stageCtx = withMasked(ctx, masked);
    }
    // A message dropped later is no longer "masked": it is gone.
    const maskedKept = [...masked].filter((i) => !dropped.has(i)).sort((a, b) => a - b);
    const droppedRanges = toRanges([...dropped]);
    return {
      kept: { from: view.from, keepBefore: view.keepBefore },
      dropped: droppedRanges,
      masked: maskedKept,
      ...(fold.size > 0 ? { summaryRequest: { ranges: toRanges([...fold].filter((i) => dropped.has(i))), targetTokens } } : {}),
      ...(keptWhateverTarget ? { keptWhateverTarget } : {}),
      note: `${name}: ${notes.join('; ')}`,
    };
  };
}

/** Indices of the messages a view holds, ascending. */
export function viewIndices(h: HistoryView): number[] {
  return [...h.keepBefore.filter((i) => i < h.from), ...range(h.from, h.end)];
}
