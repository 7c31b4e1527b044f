/**
 * docs/policies.md §S3: primers (the first N messages, default 3) + a summary of the middle +
 * recents (the last M messages, default 20) + the user prompt the current call answers (under a
 * token trigger; the OpenHands presets count events and keep exactly theirs). Counts are
 * messages, not turns. A cut never separates a tool call from its result: the primers grow
 * to take their calls' results, and the recents' start moves by the fewest messages, said in the
 * note. When primers + summary + recents still exceed the target the strategy keeps them all
 * (`keptWhateverTarget`): it never trims the recents or drops the prompt to meet a number; the
 * replay says so once the summary is made (replay/compress.ts).
 */
import type { Message } from '../model';
import { z } from 'zod';
import { setting } from '../config-common';
import { defineStrategy, type ConfigWith } from './define';
import type { HistoryView, Strategy, StrategyContext } from './types';
import { currentPrompt, droppedRanges, movedNote, pairSafeCut, range } from './util';

/** docs/policies.md §S3, compress_context's default: "Keep the summary under {target_tokens} tokens", target_tokens = 400. */
export const S3_SUMMARY_TOKENS = 400;

/** First `n` messages, extended so no tool call in them loses its result (none when that never closes before `limit`). */
export function primerIndices(ctx: StrategyContext, n: number, limit: number): number[] {
  if (n <= 0) return [];
  if (n <= limit && Number.isInteger(n)) {
    // Where the first n messages' calls all have their results depends on the messages only:
    // found once per list and n, not at every compression.
    const close = primersClose(ctx.messages, n);
    return close <= limit ? range(0, close) : [];
  }
  let k = Math.min(n, limit);
  const open = new Set<string>();
  const scan = (i: number): void => {
    for (const p of ctx.messages[i]!.parts) {
      if (p.kind === 'tool_call') open.add(p.id);
      else if (p.kind === 'tool_result') open.delete(p.callId);
    }
  };
  for (let i = 0; i < k; i++) scan(i);
  while (open.size > 0 && k < limit) scan(k++);
  return open.size > 0 ? [] : range(0, k);
}

/**
 * The smallest k ≥ n at which messages [0, k) leave no tool call without its result (Infinity when
 * none does): primerIndices' extension, as scanned from the start, per message list and n.
 */
const closeCache = new WeakMap<readonly Message[], Map<number, number>>();
function primersClose(messages: readonly Message[], n: number): number {
  let byN = closeCache.get(messages);
  if (!byN) closeCache.set(messages, (byN = new Map()));
  let close = byN.get(n);
  if (close === undefined) {
    const open = new Set<string>();
    const scan = (i: number): void => {
      for (const p of messages[i]!.parts) {
        if (p.kind === 'tool_call') open.add(p.id);
        else if (p.kind === 'tool_result') open.delete(p.callId);
      }
    };
    let k = Math.min(n, messages.length);
    for (let i = 0; i < k; i++) scan(i);
    while (open.size > 0 && k < messages.length) scan(k++);
    close = open.size > 0 ? Infinity : k;
    byN.set(n, close);
  }
  return close;
}

/** Message i is in the history view (a module function: a closure per compression was garbage). */
function inView(h: HistoryView, i: number): boolean {
  return (i >= h.from && i < h.end) || h.keepBefore.includes(i);
}

const settings = z.object({
  primers: setting(z.number().int().nonnegative().default(3), {
    label: 'Primers',
    group: 'Strategy',
    unit: 'messages',
    description: 'The sliding-window compression: first messages always kept.',
  }),
  recents: setting(z.number().int().nonnegative().default(20), {
    label: 'Recents',
    group: 'Strategy',
    unit: 'messages',
    description: 'The sliding-window compression: last messages always kept.',
  }),
});

