/**
 * The compression engine the three paths share (docs/policies.md §Common, compression): run the
 * strategy pipeline, or S0's forceCompression (drop the oldest ~50% of turns); keep pinned turns;
 * fold what left into the summary; record one event with the tokens before and after.
 * Work per compression is proportional to what it removes, never to the whole session: pins are
 * found by binary search, cut points only when a strategy reads them.
 */
import { lowerBound } from '../sorted';
import type { Message } from '../model';
import type { StrategyId } from '../config';
import { PLACEHOLDER_TOKENS, STRATEGIES, strategyById, type HistoryView, type Strategy, type StrategyContext } from '../strategies/index';
import { checkedResult } from '../strategies/check';
import { mergeRanges, toRanges } from '../strategies/util';
import { sameSummary, SummaryText } from '../summarize/summary-text';
import type { Summarizer } from '../summarize/types';
import { TurnCutPoints } from '../turns';
import { requestAt, type ReplayState } from './state';
import type { CompressionPath, MessageRange } from './types';

/**
 * Summaries by what was folded (ranges of this message list, the earlier summary, the target),
 * per summarizer: a re-run after a slider move folds many of the same ranges again, and asking
 * the summarizer's own cache means formatting and hashing every folded message first.
 */
const foldMemo = new WeakMap<readonly Message[], Map<Summarizer, Map<FoldKey, Map<SummaryText | null, SummaryText>>>>();
const FOLD_MEMO_LIMIT = 20_000;

/**
 * What a fold memo is keyed by: the target and the ranges. One range with a small target (an
 * event-count condenser folds one run at every call, toward S3's 400 tokens) is a number —
 * (target · 2²¹ + a) · 2²¹ + z, exact below 2⁵³ — with no string built and hashed per call (the
 * look-up led a cold replay's own lines under openhands-summary); anything else the text
 * `target\0a-z,a-z…`. A fold always gets the same kind of key, so the two never name one fold.
 */
type FoldKey = number | string;
const FOLD_BITS = 2 ** 21;
const FOLD_TARGET_LIMIT = 2 ** 11;

export function foldKey(targetTokens: number, fold: readonly MessageRange[]): FoldKey {
  if (fold.length === 1) {
    const a = fold[0]![0];
    const z = fold[0]![1];
    if (small(targetTokens, FOLD_TARGET_LIMIT) && small(a, FOLD_BITS) && small(z, FOLD_BITS))
      return (targetTokens * FOLD_BITS + a) * FOLD_BITS + z;
  }
  return `${targetTokens}\u0000${fold.map(([a, z]) => `${a}-${z}`).join(',')}`;
}

/** A whole number in [0, limit) (-0 included: it is 0 to a Map, as the text key writes it "0"). */
function small(x: number, limit: number): boolean {
  return Number.isInteger(x) && x >= 0 && x < limit;
}

/**
 * The summary of `fold` on top of the current one: at once when the memo has it or the summarizer
 * is local (it lays its summary out synchronously), a promise only for a remote one — a policy
 * folding at every call awaited a promise per call for a summary it already had.
 */
