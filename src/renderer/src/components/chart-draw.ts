/**
 * Draws a ChartView on a 2D canvas: one column per bucket (the host reduced the replay to the
 * chart's pixel width), prompt regions stacked from the bottom, the output reserve and buffer as
 * a hatched band under the window line (so the prompt's distance to the limit reads at a glance),
 * lines for window, enforced limit, trigger, reported prompt and the compared policy, turn ticks
 * and flags for requests above the window or the limit. Markers are drawn by the SVG layer above.
 */
import type { BucketSeries, ChartView } from '../../../shared/api';
import { LINE_COLOR, PROMPT_REGIONS, REGION_COLOR, STATUS_COLOR } from '../colors';
import { bucketFlag, bucketOf } from '../model/chart-geometry';

export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  readonly yMax: number;
}

export const plotWidth = (f: Frame): number => Math.max(1, f.width - f.left - f.right);
export const plotHeight = (f: Frame): number => Math.max(1, f.height - f.top - f.bottom);
export const xOfBucket = (f: Frame, n: number, b: number): number => f.left + (b * plotWidth(f)) / Math.max(1, n);
export const yOf = (f: Frame, v: number): number => f.top + plotHeight(f) * (1 - v / f.yMax);

function hatch(ctx: CanvasRenderingContext2D, color: string): CanvasPattern | string {
  const tile = document.createElement('canvas');
  tile.width = 6;
  tile.height = 6;
  const t = tile.getContext('2d');
  if (!t) return color;
  t.strokeStyle = color;
  t.lineWidth = 1;
  t.beginPath();
  t.moveTo(0, 6);
  t.lineTo(6, 0);
  t.stroke();
  return ctx.createPattern(tile, 'repeat') ?? color;
}

function stepLine(ctx: CanvasRenderingContext2D, f: Frame, n: number, series: readonly (number | null)[], color: string, dash: number[], width = 1.25): void {
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.beginPath();
  let pen = false;
  for (let b = 0; b < n; b++) {
    const v = series[b];
    if (v === null || v === undefined) {
      pen = false;
      continue;
    }
    const y = yOf(f, v);
    const x0 = xOfBucket(f, n, b);
    const x1 = xOfBucket(f, n, b + 1);
    if (pen) ctx.lineTo(x0, y);
    else ctx.moveTo(x0, y);
    ctx.lineTo(x1, y);
    pen = true;
  }
  ctx.stroke();
  ctx.setLineDash([]);
}

export interface DrawOptions {
  /** B's request per bucket (max), drawn as the compare line. */
  readonly compare?: readonly (number | null)[];
  readonly text: string;
  readonly grid: string;
}

export function drawChart(ctx: CanvasRenderingContext2D, view: ChartView, f: Frame, o: DrawOptions): void {
  const n = view.bucketStart.length;
  ctx.clearRect(0, 0, f.width, f.height);
  // Grid and y labels.
  ctx.font = '10px system-ui, sans-serif';
  ctx.fillStyle = o.text;
  ctx.strokeStyle = o.grid;
  ctx.lineWidth = 1;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (let i = 0; i <= 4; i++) {
    const v = (f.yMax / 1.06) * (i / 4);
    const y = Math.round(yOf(f, v)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(f.left, y);
    ctx.lineTo(f.width - f.right, y);
    ctx.stroke();
    ctx.fillText(v >= 1e6 ? `${(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${Math.round(v / 1e3)}k` : String(Math.round(v)), f.left - 4, y);
  }

  const reserve = hatch(ctx, REGION_COLOR.reserve);
  for (let b = 0; b < n; b++) {
    const x0 = xOfBucket(f, n, b);
    const w = Math.max(1, xOfBucket(f, n, b + 1) - x0);
    // Prompt regions of the bucket's fullest call, bottom up.
    let acc = 0;
    for (const r of PROMPT_REGIONS) {
      const v = view.regions[r][b] ?? 0;
      if (v <= 0) continue;
      const yTop = yOf(f, acc + v);
      ctx.fillStyle = REGION_COLOR[r];
      ctx.fillRect(x0, yTop, w, yOf(f, acc) - yTop);
      acc += v;
    }
    // Output reserve + buffer: hatched under the window line, not stacked on the prompt.
    const window = view.window.max[b];
    const reserved = (view.regions.output[b] ?? 0) + (view.regions.buffer[b] ?? 0);
    if (window !== null && window !== undefined && reserved > 0) {
      const yTop = yOf(f, window);
      ctx.fillStyle = reserve;
      ctx.fillRect(x0, yTop, w, yOf(f, window - reserved) - yTop);
    }
    // Worst guard status of the bucket as a strip along the top; over-limit flagged in red.
    const status = view.status[b] ?? 'ok';
    if (status !== 'ok') {
      ctx.fillStyle = STATUS_COLOR[status];
      ctx.fillRect(x0, 0, w, 4);
    }
    const flag = bucketFlag(view, b);
    if (flag) {
      const total = view.total.max[b] ?? 0;
      ctx.fillStyle = LINE_COLOR.limit;
      ctx.fillRect(x0, yOf(f, total) - 2, w, 3);
      ctx.fillRect(x0, 5, w, 3);
    }
  }

  stepLine(ctx, f, n, view.window.max, LINE_COLOR.window, []);
  stepLine(ctx, f, n, view.limit.max, LINE_COLOR.limit, [5, 3], 1.5);
  stepLine(ctx, f, n, view.trigger.max, LINE_COLOR.trigger, [2, 3], 1.5);
  if (o.compare) stepLine(ctx, f, n, o.compare, LINE_COLOR.compare, [], 1.5);
  // Reported prompt tokens: a dot per bucket that has them.
  ctx.fillStyle = LINE_COLOR.reported;
  for (let b = 0; b < n; b++) {
    const v = view.reported.max[b];
    if (v === null || v === undefined) continue;
    const x = (xOfBucket(f, n, b) + xOfBucket(f, n, b + 1)) / 2;
    ctx.fillRect(x - 1, yOf(f, v) - 1, 2, 2);
  }

  // Turn boundaries as ticks under the plot.
  ctx.strokeStyle = o.text;
  ctx.beginPath();
  const base = f.height - f.bottom;
  for (const s of view.turnStarts) {
    const x = Math.round(xOfBucket(f, n, bucketOf(view, s))) + 0.5;
    ctx.moveTo(x, base + 1);
    ctx.lineTo(x, base + 5);
  }
  ctx.stroke();
}

/** B's request size reduced to this chart's buckets (max per bucket). */
export function reduceToBuckets(view: ChartView, perStep: readonly number[]): (number | null)[] {
  const n = view.bucketStart.length;
  const out: (number | null)[] = new Array<number | null>(n).fill(null);
  for (let b = 0; b < n; b++) {
    const from = view.bucketStart[b] ?? 0;
    const to = Math.min(perStep.length, view.bucketStart[b + 1] ?? view.stepCount);
    let m: number | null = null;
    for (let i = from; i < to; i++) {
      const v = perStep[i] as number;
      if (m === null || v > m) m = v;
    }
    out[b] = m;
  }
  return out;
}

export type { BucketSeries };
