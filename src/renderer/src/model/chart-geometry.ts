/**
 * Where things fall on the region chart: the bucket a call is drawn in, the call a click means,
 * the chart's vertical scale, which buckets must be flagged. Pure; unit-tested.
 */
import type { ChartMarker, ChartView } from '../../../shared/api';
import { lowerBound } from './selection';

/** The bucket that draws call `step` (bucket b covers [bucketStart[b], bucketStart[b + 1])). */
export function bucketOf(view: Pick<ChartView, 'bucketStart'>, step: number): number {
  return Math.max(0, lowerBound(view.bucketStart, step + 1) - 1);
}

/** Calls [from, to] inclusive that bucket b covers. */
export function bucketRange(view: Pick<ChartView, 'bucketStart' | 'stepCount'>, b: number): [number, number] {
  const from = view.bucketStart[b] ?? 0;
  const next = view.bucketStart[b + 1] ?? view.stepCount;
  return [from, Math.max(from, next - 1)];
}

/**
 * The markers at the calls of bucket b (the host sends them sorted by call): found by binary search
 * when asked — on a click or a hover — instead of grouping every marker of every new chart.
 */
export function markersInBucket(view: Pick<ChartView, 'bucketStart' | 'stepCount' | 'markers'>, b: number): ChartMarker[] {
  const [from, to] = bucketRange(view, b);
  const ms = view.markers;
  let lo = 0;
  let hi = ms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ms[mid]!.step < from) lo = mid + 1;
    else hi = mid;
  }
  const out: ChartMarker[] = [];
  for (let i = lo; i < ms.length && ms[i]!.step <= to; i++) out.push(ms[i]!);
  return out;
}

/**
 * The call a click on bucket b means: the compression (or other marker) drawn there if there is
 * one — markers are what people aim at — else the bucket's fullest call.
 */
export function stepForBucket(
  view: Pick<ChartView, 'peakStep' | 'bucketStart' | 'stepCount'>,
  b: number,
  markers: readonly ChartMarker[] | undefined,
): number {
  const compression = markers?.find((m) => m.kind === 'compression') ?? markers?.[0];
  if (compression) return compression.step;
  return view.peakStep[b] ?? bucketRange(view, b)[0];
}

const maxOf = (xs: readonly (number | null)[]): number => {
  let m = 0;
  for (const x of xs) if (x !== null && x > m) m = x;
  return m;
};

/** Top of the y axis: the largest of window, request, limit, reported, a request before compression (and B's request), with headroom. */
export function yMax(view: ChartView, extra: readonly number[] = []): number {
  // A compression's request before it (its ghost bar) is on the chart too.
  let before = 0;
  for (const k of view.markers) if (k.kind === 'compression' && k.tokensBefore > before) before = k.tokensBefore;
  const m = Math.max(maxOf(view.window.max), maxOf(view.total.max), maxOf(view.limit.max), maxOf(view.reported.max), before, ...extra, 1);
  return m * 1.06;
}

export type BucketFlag = 'over-window' | 'over-limit' | null;

/**
 * A bucket whose fullest request is above the window, or above the largest limit in force in
 * the bucket, is flagged: never drawn as a silent ok.
 */
export function bucketFlag(view: ChartView, b: number): BucketFlag {
  const total = view.total.max[b];
  if (total === null || total === undefined) return null;
  const window = view.window.min[b];
  if (window !== null && window !== undefined && total > window) return 'over-window';
  const limit = view.limit.max[b];
  if (limit !== null && limit !== undefined && total > limit) return 'over-limit';
  return null;
}