function summarizeFold(
  s: ReplayState,
  summarizer: Summarizer,
  fold: readonly MessageRange[],
  targetTokens: number,
): SummaryText | Promise<SummaryText> {
  let bySummarizer = foldMemo.get(s.messages);
  if (!bySummarizer) foldMemo.set(s.messages, (bySummarizer = new Map()));
  let memo = bySummarizer.get(summarizer);
  if (!memo) bySummarizer.set(summarizer, (memo = new Map()));
  // Keyed by the earlier summary object in a map of its own: the same object comes back from this
  // memo on a re-run (and a summary known only as text is one object per text, SummaryText.of).
  const key = foldKey(targetTokens, fold);
  let byPrevious = memo.get(key);
  const hit = byPrevious?.get(s.summary);
  if (hit !== undefined) return hit;
  // Copied in a plain loop into an array of the final length: flatMap over slices was a third of
  // this function's time in a sweep (a fold holds hundreds of messages, one per compression).
  // Bounded as slice(a, z + 1) is: a range past the list's end or reversed copies what is there.
  const last = s.messages.length - 1;
  let n = 0;
  for (const [a, z] of fold) n += Math.max(0, Math.min(z, last) - a + 1);
  const folded = new Array<Message>(n);
  let at = 0;
  for (const [a, z] of fold) for (let i = a, end = Math.min(z, last); i <= end; i++) folded[at++] = s.messages[i]!;
  // A local summarizer lays its summary out without writing it; a remote one answers text.
  const previous = s.summary;
  const remember = (out: SummaryText): SummaryText => {
    if (memo.size >= FOLD_MEMO_LIMIT) memo.clear();
    if (!byPrevious) memo.set(key, (byPrevious = new Map()));
    byPrevious.set(previous, out);
    return out;
  };
  // One run of the session's list: named, so that the extractive summarizer reads the list's
  // layout of items (built once per list, kept across replays) rather than each message's.
  const source = fold.length === 1 && n > 0 ? { list: s.messages, from: fold[0]![0] } : undefined;
  if (summarizer.summarizeText)
    return remember(
      summarizer.summarizeText(
        source ? { messages: folded, previous, targetTokens, source } : { messages: folded, previous, targetTokens },
      ),
    );
  return summarizer
    .summarize({ messages: folded, previousSummary: previous?.text ?? null, targetTokens })
    .then((text) => remember(SummaryText.of(text)));
}

/**
 * A live-tail append (docs/user-guide.md "Live tail") hands the replay a new message list whose first `from`
 * messages are the same objects as `old`'s: the folds memoized on `old` that end before `from`
 * summarize the same messages, so they carry over instead of being summarized again (on a long
 * session that is most of a re-run's cost).
 */
export function carryFoldMemo(old: readonly Message[], next: readonly Message[], from: number): void {
  const bySummarizer = foldMemo.get(old);
  if (!bySummarizer || foldMemo.has(next)) return;
  const carried = new Map<Summarizer, Map<FoldKey, Map<SummaryText | null, SummaryText>>>();
  for (const [summarizer, memo] of bySummarizer) {
    const kept = new Map<FoldKey, Map<SummaryText | null, SummaryText>>();
    for (const [key, byPrevious] of memo) if (foldEnd(key) < from) kept.set(key, byPrevious);
    carried.set(summarizer, kept);
  }
  foldMemo.set(next, carried);
}

/** The last message index a fold memo key names (foldKey: its z, or the largest z of `target\0a-z,a-z…`). */
export function foldEnd(key: FoldKey): number {
  if (typeof key === 'number') return key % FOLD_BITS;
  let end = -1;
  for (const range of key.slice(key.indexOf('\u0000') + 1).split(',')) {
    const z = Number(range.slice(range.indexOf('-') + 1));
    // A key this cannot read carries nothing.
    if (!Number.isInteger(z)) return Number.POSITIVE_INFINITY;
    end = Math.max(end, z);
  }
  return end;
}

export interface CompressionOutcome {
  readonly before: number;
  readonly after: number;
  /** forceCompression only: turns dropped and turns there were. */
  readonly turnsDropped?: number;
  readonly turnsInWindow?: number;
}

/**
 * The messages kept before the new live start `newFrom`: what the strategy keeps, plus the whole
 * turn (up to `newFrom`) of every pinned message that was in the window — a turn is never split,
 * so a pinned call keeps its result.
 */
function withPinnedTurns(s: ReplayState, oldFrom: number, newFrom: number, keep: readonly number[], end: number): readonly number[] {
  if (!s.pins.any) return keep;
  const { starts, turnOfMsg } = s.shape;
  const out = new Set(keep);
  const rescue = (i: number): void => {
    const t = turnOfMsg[i]!;
    const a = starts[t] ?? 0;
    const z = Math.min(starts[t + 1] ?? end, newFrom);
    for (let x = a; x < z; x++) out.add(x);
  };
  for (const i of s.win.keepBefore) if (i < newFrom && s.pins.isPinned(i)) rescue(i);
  const p = s.pins.sorted;
  for (let q = lowerBound(p, oldFrom); q < p.length && p[q]! < Math.min(newFrom, end); q++) rescue(p[q]!);
  if (out.size === keep.length) return keep;
  return [...out].sort((x, y) => x - y);
}

/**
 * The kept messages before the live range as runs (as toRanges makes them). Each event keeps its
 * ranges for the life of the result, and the primers come back unchanged at every compression of
 * a policy compressing at each: the runs of the same messages are the same (never written) pairs.
 */
