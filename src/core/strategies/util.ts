/** Turn arithmetic shared by the strategies. */
import type { Message } from '../model';
import type { MessageRange } from '../replay/types';
import { isTurnBoundary } from '../turns';
import type { HistoryView, StrategyContext } from './types';

/** Start of the turn that contains message `i` (the current turn when i = end - 1). */
export function turnStartOf(turnStarts: readonly number[], i: number): number {
  let lo = 0;
  let hi = turnStarts.length - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (turnStarts[mid]! <= i) {
      best = turnStarts[mid]!;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** First turn boundary ≥ i (or `limit` when none is before it). */
export function boundaryAtOrAfter(turnStarts: readonly number[], i: number, limit: number): number {
  // Binary search: an event-count condenser asks on every call of a long session.
  let lo = 0;
  let hi = turnStarts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (turnStarts[mid]! < i) lo = mid + 1;
    else hi = mid;
  }
  return lo < turnStarts.length ? Math.min(turnStarts[lo]!, limit) : limit;
}

/** The latest start a cut may use: the current turn (the one the call belongs to) always stays. */
export function latestCut(h: HistoryView, ctx: StrategyContext): number {
  return h.end > 0 ? turnStartOf(ctx.turnStarts, h.end - 1) : 0;
}

/** Everything in the history before `from` that is not kept again, as ranges. */
export function droppedRanges(h: HistoryView, from: number, keepBefore: readonly number[]): MessageRange[] {
  // Built as runs: the kept-before messages one by one (a few primers or pinned turns), then the
  // live part [h.from, cut) as the runs between the messages kept again inside it — no array of
  // every index, as a policy compressing at every call asks at each one. Anything out of order
  // (a kept-before list not ascending, or reaching into the live part) takes the plain way.
  const keep = keepBefore.length > 16 ? new Set(keepBefore) : undefined;
  const out: [number, number][] = [];
  for (let q = 0; q < h.keepBefore.length; q++) {
    const i = h.keepBefore[q]!;
    if (i >= from || (keep ? keep.has(i) : keepBefore.includes(i))) continue;
    if (!appendRun(out, i, i)) return droppedRangesPlain(h, from, keepBefore);
  }
  const liveEnd = Math.min(from, h.end);
  let a = h.from;
  for (const k of keptInside(keepBefore, h.from, liveEnd)) {
    if (k > a && !appendRun(out, a, k - 1)) return droppedRangesPlain(h, from, keepBefore);
    a = Math.max(a, k + 1);
  }
  if (a < liveEnd && !appendRun(out, a, liveEnd - 1)) return droppedRangesPlain(h, from, keepBefore);
  return out;
}

/** Appends the run [a, b] to ascending ranges, joined to the last when it touches; false when it would not come after it. */
function appendRun(out: [number, number][], a: number, b: number): boolean {
  const tail = out[out.length - 1];
  if (!tail) out.push([a, b]);
  else if (a === tail[1] + 1) tail[1] = b;
  else if (a > tail[1] + 1) out.push([a, b]);
  else return false;
  return true;
}

/** The kept indices in [lo, hi), ascending (usually none or a few). */
function keptInside(keepBefore: readonly number[], lo: number, hi: number): readonly number[] {
  let inside: number[] | undefined;
  for (let q = 0; q < keepBefore.length; q++) if (keepBefore[q]! >= lo && keepBefore[q]! < hi) (inside ??= []).push(keepBefore[q]!);
  return inside ? inside.sort((x, y) => x - y) : NONE_INSIDE;
}
/** keptInside's answer when none is inside (mostly): one list for all, never written to. */
const NONE_INSIDE: readonly number[] = Object.freeze([]);

/** droppedRanges by its definition: the candidates in order, less the kept ones, through toRanges. */
function droppedRangesPlain(h: HistoryView, from: number, keepBefore: readonly number[]): MessageRange[] {
  const keep = new Set(keepBefore);
  const candidates = [...h.keepBefore.filter((i) => i < from), ...range(h.from, Math.min(from, h.end))];
  return toRanges(candidates.filter((i) => !keep.has(i)));
}

export function range(a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = a; i < b; i++) out.push(i);
  return out;
}

export function toRanges(sorted: readonly number[]): MessageRange[] {
  const out: MessageRange[] = [];
  eachRun(sorted, (a, z) => out.push([a, z]));
  return out;
}

/**
 * Calls `visit(first, last)` for each run of consecutive indices, in order: toRanges without a
 * tuple per run (a replay's compression log writes the runs as pairs of numbers).
 */
export function eachRun(sorted: readonly number[], visit: (first: number, last: number) => void): void {
  if (sorted.length === 0) return;
  // Callers almost always pass ascending indices: sort (a copy) only when they did not.
  let ascending = true;
  for (let k = 1; k < sorted.length && ascending; k++) if (sorted[k]! < sorted[k - 1]!) ascending = false;
  const xs = ascending ? sorted : [...sorted].sort((x, y) => x - y);
  let a = xs[0]!;
  let z = a;
  for (let k = 1; k < xs.length; k++) {
    const i = xs[k]!;
    if (i === z + 1) z = i;
    else {
      visit(a, z);
      a = z = i;
    }
  }
  visit(a, z);
}

