/** The tuner plot's thinning: at most the cap, every frontier point and the axes' extremes kept. */
import { describe, expect, it } from 'vitest';
import type { TunePoint } from '../../../src/core/tune/index';
import { paretoFrontier } from '../../../src/core/tune/index';
import { plotPoints } from '../../../src/renderer/src/components/tuner-plot-points';

const cost = (p: TunePoint): number => p.cost;
const lost = (p: TunePoint): number => p.lostFacts + p.lostNeedles;
const ended = (p: TunePoint): number => p.forcedFinals + p.aborts;

function grid(n: number): TunePoint[] {
  // A deterministic cloud: cost falls as losses rise, with scatter, and a few early ends.
  return Array.from({ length: n }, (_, index) => {
    const t = index / n;
    const jitter = ((index * 7919) % 101) / 101;
    return {
      index,
      settings: { trigger: t },
      cost: 10 - 8 * t + jitter,
      billedInputTokens: 1_000 + index,
      lostFacts: Math.floor(40 * t) + Math.floor(5 * jitter),
      lostNeedles: 0,
      forcedFinals: index % 997 === 0 ? 1 : 0,
      aborts: 0,
      compressions: 1,
      peak: 1,
      onFrontier: false,
    };
  });
}

describe('plotPoints', () => {
  it('draws everything when the sweep is small', () => {
    const pts = grid(300);
    expect(plotPoints(pts, [], [], cost, lost, ended)).toEqual({ indices: pts.map((p) => p.index), hidden: 0 });
  });

  it('thins 10,000 points to at most 1,000, keeping the frontier, the picked points and the extremes', () => {
    const pts = grid(10_000);
    const frontier = paretoFrontier(pts, 'usd');
    expect(frontier.length).toBeGreaterThan(5);
    const pick = plotPoints(pts, frontier, [4_321, null], cost, lost, ended);
    expect(pick.indices.length).toBeLessThanOrEqual(1_000);
    expect(pick.indices.length).toBeGreaterThan(900);
    expect(pick.hidden).toBe(10_000 - pick.indices.length);
    const drawn = new Set(pick.indices);
    for (const i of frontier) expect(drawn.has(i)).toBe(true);
    expect(drawn.has(4_321)).toBe(true);
    const byCost = [...pts].sort((a, b) => a.cost - b.cost);
    expect(drawn.has(byCost[0]!.index)).toBe(true);
    expect(drawn.has(byCost.at(-1)!.index)).toBe(true);
    const mostLost = Math.max(...pts.map(lost));
    expect(pick.indices.some((i) => lost(pts[i]!) === mostLost)).toBe(true);
    expect(pick.indices.some((i) => ended(pts[i]!) > 0)).toBe(true);
  });

  it('never draws a failed replay', () => {
    const pts = grid(2_000).map((p, i) => (i % 3 === 0 ? { ...p, error: 'boom' } : p));
    const pick = plotPoints(pts, [], [], cost, lost, ended);
    expect(pick.indices.every((i) => !pts[i]!.error)).toBe(true);
  });
});