function keptBeforeRuns(s: ReplayState): readonly MessageRange[] {
  const kb = s.win.keepBefore;
  const from = s.win.from;
  const held = runsHeld.get(s);
  if (held && held.from <= from && sameList(held.list, kb) && (kb.length === 0 || kb[kb.length - 1]! < held.from)) return held.runs;
  // One indexed pass; they ascend but for a rare custom order, which takes toRanges' sorted copy.
  let runs: [number, number][] = [];
  for (let q = 0; q < kb.length; q++) {
    const i = kb[q]!;
    if (q > 0 && i < kb[q - 1]!) {
      runs = toRanges(kb.filter((x) => x < from)) as [number, number][];
      break;
    }
    if (i >= from) continue;
    const last = runs[runs.length - 1];
    if (last && i === last[1] + 1) last[1] = i;
    else runs.push([i, i]);
  }
  runsHeld.set(s, { list: kb.slice(), from, runs });
  return runs;
}
/** Per replay, the kept-before list last turned into runs (every one of its messages before `from`, when reused). */
const runsHeld = new WeakMap<
  ReplayState,
  { readonly list: readonly number[]; readonly from: number; readonly runs: readonly MessageRange[] }
>();

function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let q = 0; q < a.length; q++) if (a[q] !== b[q]) return false;
  return true;
}

/**
 * `ranges` as mergeRanges gives them: the list itself when it already is (ascending, apart, as one
 * strategy's list mostly is; nothing changes a strategy's lists after it), else the merged copy.
 */
function merged(ranges: readonly MessageRange[]): readonly MessageRange[] {
  if (ranges.length === 0) return NONE;
  for (let q = 1; q < ranges.length; q++)
    if (!(ranges[q]![0] >= ranges[q - 1]![0] && ranges[q]![0] > ranges[q - 1]![1] + 1)) return mergeRanges(ranges);
  return ranges;
}

/** Messages of `ranges` not in `kept` (pinned turns rescued), as ranges. */
function minusKept(ranges: readonly MessageRange[], kept: ReadonlySet<number>): MessageRange[] {
  const out: number[] = [];
  for (const [a, z] of ranges) for (let i = a; i <= z; i++) if (!kept.has(i)) out.push(i);
  return toRanges(out);
}

/**
 * Cut points for a request ending at `end`: the turn starts, plus (cutWithinTurn) the exchange
 * boundaries of the turn in progress (docs/policies.md §Common, turns).
 */
function cutPoints(s: ReplayState, end: number): readonly number[] {
  const { starts, turnOfMsg } = s.shape;
  if (!s.config.cutWithinTurn || end <= 0) return starts;
  // One list per turn, with the exchange starts of the whole turn: those at or past `end` change
  // no strategy's answer, as the later turns' starts already there do not (every cut is clamped to
  // the call's own turn start, latestCut, and a kept range never reaches past `end`); and an
  // exchange start depends only on the messages before it.
  let held = cutCache.get(s);
  if (!held) cutCache.set(s, (held = new TurnCutPoints(s.messages, starts)));
  return held.of(turnOfMsg[end - 1]!);
}
/** Per replay, its cut points (a strategy reads them only while it runs: strategies are pure). */
const cutCache = new WeakMap<ReplayState, TurnCutPoints>();

/**
 * The strategies' context for a request ending at `end`. One object per replay, pointed at each
 * compression's `end` (a policy compressing at every call built an object and three closures per
 * call). A plain object with own properties, not a class: the pipeline spreads it (withMasked).
 */
function strategyContext(s: ReplayState, end: number): StrategyContext {
  let held = contexts.get(s);
  if (!held) {
    const win = s.win;
    const h: { end: number; turnStarts: readonly number[] | undefined; readonly ctx: StrategyContext } = {
      end,
      turnStarts: undefined,
      ctx: {
        messages: s.messages,
        // Built only if a strategy reads it: masking never does, and it runs at every call.
        get turnStarts() {
          return (h.turnStarts ??= cutPoints(s, h.end));
        },
        config: s.config,
        rangeTokens: (a, c) => win.rangeTokens(a, c),
        tokensOf: (i) => win.tokensOf(i),
        isMasked: (i) => win.masked[i] === 1,
      },
    };
    contexts.set(s, (held = h));
  }
  if (held.end !== end) {
    held.end = end;
    held.turnStarts = undefined;
  }
  return held.ctx;
}
const contexts = new WeakMap<ReplayState, { end: number; turnStarts: readonly number[] | undefined; readonly ctx: StrategyContext }>();