/** Tokens of the history view. */
export function viewTokens(h: HistoryView, ctx: StrategyContext): number {
  let t = ctx.rangeTokens(h.from, h.end);
  for (const i of h.keepBefore) t += ctx.tokensOf(i);
  return t;
}

/** Smallest boundary b ≥ earliest with tokens of [b, end) + fixed ≤ budget, not past `latest`. */
export function cutToFit(h: HistoryView, ctx: StrategyContext, budget: number, fixed: number, earliest: number): number {
  const latest = latestCut(h, ctx);
  const starts = ctx.turnStarts;
  // The first boundary ≥ earliest, then the first one from there that fits: tokens of [b, end)
  // only shrink as b grows, so both are binary searches (O(log turns) per compression).
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! < earliest) lo = mid + 1;
    else hi = mid;
  }
  hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const s = starts[mid]!;
    if (s > latest || ctx.rangeTokens(s, h.end) + fixed <= budget) hi = mid;
    else lo = mid + 1;
  }
  return lo < starts.length ? Math.min(starts[lo]!, latest) : latest;
}

export function isToolResultMessage(ctx: StrategyContext, i: number): boolean {
  return toolResultFlags(ctx.messages)[i] === 1;
}

/**
 * 1 for each message holding a tool result, once per message list (a session's messages never
 * change): masking asks at every call, and reading the parts with a closure each time was garbage.
 */
const toolResultCache = new WeakMap<readonly Message[], Uint8Array>();
function toolResultFlags(messages: readonly Message[]): Uint8Array {
  let out = toolResultCache.get(messages);
  if (!out) {
    out = new Uint8Array(messages.length);
    for (let i = 0; i < messages.length; i++) if (messages[i]!.parts.some((p) => p.kind === 'tool_result')) out[i] = 1;
    toolResultCache.set(messages, out);
  }
  return out;
}

/**
 * For each message, the smallest message index among the calls of its tool results (Infinity when
 * it holds none, or none whose call is known). Built once per message list — a session's messages
 * never change — so a cut check reads a typed array.
 */
const resultCallsCache = new WeakMap<readonly Message[], Float64Array>();
function earliestCallOfResults(messages: readonly Message[]): Float64Array {
  let out = resultCallsCache.get(messages);
  if (!out) {
    const calls = new Map<string, number>();
    out = new Float64Array(messages.length).fill(Infinity);
    for (let i = 0; i < messages.length; i++)
      for (const p of messages[i]!.parts) {
        if (p.kind === 'tool_call' && !calls.has(p.id)) calls.set(p.id, i);
        else if (p.kind === 'tool_result') {
          const c = calls.get(p.callId);
          if (c !== undefined && c < out[i]!) out[i] = c;
        }
      }
    resultCallsCache.set(messages, out);
  }
  return out;
}

/** Message indices of the real turn starts (user prompts), once per message list. */
const promptStartsCache = new WeakMap<readonly Message[], number[]>();

/**
 * The user prompt the call before `end` answers: the last message before `end` that starts a turn
 * (docs/policies.md §S3: the current prompt is never dropped). -1 when there is none.
 */
