/**
 * Draws a ChartView on a 2D canvas: one column per bucket (the host reduced the replay to the
 * chart's pixel width), prompt regions stacked from the bottom, the output reserve and buffer as
 * a hatched band under the window line (so the prompt's distance to the limit reads at a glance),
 * lines for window, enforced limit, trigger, reported prompt and the compared policy, turn ticks
 * and flags for requests above the window or the limit. Markers are drawn by the SVG layer above.
 * The shapes (rectangles per region, step-line paths, y ticks, marker paths) come from the pure
 * functions below, which the SVG export (chart-svg.ts) draws too: one geometry, two renderers.
 */
import type { BucketSeries, ChartView } from '../../../shared/api';
import type { StepStatus } from '../../../core/replay/types';
import { PALETTE, PROMPT_REGIONS, REGION_LABEL, STATUS_COLOR, type Palette, type PromptRegion } from '../colors';
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

/**
 * The reserve's hatch pattern, made once per canvas and colour: a tile canvas and a pattern for
 * every new chart were a few ms of each redraw.
 */
const hatches = new WeakMap<CanvasRenderingContext2D, Map<string, CanvasPattern>>();

function hatch(ctx: CanvasRenderingContext2D, color: string): CanvasPattern | string {
  const made = hatches.get(ctx)?.get(color);
  if (made) return made;
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
  const pattern = ctx.createPattern(tile, 'repeat');
  if (!pattern) return color;
  const byColor = hatches.get(ctx) ?? new Map<string, CanvasPattern>();
  byColor.set(color, pattern);
  hatches.set(ctx, byColor);
  return pattern;
}

/** A series as a step line (SVG path data): flat across each bucket, broken where a bucket has no value. */
export function stepLinePath(f: Frame, n: number, series: readonly (number | null)[]): string {
  let d = '';
  let pen = false;
  for (let b = 0; b < n; b++) {
    const v = series[b];
    if (v === null || v === undefined) {
      pen = false;
      continue;
    }
    const y = yOf(f, v);
    d += `${pen ? 'L' : 'M'}${xOfBucket(f, n, b)} ${y}L${xOfBucket(f, n, b + 1)} ${y}`;
    pen = true;
  }
  return d;
}

/**
 * The canvas's step line: the same line as stepLinePath (which the SVG export writes), traced with
 * path calls instead of a path string Path2D parses again — three series of a few thousand
 * full-precision points were ~100 KB of text each per chart. A run of buckets at one value is one
 * segment.
 */
function stepLine(
  ctx: CanvasRenderingContext2D,
  f: Frame,
  n: number,
  series: readonly (number | null)[],
  color: string,
  dash: number[],
  width = 1.25,
): void {
  ctx.beginPath();
  let drawn = false;
  let pen = false;
  let y = 0;
  let end = 0;
  for (let b = 0; b < n; b++) {
    const v = series[b];
    if (v === null || v === undefined) {
      if (pen) ctx.lineTo(end, y);
      pen = false;
      continue;
    }
    const yb = yOf(f, v);
    const x = xOfBucket(f, n, b);
    if (!pen) ctx.moveTo(x, yb);
    else if (yb !== y) {
      ctx.lineTo(end, y);
      ctx.lineTo(x, yb);
    }
    y = yb;
    end = xOfBucket(f, n, b + 1);
    pen = drawn = true;
  }
  if (pen) ctx.lineTo(end, y);
  if (!drawn) return;
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.stroke();
  ctx.setLineDash([]);
}

/** The y axis: five gridlines from 0 to the data's top, with their labels. */
export function yTicks(f: Frame): { readonly y: number; readonly label: string }[] {
  const out: { y: number; label: string }[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = (f.yMax / 1.06) * (i / 4);
    out.push({
      y: Math.round(yOf(f, v)) + 0.5,
      label: v >= 1e6 ? `${(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${Math.round(v / 1e3)}k` : String(Math.round(v)),
    });
  }
  return out;
}

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** Everything filled on the chart, as rectangles grouped by what they show. */
export interface ChartShapes {
  /** The prompt regions of each bucket's fullest call, stacked bottom up. */
  readonly regions: Readonly<Record<PromptRegion, Rect[]>>;
  /** Output reserve + buffer, under the window line. */
  readonly reserve: Rect[];
  /** The worst guard status of each bucket as a strip along the top (ok draws nothing). */
  readonly status: Readonly<Partial<Record<StepStatus, Rect[]>>>;
  /** Requests above the window or the limit: a bar at the request and one at the top. */
  readonly flags: Rect[];
  /** Reported prompt tokens: a 2×2 dot per bucket that has them. */
  readonly reported: Rect[];
}