/**
 * Cuts the summary so that compression never grows the request: it may take at most what it had
 * plus what the compression removed. One proportional cut, then 10% steps (rare).
 */
function fitSummary(s: ReplayState, allowed: number): void {
  if (!s.summary || s.summaryTokens <= allowed) return;
  if (allowed <= 0) {
    s.summary = null;
    s.summaryTokens = 0;
    return;
  }
  let text = s.summary.text.slice(0, Math.floor((s.summary.length * allowed) / s.summaryTokens));
  let tokens = s.countText(text);
  while (text && tokens > allowed) {
    text = text.slice(0, Math.floor(text.length * 0.9));
    tokens = s.countText(text);
  }
  s.summary = text ? SummaryText.of(text) : null;
  s.summaryTokens = text ? tokens : 0;
}

interface Removal {
  readonly dropped: readonly MessageRange[];
  readonly masked: readonly number[];
  /** The stages' notes, joined by '; '. */
  readonly note: string;
  readonly strategy: string;
  turnsDropped?: number;
  turnsInWindow?: number;
  /** A stage kept what it must whatever the target (S3): the request sent is checked against the target. */
  readonly keptWhateverTarget?: boolean;
}

/** S0's forceCompression: drop the oldest ~50% of the turns in the window, note it in the summary (docs/policies.md §S0). */
function dropOldestHalf(s: ReplayState, end: number, why: string): Removal {
  const { starts } = s.shape;
  const win = s.win;
  const first = lowerBound(starts, win.from);
  const last = lowerBound(starts, end); // turns [first, last) start inside the window
  const inWin = last - first;
  const current = inWin > 0 ? starts[last - 1]! : win.from;
  const cut = Math.min(inWin > 0 ? starts[first + Math.floor(inWin / 2)]! : current, current);
  const dropCount = inWin > 0 ? lowerBound(starts, cut) - first : 0;
  const oldFrom = win.from;
  const keep = withPinnedTurns(s, oldFrom, cut, [], end);
  const keepSet = new Set(keep);
  const removed: number[] = [];
  for (const i of win.keepBefore) if (!keepSet.has(i)) removed.push(i);
  for (let i = oldFrom; i < cut; i++) if (!keepSet.has(i)) removed.push(i);
  const dropped = toRanges(removed);
  win.from = Math.max(win.from, cut);
  win.keepBefore = keep;
  // S0's third known gap fixed: the note keeps the references of media the dropped turns held,
  // so the agent can ask for them again.
  const media: string[] = [];
  for (const [a, z] of dropped)
    for (let i = a; i <= z; i++)
      for (const p of s.messages[i]!.parts) if (p.kind === 'media') media.push(p.source ? `${p.mediaType} ${p.source}` : p.mediaType);
  const mediaNote = media.length
    ? ` Media no longer attached: ${media.slice(0, 8).join(', ')}${media.length > 8 ? ` and ${media.length - 8} more` : ''}.`
    : '';
  if (dropped.length > 0)
    s.summary = SummaryText.of(
      `${s.summary ? s.summary.text + '\n' : ''}[Context overflow: ${dropCount} earlier turns were dropped.${mediaNote}]`,
    );
  return {
    dropped,
    masked: [],
    note: `${why}: dropped the oldest ${dropCount} of ${inWin} turns`,
    strategy: 'drop-oldest-50%',
    turnsDropped: dropCount,
    turnsInWindow: inWin,
  };
}

/** The pipeline's name in events ("a+b"), one string per config rather than one per compression. */
const pipelineNames = new WeakMap<readonly string[], string>();
function pipelineName(pipeline: readonly string[]): string {
  let name = pipelineNames.get(pipeline);
  if (name === undefined) pipelineNames.set(pipeline, (name = pipeline.join('+')));
  return name;
}

