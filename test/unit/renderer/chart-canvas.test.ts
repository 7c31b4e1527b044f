/**
 * The canvas draws the geometry the SVG export writes (chartShapes): every rectangle in its
 * region's colour, and the window line as one segment per run of one value, broken where a bucket
 * has no value. Drawn on a recording stand-in for CanvasRenderingContext2D.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chartShapes, drawChart, type Frame, type Rect } from '../../../src/renderer/src/components/chart-draw';
import { LINE_COLOR, PROMPT_REGIONS, REGION_COLOR } from '../../../src/renderer/src/colors';
import type { ChartView } from '../../../src/shared/api';
import { chartView } from './fake-client';

type Call = [string, ...unknown[]];

function recorder(): { ctx: CanvasRenderingContext2D; calls: Call[] } {
  const calls: Call[] = [];
  const state: Record<string, unknown> = {};
  const ctx = new Proxy(state, {
    get: (t, k: string) => (k in t ? t[k] : (...args: unknown[]) => void calls.push([k, ...args])),
    set: (t, k: string, v) => {
      t[k] = v;
      calls.push([`${k}=`, v]);
      return true;
    },
  });
  return { ctx: ctx as unknown as CanvasRenderingContext2D, calls };
}

/** Rectangles filled in each fill style, in the order drawn. */
function fills(calls: Call[]): Map<unknown, number[][]> {
  const out = new Map<unknown, number[][]>();
  let style: unknown;
  for (const [k, ...a] of calls) {
    if (k === 'fillStyle=') style = a[0];
    if (k === 'fillRect') (out.get(style) ?? out.set(style, []).get(style)!).push(a as number[]);
  }
  return out;
}

const g = globalThis as { document?: unknown; Path2D?: unknown };
const saved = { document: g.document, Path2D: g.Path2D };
beforeEach(() => {
  // The reserve's hatch tile: no 2D context here, so the hatch falls back to its colour.
  g.document = { createElement: () => ({ getContext: () => null }) };
  // The turn ticks' path (a string, as the SVG export writes it).
  g.Path2D = class {
    constructor(readonly d: string) {}
  };
});
afterEach(() => {
  g.document = saved.document;
  g.Path2D = saved.Path2D;
});

function view(n: number): ChartView {
  const v = chartView('k', n);
  const fill = (x: number | null): (number | null)[] => new Array<number | null>(n).fill(x);
  const window = fill(1000);
  window[3] = null;
  return {
    ...v,
    regions: {
      system: fill(50) as number[],
      unlogged: fill(10) as number[],
      summary: fill(20) as number[],
      history: v.regions.history.map((_, i) => 100 + 10 * i),
      tools: fill(40) as number[],
      output: fill(100) as number[],
      buffer: fill(50) as number[],
      free: fill(430) as number[],
    },
    window: { min: window, max: window },
    status: v.status.map((s, i) => (i === 2 ? 'warn' : s)),
  };
}

describe('drawChart', () => {
  it('fills the rectangles chartShapes gives, each region in its colour, a run of equal ones as one', () => {
    const v = view(8);
    const f: Frame = { width: 400, height: 200, left: 44, right: 8, top: 10, bottom: 8, yMax: 1200 };
    const { ctx, calls } = recorder();
    drawChart(ctx, v, f, { text: '#888', grid: '#333' });
    const drawn = fills(calls);
    const shapes = chartShapes(v, f);
    /** Each of chartShapes' rectangles lies in one drawn rectangle of its top and height, and the drawn ones cover no more. */
    const sameArea = (got: number[][], want: readonly Rect[]): void => {
      for (const r of want)
        expect(
          got.filter(([x, y, w, h]) => y === r.y && h === r.h && x! <= r.x + 1e-9 && r.x + r.w <= x! + w! + 1e-9),
          JSON.stringify(r),
        ).toHaveLength(1);
      const width = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
      expect(width(got.map((r) => r[2]!))).toBeCloseTo(width(want.map((r) => r.w)));
    };
    for (const r of PROMPT_REGIONS) sameArea(drawn.get(REGION_COLOR[r]) ?? [], shapes.regions[r]);
    sameArea(drawn.get(REGION_COLOR.reserve) ?? [], shapes.reserve);
    expect(shapes.status.warn).toHaveLength(1);
    // The system prompt is one height at every bucket: one fill across the plot, not one a bucket.
    expect(drawn.get(REGION_COLOR.system)).toEqual([[44, shapes.regions.system[0]!.y, 400 - 44 - 8, shapes.regions.system[0]!.h]]);
    // History grows at every bucket: one fill each.
    expect(drawn.get(REGION_COLOR.history)).toHaveLength(8);
  });

  it('flags every bucket above the limit: a bar at each request, one top bar across a run of them', () => {
    const base = view(8);
    const v: ChartView = { ...base, total: { min: base.total.min, max: base.total.max.map((_, i) => 1050 + 10 * i) } };
    const f: Frame = { width: 400, height: 200, left: 44, right: 8, top: 10, bottom: 8, yMax: 1200 };
    const { ctx, calls } = recorder();
    drawChart(ctx, v, f, { text: '#888', grid: '#333' });
    const shapes = chartShapes(v, f);
    // Every request is above the limit (100; bucket 3 has no window but is still over the limit): a bar at the request and one at the top each.
    expect(shapes.flags).toHaveLength(16);
    const drawn = fills(calls).get(LINE_COLOR.limit) ?? [];
    const top = drawn.filter(([, y]) => y === 5);
    const plot = 400 - 44 - 8;
    expect(top.map(([x, , w]) => [x, x! + w!])).toEqual([[44, 44 + plot]]);
    expect(drawn.filter(([, y]) => y !== 5)).toEqual(shapes.flags.filter((r) => r.y !== 5).map((r) => [r.x, r.y, r.w, r.h]));
  });

  it('draws the window line as one segment per run of a value, broken at a bucket without one', () => {
    const v = view(8);
    const f: Frame = { width: 400, height: 200, left: 44, right: 8, top: 10, bottom: 8, yMax: 1200 };
    const { ctx, calls } = recorder();
    drawChart(ctx, v, f, { text: '#888', grid: '#333' });
    // The window's path: from its beginPath to the stroke after strokeStyle = the window colour.
    const at = calls.findIndex((c) => c[0] === 'strokeStyle=' && c[1] === LINE_COLOR.window);
    const begin = calls
      .slice(0, at)
      .map((c) => c[0])
      .lastIndexOf('beginPath');
    const path = calls.slice(begin + 1, at).filter((c) => c[0] === 'moveTo' || c[0] === 'lineTo');
    // Buckets 0–2 at 1,000, none at 3, 4–7 at 1,000: two segments, each one moveTo and one lineTo.
    const plot = 400 - 44 - 8;
    expect(path.map((c) => c[0])).toEqual(['moveTo', 'lineTo', 'moveTo', 'lineTo']);
    expect(path[0]![1]).toBeCloseTo(44);
    expect(path[1]![1]).toBeCloseTo(44 + (3 * plot) / 8);
    expect(path[2]![1]).toBeCloseTo(44 + (4 * plot) / 8);
    expect(path[3]![1]).toBeCloseTo(44 + plot);
  });
});