/** The kinds of filled rectangle, in the order the canvas paints them (STATUS_GROUP + a status's index in STATUSES: its strip). */
const RESERVE = PROMPT_REGIONS.length;
const FLAGS = RESERVE + 1;
const REPORTED = RESERVE + 2;
/** A flag's bar at the top of the plot: a group of its own so a run of flagged buckets is one fill (chartShapes lists it with the flags). */
const FLAG_TOP = RESERVE + 3;
const STATUS_GROUP = RESERVE + 4;
const STATUSES = Object.keys(STATUS_COLOR) as StepStatus[];
const GROUPS = STATUS_GROUP + STATUSES.length;

/** Receives every rectangle of the chart: its group (above) and its box. */
type RectSink = (group: number, x: number, y: number, w: number, h: number) => void;

/** The chart's filled rectangles, bucket by bucket: the one geometry the canvas and the SVG export draw. */
function traceShapes(view: ChartView, f: Frame, sink: RectSink): void {
  const n = view.bucketStart.length;
  for (let b = 0; b < n; b++) {
    const x = xOfBucket(f, n, b);
    const next = xOfBucket(f, n, b + 1);
    const w = Math.max(1, next - x);
    let acc = 0;
    for (let g = 0; g < PROMPT_REGIONS.length; g++) {
      const v = view.regions[PROMPT_REGIONS[g]!][b] ?? 0;
      if (v <= 0) continue;
      const yTop = yOf(f, acc + v);
      sink(g, x, yTop, w, yOf(f, acc) - yTop);
      acc += v;
    }
    const window = view.window.max[b];
    const reserved = (view.regions.output[b] ?? 0) + (view.regions.buffer[b] ?? 0);
    if (window !== null && window !== undefined && reserved > 0) {
      const yTop = yOf(f, window);
      sink(RESERVE, x, yTop, w, yOf(f, window - reserved) - yTop);
    }
    const st = view.status[b] ?? 'ok';
    if (st !== 'ok') sink(STATUS_GROUP + STATUSES.indexOf(st), x, 0, w, 4);
    if (bucketFlag(view, b)) {
      const total = view.total.max[b] ?? 0;
      sink(FLAGS, x, yOf(f, total) - 2, w, 3);
      sink(FLAG_TOP, x, 5, w, 3);
    }
    const rep = view.reported.max[b];
    if (rep !== null && rep !== undefined) sink(REPORTED, (x + next) / 2 - 1, yOf(f, rep) - 1, 2, 2);
  }
}

/** The rectangles as objects by group (the SVG export writes them as one path per group). */
export function chartShapes(view: ChartView, f: Frame): ChartShapes {
  const regions = Object.fromEntries(PROMPT_REGIONS.map((r) => [r, [] as Rect[]])) as Record<PromptRegion, Rect[]>;
  const reserve: Rect[] = [];
  const status: Partial<Record<StepStatus, Rect[]>> = {};
  const flags: Rect[] = [];
  const reported: Rect[] = [];
  traceShapes(view, f, (g, x, y, w, h) => {
    const r = { x, y, w, h };
    if (g < RESERVE) regions[PROMPT_REGIONS[g]!].push(r);
    else if (g === RESERVE) reserve.push(r);
    else if (g === FLAGS || g === FLAG_TOP) flags.push(r);
    else if (g === REPORTED) reported.push(r);
    else (status[STATUSES[g - STATUS_GROUP]!] ??= []).push(r);
  });
  return { regions, reserve, status, flags, reported };
}

/**
 * The rectangles as numbers, four per rectangle, a growing Float64Array per group: the canvas
 * fills a chart's ~10,000 rectangles without an object for each (they were most of a new
 * chart's garbage collection). A rectangle that continues the group's last one (same top and
 * height, starting where it ends) widens it instead: the system prompt and tools, the reserve
 * under a steady window, a status held for many buckets are a handful of fills, not one per
 * bucket — on a software canvas each fill is rasterised on its own, and ~10,000 of them were
 * ~10 ms of every new chart's frame. The pixels are the same rectangles' union.
 */
