/**
 * The `calibrated` tokenizer's fit: per session, a least-squares line from what we estimate the
 * transcript holds before each call (x) to what the provider reported it counted (y):
 * y ≈ ratio · x + overhead. The ratio corrects the tokenizer family (o200k for a Claude model,
 * say); the overhead is what the transcript does not log at all — Claude Code omits the system
 * prompt and tool definitions, often 15–25k tokens — and becomes its own region, "unlogged
 * system & tools", so the bars add up to what the provider really counted.
 *
 * A fit scored on the calls it was fitted on flatters itself, so `calibrationReport` also fits on
 * the first half of the calls and scores the second half (docs/reference/formats.md "What each importer rebuilds").
 */
import type { Message, Session } from '../model';
import { promptTokens } from '../model';
import { sentAsTokens } from './sent-as';
import type { SessionCounts } from './types';

export interface CalibrationFit {
  readonly ratio: number;
  readonly overhead: number;
  /** Calls with reported usage the fit used. */
  readonly points: number;
  /** Mean absolute error of the fit over those calls, in tokens. */
  readonly meanAbsError: number;
  /** Set when the least-squares line was not used (no usage, or a line that is not physical), and why. */
  readonly fallback?: string;
}

export interface CalibrationReport {
  readonly ratio: number;
  readonly overhead: number;
  /** Median absolute error, in % of the reported prompt, over the calls the fit was made on. */
  readonly inSampleError: number;
  /** Fitted on the first half of the calls, median absolute % error on the second half; null with too few calls. */
  readonly outOfSampleError: number | null;
  /** Calls with reported usage. */
  readonly calls: number;
}

/** Each half needs this many calls for an out-of-sample score: a line through one point says nothing. */
const MIN_HALF = 2;

interface Point {
  readonly x: number;
  readonly y: number;
}

/**
 * (x, y) per call with reported usage: estimated request size (since the last source compaction,
 * without the fitted `unlogged` region) vs reported prompt; `index` is the call's message.
 */
export function calibrationPoints(session: Session, counts: SessionCounts): { index: number; x: number; y: number }[] {
  const points: { index: number; x: number; y: number }[] = [];
  const compactionStarts = session.sourceCompactions.map((c) => c.atMessage).sort((a, b) => a - b);
  // Messages the agent itself sent rewritten (a history processor) cost less from a given call on.
  const sent = sentAsTokens(session, counts);
  let e = 0;
  const applied: { index: number; saved: number }[] = [];
  let c = 0;
  let windowStart = 0;
  for (let i = 0; i < session.messages.length; i++) {
    while (c < compactionStarts.length && compactionStarts[c]! <= i) windowStart = compactionStarts[c++]!;
    const m = session.messages[i]!;
    if (m.role !== 'assistant') continue;
    for (; e < sent.length && sent[e]!.from <= i; e++)
      applied.push({ index: sent[e]!.index, saved: counts.perMessage[sent[e]!.index]! - sent[e]!.tokens });
    if (!m.usage) continue;
    let saved = 0;
    for (const a of applied) if (a.index >= windowStart && a.index < i) saved += a.saved;
    // The request of call i holds everything before message i in the current window, as sent.
    const x = counts.prefix[i]! - counts.prefix[windowStart]! - saved + counts.system + counts.tools;
    points.push({ index: i, x, y: promptTokens(m.usage) });
  }
  return points;
}

/** Whether message `m` is a call the line is fitted on: an assistant message reporting a prompt size (a usable calibration point). */
export const reportsPrompt = (m: Message): boolean => m.role === 'assistant' && m.usage !== undefined && promptTokens(m.usage) > 0;

/** The message index of every call the line may be fitted on (calibrationPoints's, with a prompt size), in order. */
export function reportingCalls(messages: readonly Message[], from = 0): number[] {
  const out: number[] = [];
  for (let i = from; i < messages.length; i++) if (reportsPrompt(messages[i]!)) out.push(i);
  return out;
}

/** A physical ratio: a tokenizer family is never off by more than this either way. */
const RATIO_MIN = 0.2;
const RATIO_MAX = 5;

/** Sum of squared errors of a line over the points. */
function sse(pts: readonly Point[], ratio: number, overhead: number): number {
  let e = 0;
  for (const p of pts) e += (ratio * p.x + overhead - p.y) ** 2;
  return e;
}

