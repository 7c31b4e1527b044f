/**
 * docs/policies.md §S4: head protection (the first `protectHead` turns — the task as given) and
 * tail protection (the last `protectTail` turns — the work in progress); the middle becomes a
 * structured summary that tracks the files touched (summarize/extractive.ts).
 */
import { z } from 'zod';
import { setting } from '../config-common';
import { defineStrategy, type ConfigWith } from './define';
import type { HistoryView, Strategy, StrategyContext } from './types';
import { droppedRanges, latestCut, range } from './util';

const settings = z.object({
  protectHead: setting(z.number().int().nonnegative().default(1), {
    label: 'Protected head',
    group: 'Strategy',
    unit: 'turns',
    description: 'The autonomous agent budget: first turns never compressed.',
  }),
  protectTail: setting(z.number().int().nonnegative().default(2), {
    label: 'Protected tail',
    group: 'Strategy',
    unit: 'turns',
    description: 'The autonomous agent budget: last turns never compressed.',
  }),
});
/** The config head and tail protection read (tool-pruning.ts reads it too). */
export type HeadTailConfig = ConfigWith<typeof settings.shape>;

/** Index in `starts` of the last start ≤ i. */
function startIndexAt(starts: readonly number[], i: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! <= i) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** End of the protected head: the first `protectHead` turns, never reaching into the call's own turn. */
export function headEnd(h: HistoryView, ctx: StrategyContext<HeadTailConfig>): number {
  return Math.min(ctx.turnStarts[ctx.config.protectHead] ?? h.end, latestCut(h, ctx));
}

/** Start of the protected tail: the last `protectTail` turns, at least the call's own. */
export function tailStart(h: HistoryView, ctx: StrategyContext<HeadTailConfig>): number {
  const latest = latestCut(h, ctx);
  const idx = startIndexAt(ctx.turnStarts, latest);
  return ctx.turnStarts[Math.max(0, idx - (Math.max(1, ctx.config.protectTail) - 1))] ?? latest;
}

export const headTail: Strategy<HeadTailConfig> = (h, budget, ctx) => {
  const head = headEnd(h, ctx);
  const tail = Math.max(head, h.from, tailStart(h, ctx));
  const keepBefore = range(0, head).filter((i) => i < tail && (i >= h.from || h.keepBefore.includes(i)));
  const dropped = droppedRanges(h, tail, keepBefore);
  return {
    kept: { from: tail, keepBefore },
    dropped,
    masked: [],
    ...(dropped.length ? { summaryRequest: { ranges: dropped, targetTokens: Math.max(512, Math.floor(budget * 0.15)) } } : {}),
    note: `protected ${keepBefore.length} head and ${h.end - tail} tail messages, summarized the middle`,
  };
};

export const strategy = defineStrategy({
  id: 'head-tail',
  description: 'Protects the first protectHead and the last protectTail turns; summarizes the middle.',
  settings,
  summarizes: true,
  run: headTail,
});