function shapeBuffers(view: ChartView, f: Frame): { readonly data: Float64Array[]; readonly length: number[] } {
  const data = Array.from({ length: GROUPS }, () => new Float64Array(4 * Math.max(16, view.bucketStart.length)));
  const length = new Array<number>(GROUPS).fill(0);
  traceShapes(view, f, (g, x, y, w, h) => {
    let d = data[g]!;
    const at = length[g]!;
    if (at > 0 && d[at - 3] === y && d[at - 1] === h) {
      const from = d[at - 4]!;
      const end = from + d[at - 2]!;
      // Touching (within float rounding of the bucket edges) or overlapping (buckets under a pixel, widened to 1).
      if (x >= from && x <= end + 1e-6) {
        d[at - 2] = Math.max(end, x + w) - from;
        return;
      }
    }
    if (at + 4 > d.length) {
      const grown = new Float64Array(d.length * 2);
      grown.set(d);
      data[g] = d = grown;
    }
    d[at] = x;
    d[at + 1] = y;
    d[at + 2] = w;
    d[at + 3] = h;
    length[g] = at + 4;
  });
  return { data, length };
}

/** The x of call `step`'s marker: the middle of its bucket, on a half pixel so a 1 px line is sharp. */
export function markerX(view: ChartView, f: Frame, step: number): number {
  const n = view.bucketStart.length;
  return Math.round(xOfBucket(f, n, bucketOf(view, step)) + plotWidth(f) / n / 2) + 0.5;
}

/** Below this many pixels between markers on average, full-height lines would paint the plot over. */
export const DENSE_MARKER_GAP_PX = 6;
/** Height of the band at the top of the plot where dense markers are drawn as ticks. */
export const DENSE_MARKER_BAND_PX = 10;

/**
 * Compression, source-compaction and compared-policy markers as one path each (never an element
 * per marker). A marker is a line over the plot's full height; when a kind's markers are dense
 * (s0's 1,800 compressions on a 30,000-call session leave less than a pixel between them) its
 * lines would hide the regions, so that kind is drawn as ticks in a band at the top instead. One
 * segment per pixel column: markers sharing a column are one stroke. `count` is every marker.
 */
export function markerPaths(
  view: ChartView,
  f: Frame,
  compareSteps: readonly number[] = [],
): { compression: string; source: string; compare: string; ghost: string; count: number; dense: boolean } {
  const top = f.top;
  const bottom = f.height - f.bottom;
  const xs = { compression: new Set<number>(), source: new Set<number>() };
  let count = 0;
  // A compression's ghost bar: the request that triggered it, as an outline from the bar drawn (what
  // was sent after) up to the size before — the peak counts it, so the chart shows it too.
  let ghost = '';
  const n = view.bucketStart.length;
  for (const m of view.markers) {
    if (m.kind === 'compression') {
      xs.compression.add(markerX(view, f, m.step));
      const b = bucketOf(view, m.step);
      const after = view.total.max[b] ?? 0;
      if (m.tokensBefore > after) {
        const x0 = Math.round(xOfBucket(f, n, b)) + 0.5;
        const x1 = Math.max(x0 + 3, Math.round(xOfBucket(f, n, b + 1)) - 0.5);
        const y0 = Math.round(yOf(f, m.tokensBefore)) + 0.5;
        const y1 = Math.round(yOf(f, after)) + 0.5;
        ghost += `M${x0} ${y1}V${y0}H${x1}V${y1}`;
      }
    } else if (m.kind === 'source-compaction') xs.source.add(markerX(view, f, m.step));
    else continue;
    count++;
  }
  const width = plotWidth(f);
  const path = (columns: ReadonlySet<number>): { d: string; dense: boolean } => {
    const dense = columns.size > 0 && width / columns.size < DENSE_MARKER_GAP_PX;
    const to = dense ? Math.min(bottom, top + DENSE_MARKER_BAND_PX) : bottom;
    let d = '';
    for (const x of columns) d += `M${x} ${top}V${to}`;
    return { d, dense };
  };
  const compression = path(xs.compression);
  const source = path(xs.source);
  const compareColumns = new Set<number>();
  for (const s of compareSteps) if (s < view.stepCount) compareColumns.add(markerX(view, f, s));
  const compare = path(compareColumns);
  return {
    compression: compression.d,
    source: source.d,
    compare: compare.d,
    ghost: compression.dense ? '' : ghost,
    count,
    dense: compression.dense || source.dense || compare.dense,
  };
}

/** How each marker path is stroked (the window's SVG layer, the PNG and the SVG exports), in a theme's palette. */
export function markerStrokes(p: Palette = PALETTE.dark) {
  return [
    { key: 'source', color: p.marker['source-compaction'], dash: [3, 3], width: 1 },
    { key: 'compression', color: p.marker.compression, dash: [], width: 1.5 },
    { key: 'compare', color: p.marker.compareCompression, dash: [6, 3], width: 1 },
    { key: 'ghost', color: p.marker.compression, dash: [3, 2], width: 1.5 },
  ] as const;
}
export const MARKER_STROKES = markerStrokes();

