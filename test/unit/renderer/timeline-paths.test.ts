/**
 * The replay timeline's marker paths: one path per row and colour, touching or overlapping
 * markers joined into one rectangle, and the area covered exactly the union of one rectangle per
 * marker (what the timeline drew before it joined them).
 */
import { describe, expect, it } from 'vitest';
import { ROW_H, TIMELINE_ROWS, timelinePaths, timelineRow } from '../../../src/renderer/src/model/timeline-paths';
import { MARKER_COLOR, STATUS_COLOR } from '../../../src/renderer/src/colors';
import type { ChartMarker, CompressionMarker } from '../../../src/shared/api';

const compression = (step: number, path: CompressionMarker['path'] = 'proactive', until?: number): ChartMarker => ({
  kind: 'compression',
  path,
  strategy: 's',
  step,
  tokensBefore: 10,
  tokensAfter: 5,
  ...(until !== undefined ? { until } : {}),
});
const warn = (step: number, until?: number): ChartMarker => ({
  kind: 'warn',
  reason: 'r',
  step,
  ...(until !== undefined ? { until } : {}),
});
const skip = (step: number): ChartMarker => ({ kind: 'skip', reason: 'r', step });
const agent = (step: number): ChartMarker => ({ kind: 'source-compaction', trigger: 'auto', step });

/** The rectangles of a path as [x0, x1, y0, y1]. */
function rects(d: string): [number, number, number, number][] {
  return [...d.matchAll(/M([\d.]+) ([\d.]+)h([\d.]+)v([\d.]+)h-([\d.]+)z/g)].map((m) => {
    const x = Number(m[1]);
    const y = Number(m[2]);
    return [x, x + Number(m[3]), y, y + Number(m[4])];
  });
}

/** Whether x is inside one of the rectangles (the ends within the paths' 0.01 rounding). */
const covers = (rs: readonly [number, number, number, number][], x: number): boolean =>
  rs.some(([a, b]) => x >= a - 0.006 && x <= b + 0.006);

describe('timeline marker paths', () => {
  it('draws nothing without calls or markers', () => {
    expect(timelinePaths([], 100)).toEqual([]);
    expect(timelinePaths([compression(1)], 0)).toEqual([]);
  });

  it('puts each marker on its row: compressions by path, the agent, the guard', () => {
    expect(timelineRow(compression(0, 'proactive'))).toBe(0);
    expect(timelineRow(compression(0, 'emergency'))).toBe(1);
    expect(timelineRow(compression(0, 'async'))).toBe(2);
    expect(timelineRow(compression(0, 'strategy'))).toBe(2);
    expect(timelineRow(agent(0))).toBe(3);
    expect(timelineRow(warn(0))).toBe(4);
    expect(timelineRow(skip(0))).toBe(4);
    const paths = timelinePaths([compression(1), warn(2), agent(3), skip(4), compression(5, 'emergency')], 100);
    expect(paths.map((p) => p.key)).toEqual([
      `proactive-${MARKER_COLOR.compression}`,
      `emergency-${MARKER_COLOR.compression}`,
      `source-${MARKER_COLOR['source-compaction']}`,
      `guard-${STATUS_COLOR.warn}`,
      `guard-${STATUS_COLOR.skip}`,
    ]);
    const rowOf = (key: string): number => TIMELINE_ROWS.findIndex((r) => key.startsWith(`${r.key}-`));
    for (const p of paths)
      for (const [, , y0, y1] of rects(p.d)) expect([y0, y1]).toEqual([rowOf(p.key) * ROW_H + 1, rowOf(p.key) * ROW_H + ROW_H - 1]);
  });

  it('joins markers that touch or overlap into one rectangle and keeps apart ones apart', () => {
    // 1000 calls: a call is one unit wide. Calls 10, 11, 12 touch; 40 is apart. Row 0 of height ROW_H
    // (11) is drawn from 1 to ROW_H − 1 = 10.
    const [p] = timelinePaths([compression(10), compression(11), compression(12), compression(40)], 1000);
    expect(rects(p!.d)).toEqual([
      [10, 13, 1, ROW_H - 1],
      [40, 41, 1, ROW_H - 1],
    ]);
  });

  it('draws a run (until) from its first call to its last, and a single call at least 0.6 units wide', () => {
    const [p] = timelinePaths([warn(100, 199)], 1000);
    // The guard row (4): from 4 × ROW_H + 1 to 5 × ROW_H − 1.
    expect(rects(p!.d)).toEqual([[100, 200, 4 * ROW_H + 1, 5 * ROW_H - 1]]);
    const [q] = timelinePaths([compression(5)], 100_000);
    const [[x0, x1]] = rects(q!.d) as [[number, number, number, number]];
    expect(x1 - x0).toBeCloseTo(0.6, 2);
  });

  it('covers exactly what one rectangle per marker covers, sorted or not', () => {
    // 10,000 calls in 1000 units: markers every few calls overlap, runs reach over later markers.
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const markers: ChartMarker[] = [];
    for (let step = 0; step < 10_000; step += 1 + rnd(40))
      markers.push(rnd(5) === 0 ? compression(step, 'proactive', step + rnd(300)) : compression(step));
    const shuffled = [...markers].sort(() => rnd(3) - 1);
    for (const input of [markers, shuffled]) {
      const [p] = timelinePaths(input, 10_000);
      const joined = rects(p!.d);
      expect(joined.length).toBeLessThan(markers.length);
      const single = input.map((m): [number, number, number, number] => {
        const x = m.step / 10;
        return [x, x + Math.max(0.6, ((m.until ?? m.step) + 1 - m.step) / 10), 1, ROW_H - 1];
      });
      const differ: string[] = [];
      for (let x = 0.05; x < 1000; x += 0.1) if (covers(joined, x) !== covers(single, x)) differ.push(x.toFixed(2));
      expect(differ).toEqual([]);
    }
  });
});