/** The configured strategy pipeline, until the history fits `historyBudget`. */
function runPipeline(
  s: ReplayState,
  end: number,
  historyBudget: number,
): Removal & { fold: readonly MessageRange[]; targetTokens: number } {
  const win = s.win;
  const ctx = strategyContext(s, end);
  // A one-stage pipeline (every built-in policy) hands its strategy's lists on as they are; a list
  // is copied only when a later stage adds to it (indexed loops: no iterator per range, and no
  // array grown per compression for what one stage said — a policy compressing at every call made
  // several per call).
  let dropped: readonly MessageRange[] = NONE;
  let masked: number[] | undefined;
  let fold: readonly MessageRange[] = NONE;
  // Joined as the stages run: no list per compression for the one note of a one-stage pipeline.
  let note: string | undefined;
  let targetTokens = 256;
  let keptWhateverTarget = false;
  const pipeline = s.config.pipeline;
  for (let p = 0; p < pipeline.length; p++) {
    const id = pipeline[p]!;
    const view: HistoryView = { from: win.from, keepBefore: win.keepBefore, end };
    const builtIn = STRATEGIES[id as StrategyId] as Strategy | undefined;
    // Anything not built in (a CLI module's `custom:` function, a registered plugin) is checked before it touches the window.
    const r = builtIn ? builtIn(view, historyBudget, ctx) : checkedResult(id, otherStrategy(s, id)(view, historyBudget, ctx), view, ctx);
    for (let q = 0; q < r.masked.length; q++) {
      const i = r.masked[q]!;
      if (s.pins.isPinned(i) || win.masked[i] === 1) continue;
      win.reduceTo(i, PLACEHOLDER_TOKENS);
      win.masked[i] = 1;
      (masked ??= []).push(i);
    }
    const keep = withPinnedTurns(s, win.from, r.kept.from, r.kept.keepBefore, end);
    // Nothing pinned in the way: the strategy's ranges stand as they are.
    const kept = keep === r.kept.keepBefore ? undefined : new Set(keep);
    const stageDropped = kept ? minusKept(r.dropped, kept) : r.dropped;
    dropped = joined(dropped, stageDropped);
    if (r.summaryRequest) {
      fold = joined(fold, kept ? minusKept(r.summaryRequest.ranges, kept) : r.summaryRequest.ranges);
      targetTokens = r.summaryRequest.targetTokens;
    }
    win.from = Math.max(win.from, r.kept.from);
    win.keepBefore = keep;
    note = note === undefined ? r.note : `${note}; ${r.note}`;
    if (r.keptWhateverTarget === true) keptWhateverTarget = true;
    if (win.historyTokens(end) <= historyBudget) break;
  }
  const removal = {
    dropped,
    masked: masked ?? NONE_MASKED,
    note: note ?? '',
    strategy: pipelineName(s.config.pipeline),
    fold,
    targetTokens,
  };
  return keptWhateverTarget ? { ...removal, keptWhateverTarget } : removal;
}
const NONE: readonly MessageRange[] = Object.freeze([]);
const NONE_MASKED: readonly number[] = Object.freeze([]);

/** `a` then `b`: either one itself when the other is empty (neither is changed later), else a copy. */
function joined(a: readonly MessageRange[], b: readonly MessageRange[]): readonly MessageRange[] {
  if (b.length === 0) return a.length === 0 ? NONE : a;
  if (a.length === 0) return b;
  return a.concat(b);
}

/**
 * Runs one compression before the call of `step` (the request holds messages before `end`).
 * `historyBudget` is what the history should fit after it; `force` selects S0's forceCompression.
 * Returns null when nothing could be removed (then nothing is recorded).
 */
