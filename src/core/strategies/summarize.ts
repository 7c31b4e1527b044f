/**
 * Summarize (docs/policies.md §S2 Summarize(model), and the presets' summarizers): fold the oldest
 * turns into the summary until the rest fits. With `summarizeKeepLast` (S2: "takes messages
 * 0..N-10 … keeps last 10 messages intact"), it keeps exactly the last N messages instead — a cut
 * between a tool call and its result moves by the fewest messages, earlier on a tie, so never
 * fewer than N stay — whatever the token budget.
 */
import { z } from 'zod';
import { setting } from '../config-common';
import { defineStrategy, type ConfigWith } from './define';
import type { HistoryView, Strategy, StrategyContext } from './types';
import { cutToFit, droppedRanges, movedNote, pairSafeCut } from './util';

/** The start of the last `n` messages before the call, moved so no tool call loses its result. */
function lastMessagesCut(h: HistoryView, ctx: StrategyContext, n: number): { from: number; moved: number } {
  const target = Math.max(h.from, h.end - n);
  if (target === h.from) return { from: h.from, moved: 0 };
  const { cut, moved } = pairSafeCut(ctx, target, h.end, { lo: h.from, hi: h.end, prefer: 'nearest' });
  return { from: cut, moved };
}

const settings = z.object({
  /**
   * Keep exactly the last N messages and fold the rest (the SDK turn interceptor: "takes messages
   * 0..N-10 … keeps last 10 messages intact"); unset, fold the oldest turns until the history fits
   * the target (docs/policies.md §S2, Summarize).
   */
  summarizeKeepLast: setting(z.number().int().positive().optional(), {
    label: 'Summarize keeps last',
    group: 'Strategy',
    unit: 'messages',
    description:
      "The SDK turn interceptor's Summarize: the last N messages stay intact, the rest is summarized (unset: summarize until the target is met).",
  }),
});

export const summarize: Strategy<ConfigWith<typeof settings.shape>> = (h, budget, ctx) => {
  const keepLast = ctx.config.summarizeKeepLast;
  const byCount = keepLast !== undefined ? lastMessagesCut(h, ctx, keepLast) : undefined;
  // Leave room for the summary itself: aim the kept history at 80% of the budget.
  const from = byCount ? byCount.from : cutToFit(h, ctx, Math.floor(budget * 0.8), 0, h.from);
  const dropped = droppedRanges(h, from, []);
  // Letta over its trigger with nothing left to fold asks at every call: counted in an indexed
  // loop (a reduce destructuring each range), the result written out per case (a spread of an
  // optional part copied an object per call), the note one string per count.
  let folded = 0;
  for (let q = 0; q < dropped.length; q++) folded += dropped[q]![1] - dropped[q]![0] + 1;
  const kept = { from, keepBefore: NONE };
  const note = byCount
    ? `summarized ${folded} messages, kept the last ${h.end - from} (N = ${keepLast})${movedNote(byCount.moved)}`
    : summarizedNote(folded);
  if (!dropped.length) return { kept, dropped, masked: NONE, note };
  return { kept, dropped, masked: NONE, summaryRequest: { ranges: dropped, targetTokens: Math.max(512, Math.floor(budget * 0.2)) }, note };
};

/** "summarized N messages": the same few counts come back at every call, one string each. */
function summarizedNote(n: number): string {
  let note = summarizedNotes.get(n);
  if (note === undefined) {
    note = `summarized ${n} messages`;
    if (summarizedNotes.size >= 4096) summarizedNotes.clear();
    summarizedNotes.set(n, note);
  }
  return note;
}
const summarizedNotes = new Map<number, string>();

/** No message kept before the cut, none masked: one list for every result (no one writes to a result's lists). */
const NONE: readonly number[] = Object.freeze([]);

export const strategy = defineStrategy({
  id: 'summarize',
  description: 'Folds the oldest turns (or all but the last summarizeKeepLast messages) into a summary.',
  settings,
  summarizes: true,
  // With a keep-last count it keeps a message count, not a token target.
  keepsMessageCounts: (c) => c.summarizeKeepLast !== undefined,
  run: summarize,
});
