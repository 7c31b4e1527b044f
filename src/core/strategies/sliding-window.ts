/**
 * docs/policies.md §S2 SlidingWindow(N): keep the N most recent messages — messages, not turns.
 * Where the cut would separate a tool call from its result it moves by the fewest messages
 * (earlier on a tie, so never fewer than N are kept), and the note says so. The system prompt is a
 * region and always stays.
 */
import { z } from 'zod';
import { setting } from '../config-common';
import { defineStrategy, type ConfigWith } from './define';
import type { Strategy } from './types';
import { droppedRanges, movedNote, pairSafeCut } from './util';

const settings = z.object({
  slidingWindow: setting(z.number().int().positive().default(20), {
    label: 'Sliding window',
    group: 'Strategy',
    unit: 'messages',
    description: "The SDK turn interceptor's SlidingWindow(N): the last N messages are kept.",
  }),
});

export const slidingWindow: Strategy<ConfigWith<typeof settings.shape>> = (h, _budget, ctx) => {
  const n = ctx.config.slidingWindow;
  const target = Math.max(h.from, h.end - n);
  const { cut: from, moved } =
    target === h.from ? { cut: h.from, moved: 0 } : pairSafeCut(ctx, target, h.end, { lo: h.from, hi: h.end, prefer: 'nearest' });
  return {
    kept: { from, keepBefore: [] },
    dropped: droppedRanges(h, from, []),
    masked: [],
    note: `sliding window: kept the last ${h.end - from} messages (N = ${n})${movedNote(moved)}`,
  };
};

export const strategy = defineStrategy({
  id: 'sliding-window',
  description: 'Keeps the last N messages (slidingWindow), whatever the token target.',
  settings,
  keepsMessageCounts: true,
  run: slidingWindow,
});