export const primersRecents: Strategy<ConfigWith<typeof settings.shape>> = (h, _budget, ctx) => {
  const { primers, recents } = ctx.config;
  const end = h.end;
  const primerSet = primerIndices(ctx, primers, end);
  // Filtered in place (primerIndices hands out a new array): no second array per compression.
  let inViewCount = 0;
  for (let q = 0; q < primerSet.length; q++) if (inView(h, primerSet[q]!)) primerSet[inViewCount++] = primerSet[q]!;
  primerSet.length = inViewCount;
  const primerEnd = primerSet.length > 0 ? primerSet[primerSet.length - 1]! + 1 : 0;
  const lo = Math.max(h.from, primerEnd);
  const target = Math.max(lo, end - recents);
  const recentsCut = target === lo ? { cut: lo, moved: 0 } : pairSafeCut(ctx, target, end, { lo, hi: end, prefer: 'nearest' });
  let from = recentsCut.cut;
  let promptNote = '';
  // primerSet ascends: those before the cut are a prefix of it.
  let before = 0;
  while (before < primerSet.length && primerSet[before]! < from) before++;
  const keepBefore = primerSet.slice(0, before);
  // docs/policies.md §S3 keeps the prompt the call answers. An event-count condenser (OpenHands, `triggerMessages`)
  // keeps exactly its first and most recent events, so its counts stay its own.
  const prompt = ctx.config.triggerMessages === undefined ? currentPrompt(ctx.messages, end) : -1;
  if (prompt >= primerEnd && prompt < from && inView(h, prompt)) {
    if (ctx.messages[prompt]!.parts.some((p) => p.kind === 'tool_result')) {
      // A prompt that also carries tool results keeps their calls: the recents reach back to it.
      from = pairSafeCut(ctx, prompt, end, { lo, hi: prompt, prefer: 'nearest' }).cut;
      promptNote = `, recents extended back to the current prompt (message ${prompt})`;
      keepBefore.splice(0, keepBefore.length, ...primerSet.filter((i) => i < from));
    } else {
      keepBefore.push(prompt);
      promptNote = ` + current prompt (message ${prompt})`;
    }
  }
  const dropped = droppedRanges(h, from, keepBefore);
  // Indexed loops: destructuring a range per iteration made an iterator per compression.
  let folded = 0;
  for (let q = 0; q < dropped.length; q++) folded += dropped[q]![1] - dropped[q]![0] + 1;
  let primersKept = 0;
  for (let q = 0; q < primerSet.length; q++) if (primerSet[q]! < from) primersKept++;
  const note =
    promptNote === ''
      ? countsNote(primersKept, folded, end - from, recentsCut.moved)
      : `primers ${primersKept} + summary of ${folded}${promptNote} + recents ${end - from}${movedNote(recentsCut.moved)}`;
  // Under a token target, what is kept stays even over the target (docs/policies.md §S3): the
  // replay checks the request it sends, summary made, against the target. An event-count
  // condenser (OpenHands, `triggerMessages`) aims at a count, which it always meets.
  const keptWhateverTarget = ctx.config.triggerMessages === undefined;
  // Written out per case, not with spreads of optional parts (an object copied per compression).
  const kept = { from, keepBefore };
  if (!dropped.length)
    return keptWhateverTarget ? { kept, dropped, masked: NO_MASKS, keptWhateverTarget, note } : { kept, dropped, masked: NO_MASKS, note };
  const summaryRequest = { ranges: dropped, targetTokens: S3_SUMMARY_TOKENS };
  return keptWhateverTarget
    ? { kept, dropped, masked: NO_MASKS, summaryRequest, keptWhateverTarget, note }
    : { kept, dropped, masked: NO_MASKS, summaryRequest, note };
};
/**
 * "primers P + summary of F + recents R" (and the cut's move): an event-count condenser
 * compressing at every call says the same few at each (each compression event keeps its note), so
 * one string per (P, F, R, move) while they fit a key.
 */
function countsNote(primers: number, folded: number, recents: number, moved: number): string {
  const cacheable =
    primers >= 0 && primers < 1024 && folded >= 0 && folded < 65_536 && recents >= 0 && recents < 65_536 && moved > -512 && moved < 512;
  const key = ((primers * 65_536 + folded) * 65_536 + recents) * 1024 + (moved + 512);
  let note = cacheable ? countsNotes.get(key) : undefined;
  if (note === undefined) {
    note = `primers ${primers} + summary of ${folded} + recents ${recents}${movedNote(moved)}`;
    if (cacheable) {
      if (countsNotes.size >= 4096) countsNotes.clear();
      countsNotes.set(key, note);
    }
  }
  return note;
}
const countsNotes = new Map<number, string>();

/** This strategy masks nothing: one empty list for every result (no one writes to a result's lists). */
const NO_MASKS: readonly number[] = Object.freeze([]);

export const strategy = defineStrategy({
  id: 'primers-recents',
  description: 'Keeps the first primers and the last recents messages and the current prompt; summarizes the middle.',
  settings,
  summarizes: true,
  keepsMessageCounts: true,
  run: primersRecents,
});