export interface LegendItem {
  readonly label: string;
  readonly color: string;
  readonly mark: 'fill' | 'hatched' | 'line' | 'dashed' | 'dotted' | 'dot';
}

/** The legend, in stack order (bottom first), then the lines and markers: the window's and the SVG export's, in a theme's palette. */
export function legendItems(p: Palette = PALETTE.dark): readonly LegendItem[] {
  return [
    ...PROMPT_REGIONS.map((r) => ({ label: REGION_LABEL[r], color: p.region[r], mark: 'fill' as const })),
    { label: 'output reserve + buffer', color: p.region.reserve, mark: 'hatched' },
    { label: 'window', color: p.line.window, mark: 'line' },
    { label: 'enforced limit', color: p.line.limit, mark: 'dashed' },
    { label: 'trigger', color: p.line.trigger, mark: 'dotted' },
    { label: 'reported prompt', color: p.line.reported, mark: 'dot' },
    { label: 'compression', color: p.marker.compression, mark: 'line' },
    { label: 'request before compression (ghost)', color: p.marker.compression, mark: 'dashed' },
    { label: 'agent compacted', color: p.marker['source-compaction'], mark: 'dashed' },
    { label: 'compared policy', color: p.line.compare, mark: 'line' },
  ];
}
export const LEGEND = legendItems();

/** Turn boundaries as ticks under the plot. */
export function turnTickPath(view: ChartView, f: Frame): string {
  const n = view.bucketStart.length;
  const base = f.height - f.bottom;
  let d = '';
  for (const s of view.turnStarts) d += `M${Math.round(xOfBucket(f, n, bucketOf(view, s))) + 0.5} ${base + 1}V${base + 5}`;
  return d;
}

export interface DrawOptions {
  /** B's request per bucket (max), drawn as the compare line. */
  readonly compare?: readonly (number | null)[];
  readonly text: string;
  readonly grid: string;
  /** The theme's colours (colors.ts PALETTE); the dark scheme's by default. */
  readonly palette?: Palette;
}

export function drawChart(ctx: CanvasRenderingContext2D, view: ChartView, f: Frame, o: DrawOptions): void {
  const n = view.bucketStart.length;
  const p = o.palette ?? PALETTE.dark;
  ctx.clearRect(0, 0, f.width, f.height);
  // Grid and y labels.
  ctx.font = '10px system-ui, sans-serif';
  ctx.fillStyle = o.text;
  ctx.strokeStyle = o.grid;
  ctx.lineWidth = 1;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of yTicks(f)) {
    ctx.beginPath();
    ctx.moveTo(f.left, t.y);
    ctx.lineTo(f.width - f.right, t.y);
    ctx.stroke();
    ctx.fillText(t.label, f.left - 4, t.y);
  }

  const shapes = shapeBuffers(view, f);
  const fill = (g: number, style: string | CanvasPattern): void => {
    const d = shapes.data[g]!;
    const len = shapes.length[g]!;
    if (len === 0) return;
    ctx.fillStyle = style;
    for (let i = 0; i < len; i += 4) ctx.fillRect(d[i]!, d[i + 1]!, d[i + 2]!, d[i + 3]!);
  };
  for (let g = 0; g < PROMPT_REGIONS.length; g++) fill(g, p.region[PROMPT_REGIONS[g]!]);
  // Output reserve + buffer: hatched under the window line, not stacked on the prompt.
  if (shapes.length[RESERVE]) fill(RESERVE, hatch(ctx, p.region.reserve));
  STATUSES.forEach((st, k) => fill(STATUS_GROUP + k, p.status[st]));
  fill(FLAGS, p.line.limit);
  fill(FLAG_TOP, p.line.limit);

  stepLine(ctx, f, n, view.window.max, p.line.window, []);
  stepLine(ctx, f, n, view.limit.max, p.line.limit, [5, 3], 1.5);
  stepLine(ctx, f, n, view.trigger.max, p.line.trigger, [2, 3], 1.5);
  if (o.compare) stepLine(ctx, f, n, o.compare, p.line.compare, [], 1.5);
  fill(REPORTED, p.line.reported);

  ctx.strokeStyle = o.text;
  ctx.stroke(new Path2D(turnTickPath(view, f)));
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