export function currentPrompt(messages: readonly Message[], end: number): number {
  let starts = promptStartsCache.get(messages);
  if (!starts) {
    starts = [];
    for (let i = 0; i < messages.length; i++) if (isTurnBoundary(messages[i]!)) starts.push(i);
    promptStartsCache.set(messages, starts);
  }
  let lo = 0;
  let hi = starts.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! < end) {
      best = starts[mid]!;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/**
 * For each cut t (0..n), the first message x ≥ t holding a result whose call is before t (n when
 * none): a cut at t orphans nothing in [t, end) exactly when this is ≥ end. Result x with earliest
 * call c orphans the cuts c < t ≤ x; walking x upward, each cut takes the first x that claims it
 * (a next-unclaimed pointer skips the claimed ones, so the table costs O(n) once per list).
 */
const firstOrphanCache = new WeakMap<readonly Message[], Int32Array>();
function firstOrphanFrom(messages: readonly Message[], callOf: Float64Array): Int32Array {
  let out = firstOrphanCache.get(messages);
  if (out) return out;
  const n = messages.length;
  out = new Int32Array(n + 1).fill(n);
  // unclaimed[t]: the first cut ≥ t not yet claimed (path-halved as it is followed).
  const unclaimed = new Int32Array(n + 2);
  for (let t = 0; t <= n + 1; t++) unclaimed[t] = t;
  const find = (t: number): number => {
    while (unclaimed[t]! !== t) {
      unclaimed[t] = unclaimed[unclaimed[t]!]!;
      t = unclaimed[t]!;
    }
    return t;
  };
  for (let x = 0; x < n; x++) {
    const c = callOf[x]!;
    if (!(c < x)) continue;
    for (let t = find(c + 1); t <= x; t = find(t + 1)) {
      out[t] = x;
      unclaimed[t] = t + 1;
    }
  }
  firstOrphanCache.set(messages, out);
  return out;
}

/** Where a message-count cut landed: the cut, and how far it moved so no tool call lost its result. */
export interface PairSafeCut {
  readonly cut: number;
  /** cut − target: negative = moved earlier (kept more), positive = later (kept fewer). */
  readonly moved: number;
}

/**
 * The cut nearest to `target` (keep [cut, end)) that orphans no tool call or result
 * (docs/policies.md §S2, §S3). A cut at x is safe when no tool result in [x, end) has its call
 * before x. `prefer: 'nearest'` moves by the fewest messages, earlier on a tie (never fewer than
 * asked); `'later'` only moves later (a strategy that must drop at least what it asked for).
 * Cost: O(end − target + distance moved) — the kept tail and the move, never the session.
 */
export function pairSafeCut(
  ctx: StrategyContext,
  target: number,
  end: number,
  bounds: { readonly lo: number; readonly hi: number; readonly prefer: 'nearest' | 'later' },
): PairSafeCut {
  const callOf = earliestCallOfResults(ctx.messages);
  // The common case (the cut orphans nothing): one look-up in a table made once per message list.
  // (A pass over [target, end) per cut was the largest share of a policy cutting at every call.)
  const n = ctx.messages.length;
  if (Number.isInteger(target) && Number.isInteger(end) && target >= 0 && end <= n) {
    // A cut at x is safe exactly when firstOrphan[x] ≥ end: the move is found by looking cuts up
    // one by one from the target (a move is a message or two), no per-cut array.
    const firstOrphan = firstOrphanFrom(ctx.messages, callOf);
    if (firstOrphan[target]! >= end) return { cut: target, moved: 0 };
    let later: number | undefined;
    for (let x = target + 1, hi = Math.min(bounds.hi, end); x <= hi; x++)
      if (firstOrphan[x]! >= end) {
        later = x;
        break;
      }
    if (bounds.prefer === 'later') return { cut: later ?? bounds.hi, moved: (later ?? bounds.hi) - target };
    let earlier: number | undefined;
    const limit = later === undefined ? bounds.lo : Math.max(bounds.lo, target - (later - target));
    for (let x = target - 1; x >= limit && x >= 0; x--)
      if (firstOrphan[x]! >= end) {
        earlier = x;
        break;
      }
    const cut = earlier ?? later ?? bounds.lo;
    return { cut, moved: cut - target };
  }
  // Defined past the common case: a closure made at every cut of a policy cutting at each was garbage.
  /** Smallest call index among the results of message x. */
  const earliestCallOf = (x: number): number => callOf[x]!;
  let safe = true;
  for (let x = target; x < end && safe; x++) if (earliestCallOf(x) < target) safe = false;
  if (safe) return { cut: target, moved: 0 };
  // minCall[x − target] = smallest call index of the results in [x, end).
  const len = Math.max(0, end - target) + 1;
  const minCall = new Float64Array(len).fill(Infinity);
  for (let x = end - 1; x >= target; x--) minCall[x - target] = Math.min(minCall[x - target + 1]!, earliestCallOf(x));
  let later: number | undefined;
  for (let x = target + 1; x <= Math.min(bounds.hi, end); x++)
    if (minCall[x - target]! >= x) {
      later = x;
      break;
    }
  if (bounds.prefer === 'later') return { cut: later ?? bounds.hi, moved: (later ?? bounds.hi) - target };
  let earlier: number | undefined;
  let m = minCall[0]!;
  const limit = later === undefined ? bounds.lo : Math.max(bounds.lo, target - (later - target));
  for (let x = target - 1; x >= limit; x--) {
    m = Math.min(m, earliestCallOf(x));
    if (m >= x) {
      earlier = x;
      break;
    }
  }
  const cut = earlier ?? later ?? bounds.lo;
  return { cut, moved: cut - target };
}

/** A note for a cut that had to move ("" when it did not). */
export function movedNote(moved: number): string {
  if (moved === 0) return '';
  // The same few moves come back at every call of a policy cutting at each: one string per move.
  let note = movedNotes.get(moved);
  if (note === undefined) {
    const n = Math.abs(moved);
    note = ` (cut moved ${n} message${n === 1 ? '' : 's'} ${moved < 0 ? 'earlier' : 'later'} so no tool call is separated from its result)`;
    if (movedNotes.size < 1024) movedNotes.set(moved, note);
  }
  return note;
}
const movedNotes = new Map<number, string>();

/** Sorted, merged copy of inclusive ranges (overlapping or touching ranges become one). */
export function mergeRanges(ranges: readonly MessageRange[]): MessageRange[] {
  // Mostly already in order (one strategy's ranges): copied and sorted only when they are not.
  let inOrder = true;
  for (let k = 1; k < ranges.length && inOrder; k++) if (ranges[k]![0] < ranges[k - 1]![0]) inOrder = false;
  const sorted = inOrder ? ranges : [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (let q = 0; q < sorted.length; q++) {
    const a = sorted[q]![0];
    const b = sorted[q]![1];
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}