export function compress(
  s: ReplayState,
  path: CompressionPath,
  end: number,
  step: number,
  historyBudget: number,
  force?: string,
): CompressionOutcome | null | Promise<CompressionOutcome | null> {
  const before = requestAt(s, end);
  const summaryBefore = s.summary;
  const summaryTokensBefore = s.summaryTokens;
  if (force !== undefined) return compressed(s, path, end, step, dropOldestHalf(s, end, force), before, summaryBefore, summaryTokensBefore);
  const r = runPipeline(s, end, historyBudget);
  if (r.fold.length > 0 && s.summarizer) {
    // A throw now and a rejection later are the same failure: recorded, and the compression goes on.
    let folded: SummaryText | Promise<SummaryText>;
    try {
      folded = summarizeFold(s, s.summarizer, r.fold, r.targetTokens);
    } catch (e) {
      summarizerFailed(s, step, e);
      return compressed(s, path, end, step, r, before, summaryBefore, summaryTokensBefore);
    }
    if (folded instanceof Promise)
      return folded.then(
        (summary) => {
          s.summary = summary;
          return compressed(s, path, end, step, r, before, summaryBefore, summaryTokensBefore);
        },
        (e: unknown) => {
          summarizerFailed(s, step, e);
          return compressed(s, path, end, step, r, before, summaryBefore, summaryTokensBefore);
        },
      );
    s.summary = folded;
  }
  return compressed(s, path, end, step, r, before, summaryBefore, summaryTokensBefore);
}

function summarizerFailed(s: ReplayState, step: number, e: unknown): void {
  s.events.push({ kind: 'summarizer-failure', step, error: e instanceof Error ? e.message : String(e) });
}

/**
 * docs/policies.md §S3, target not met: primers + summary + recents are kept even over the target.
 * Checked on the request actually sent after the compression — the kept messages and the summary
 * the summarizer produced (not the nominal 400-token target it was asked for) — against what the
 * target leaves once the regions no compression touches are placed: `after − fixed` against
 * `target − fixed`. '' when the target is met.
 */
function targetNotMet(s: ReplayState, after: number): string {
  const target = s.enforcement.target;
  if (!(after > target)) return '';
  const need = after - s.fixed;
  const leaves = Math.max(0, Math.floor(target - s.fixed));
  return `; target not met: primers + summary + recents need ${need.toLocaleString('en-US')} tokens, the target leaves ${leaves.toLocaleString('en-US')} — all kept (docs/policies.md §S3)`;
}

/** The rest of a compression once `removal` is applied and the summary folded: measured, recorded. */
function compressed(
  s: ReplayState,
  path: CompressionPath,
  end: number,
  step: number,
  removal: Removal,
  before: number,
  summaryBefore: SummaryText | null,
  summaryTokensBefore: number,
): CompressionOutcome | null {
  const summaryChanged = !sameSummary(s.summary, summaryBefore);
  if (removal.dropped.length === 0 && removal.masked.length === 0 && !summaryChanged) return null;
  if (summaryChanged) s.summaryTokens = s.summary ? s.countSummary(s.summary) : 0;
  const removedHistory = before - s.fixed - summaryTokensBefore - s.win.historyTokens(end);
  fitSummary(s, summaryTokensBefore + Math.max(0, removedHistory));
  for (const i of removal.masked) s.retention.markLeft(i, step);
  s.retention.markDropped(removal.dropped, step);
  const after = requestAt(s, end);
  s.totals.compressions++;
  s.totals.tokensRemoved += Math.max(0, before - after);
  // The request that triggered it was built and measured: the peak counts it (the bar shows what was sent after).
  s.totals.peak = Math.max(s.totals.peak, before);
  // A lean replay (ReplayOptions.detail 'totals') has no events: their ranges are not worked out.
  if (!s.lean) {
    // A row of numbers (compressions.ts): the event object, its range tuples and its kept list are
    // made only if something reads the result's events.
    const runs = keptBeforeRuns(s);
    const note = removal.keptWhateverTarget === true ? removal.note + targetNotMet(s, after) : removal.note;
    s.compressions.push(
      s.events.length,
      step,
      path,
      removal.strategy,
      before,
      after,
      merged(removal.dropped),
      removal.masked,
      runs,
      s.win.from,
      end,
      note,
      s.summary,
    );
  }
  s.retention.afterCompression(end, step);
  return removal.turnsDropped !== undefined
    ? { before, after, turnsDropped: removal.turnsDropped, turnsInWindow: removal.turnsInWindow! }
    : { before, after };
}

/** A pipeline id that is not built in: the caller's `custom:` function, else a registered strategy. */
function otherStrategy(s: ReplayState, id: string): Strategy {
  const fn = s.customStrategies.get(id) ?? (strategyById(id)?.run as Strategy | undefined);
  if (!fn) throw new Error(`strategy "${id}" is not registered`);
  return fn;
}