/** The line through the points, or a pure offset (with the reason) when a line cannot be trusted. */
function fitPoints(pts: readonly Point[]): { ratio: number; overhead: number; fallback?: string } {
  if (pts.length === 0)
    return { ratio: 1, overhead: 0, fallback: 'no call reports a prompt size: counts are the base tokenizer’s, uncorrected' };
  if (pts.length === 1)
    return {
      ratio: 1,
      overhead: Math.max(0, Math.round(pts[0]!.y - pts[0]!.x)),
      fallback: 'one call reports usage: a fixed offset only, no ratio',
    };
  const n = pts.length;
  let sx = 0,
    sy = 0,
    sxx = 0,
    sxy = 0;
  for (const p of pts) {
    sx += p.x;
    sy += p.y;
    sxx += p.x * p.x;
    sxy += p.x * p.y;
  }
  const denom = n * sxx - sx * sx;
  const ratio = denom > 0 ? (n * sxy - sx * sy) / denom : Number.NaN;
  const overhead = (sy - ratio * sx) / n;
  const physical = (r: number): boolean => r > RATIO_MIN && r < RATIO_MAX;
  if (physical(ratio) && overhead >= 0) return { ratio, overhead: Math.round(overhead) };
  // Not physical. Two lines are: a pure offset (ratio 1, what an unlogged system prompt looks like)
  // and, when only the overhead came out negative (a transcript that logs everything, counted a
  // little high by the base tokenizer), the best line with overhead ≥ 0 — least squares with the
  // overhead clamped at 0 is the line through the origin, ratio Σxy / Σxx. The one that fits the
  // points better is kept, so the calibration is never worse than its own fallback on them.
  const offset = { ratio: 1, overhead: Math.round(Math.max(0, (sy - sx) / n)) };
  const why = Number.isNaN(ratio)
    ? 'every call has the same estimate'
    : `the fitted line (ratio ${ratio.toFixed(2)}, overhead ${Math.round(overhead)}) is not physical`;
  const through = sxx > 0 ? sxy / sxx : Number.NaN;
  if (overhead < 0 && physical(ratio) && physical(through) && sse(pts, through, 0) <= sse(pts, offset.ratio, offset.overhead))
    return { ratio: through, overhead: 0 };
  return { ...offset, fallback: `${why}: a fixed offset only, ratio 1` };
}

/** The points of the calls that report a prompt size (`reportsPrompt`: a point is an assistant message with usage, y its prompt). */
const usable = (session: Session, counts: SessionCounts): { index: number; x: number; y: number }[] =>
  calibrationPoints(session, counts).filter((p) => p.y > 0);

/** Up to this many calls with usage, the line is fitted on all of them. */
export const FIT_ALL_UP_TO = 1024;

/**
 * The calls the line is fitted on: all of them up to FIT_ALL_UP_TO; past that, the first
 * FIT_ALL_UP_TO × 2^k, the largest such number there are (so at least half of them).
 *
 * Why not always all: the fit sets the unlogged region of every call, so a fit that moved with each
 * appended call (a live tail) changed the past calls' requests, and a replay continued over the
 * new calls (core/replay/resume.ts) would no longer be the full replay's: every append replayed
 * the whole session again (a second and more at 300 MB). Fitted on a prefix that only changes
 * when the number of calls doubles, the line of a growing session holds still between doublings,
 * and a full replay of the grown session fits the same one. A system prompt and tools the
 * transcript leaves out are the same at every call: half of a thousand calls or more pins them
 * down (the out-of-sample score of calibrationReport fits on the first half too).
 */
export function fittedCalls(n: number): number {
  if (n <= FIT_ALL_UP_TO) return n;
  let k = FIT_ALL_UP_TO;
  while (k * 2 <= n) k *= 2;
  return k;
}

function fittedOn<P extends Point>(pts: P[]): P[] {
  const k = fittedCalls(pts.length);
  return k === pts.length ? pts : pts.slice(0, k);
}

export function fitCalibration(session: Session, counts: SessionCounts): CalibrationFit {
  return fitCalibrationOfCalls(session, counts).fit;
}

/**
 * The fit, and the message index of every call it may be fitted on (a prefix of them is:
 * `fit.points`), in order: what a grown session's fit is carried from (replay/setup.ts
 * carriedUnlogged).
 */
export function fitCalibrationOfCalls(session: Session, counts: SessionCounts): { fit: CalibrationFit; calls: Int32Array } {
  const all = usable(session, counts);
  const pts = fittedOn(all);
  const line = fitPoints(pts);
  let err = 0;
  for (const p of pts) err += Math.abs(line.ratio * p.x + line.overhead - p.y);
  const calls = new Int32Array(all.length);
  for (let q = 0; q < all.length; q++) calls[q] = all[q]!.index;
  return { fit: { ...line, points: pts.length, meanAbsError: pts.length ? err / pts.length : 0 }, calls };
}

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** Median absolute error in % of the reported prompt. */
function medianAbsPct(fit: { ratio: number; overhead: number }, pts: readonly Point[]): number {
  return median(pts.map((p) => (Math.abs(fit.ratio * p.x + fit.overhead - p.y) / p.y) * 100));
}

/**
 * How well the calibration explains the reported prompts, honestly: `counts` are the BASE
 * tokenizer's (uncalibrated) counts; the in-sample error scores the fit on the calls it was
 * fitted on, the out-of-sample error fits on the first half of the calls (in order) and scores
 * the second half. `{ fallback }` says why there is no fitted line to report.
 */
export function calibrationReport(session: Session, counts: SessionCounts): CalibrationReport | { fallback: string } {
  const pts = usable(session, counts);
  // The line the replays use (fitCalibration's), scored in sample on the calls it was fitted on.
  const fitted = fittedOn(pts);
  const fit = fitPoints(fitted);
  if (fit.fallback !== undefined) return { fallback: fit.fallback };
  const half = pts.length >> 1;
  let outOfSampleError: number | null = null;
  if (half >= MIN_HALF && pts.length - half >= MIN_HALF) {
    const early = fitPoints(pts.slice(0, half));
    outOfSampleError = medianAbsPct(early, pts.slice(half));
  }
  return { ratio: fit.ratio, overhead: fit.overhead, inSampleError: medianAbsPct(fit, fitted), outOfSampleError, calls: pts.length };
}
