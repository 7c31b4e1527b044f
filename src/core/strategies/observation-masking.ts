/** Observation masking (OpenHands): every tool result but the last N is replaced by a placeholder, whatever the budget. */
import type { MessageRange } from '../replay/types';
import { z } from 'zod';
import { setting } from '../config-common';
import { defineStrategy, type ConfigWith } from './define';
import type { Strategy } from './types';
import { PLACEHOLDER_TOKENS } from './tool-pruning';
import { isToolResultMessage } from './util';

const settings = z.object({
  /** The last N tool results stay verbatim. */
  keepToolResults: setting(z.number().int().nonnegative().default(5), {
    label: 'Verbatim tool results',
    group: 'Strategy',
    unit: 'tool results',
    description: 'Observation masking: the last N tool results stay verbatim.',
  }),
  /** By events (OpenHands' attention_window): results among the last N messages stay verbatim; overrides keepToolResults. */
  attentionWindow: setting(z.number().int().positive().optional(), {
    label: 'Attention window',
    group: 'Strategy',
    unit: 'messages',
    description: 'Observation masking by events: results among the last N messages stay verbatim.',
  }),
});

export const observationMasking: Strategy<ConfigWith<typeof settings.shape>> = (h, _budget, ctx) => {
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
    // Found newest first: turned around, sorted only when kept-before results join them.
    older.reverse();
    const walked = older.length;
    for (const i of h.keepBefore) if (i < h.end - window && isToolResultMessage(ctx, i)) older.push(i);
    if (older.length > walked) older.sort(ascending);
  } else {
    for (const i of [...h.keepBefore, ...Array.from({ length: h.end - h.from }, (_, k) => h.from + k)])
      if (isToolResultMessage(ctx, i)) results.push(i);
    older = results.slice(0, Math.max(0, results.length - keep));
  }
  // Filtered in place (`older` is this call's own list).
  let n = 0;
  for (let q = 0; q < older.length; q++) {
    const i = older[q]!;
    if (!ctx.isMasked(i) && ctx.tokensOf(i) > PLACEHOLDER_TOKENS) older[n++] = i;
  }
  older.length = n;
  const masked = older;
  return {
    kept: { from: h.from, keepBefore: h.keepBefore },
    dropped: NONE_DROPPED,
    masked,
    note:
      window !== undefined
        ? windowNote(masked.length, window)
        : `masked ${masked.length} observations, kept the last ${Math.min(keep, results.length)}`,
  };
};

const ascending = (a: number, b: number): number => a - b;
/** Masking drops nothing: one empty list for every result (no one writes to a result's lists). */
const NONE_DROPPED: readonly MessageRange[] = Object.freeze([]);

/**
 * "masked N observations, outside the last W messages": the same few come back at every call of a
 * masking policy (each compression event keeps its note), so one string per (N, W).
 */
function windowNote(count: number, window: number): string {
  const key = count * 1_048_576 + window;
  const cacheable = Number.isInteger(window) && window >= 0 && window < 1_048_576 && count < 1_048_576;
  let note = cacheable ? windowNotes.get(key) : undefined;
  if (note === undefined) {
    note = `masked ${count} observations, outside the last ${window} messages`;
    if (cacheable) {
      if (windowNotes.size >= 4096) windowNotes.clear();
      windowNotes.set(key, note);
    }
  }
  return note;
}
const windowNotes = new Map<number, string>();

export const strategy = defineStrategy({
  id: 'observation-masking',
  description: 'Replaces every tool result but the last keepToolResults (or those outside the attention window) by a placeholder.',
  settings,
  keepsMessageCounts: true,
  // Masking runs at every call: a call with nothing newly aged out is its steady state.
  masksContinuously: true,
  ignored: (key, c) => (key === 'keepToolResults' && c.attentionWindow !== undefined ? 'attentionWindow replaces it' : null),
  run: observationMasking,
});
