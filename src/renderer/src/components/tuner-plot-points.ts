/**
 * Which of a sweep's points the tuner's plot draws: up to 10,000 SVG circles would make the tab
 * slow to draw and to hover, and most overlap. Always drawn: every frontier point, the proposal,
 * the near-miss, the applied point, and the extremes of each axis (cheapest, dearest, most lost,
 * most ended early) so the axes' ends stay true. The rest are thinned evenly in cost order to fill
 * up to `max` points in all. Failed replays are never drawn (they have no figures).
 */
import type { TunePoint } from '../../../core/tune/index';

export const PLOT_MAX_POINTS = 1_000;

export interface PlotPick {
  readonly indices: readonly number[];
  /** Points left out of the drawing (they still count in the tables and the proposal). */
  readonly hidden: number;
}

export function plotPoints(
  points: readonly TunePoint[],
  frontier: readonly number[],
  keep: readonly (number | null)[],
  cost: (p: TunePoint) => number,
  lost: (p: TunePoint) => number,
  ended: (p: TunePoint) => number,
  max = PLOT_MAX_POINTS,
): PlotPick {
  const ok = points.filter((p) => !p.error);
  if (ok.length <= max) return { indices: ok.map((p) => p.index), hidden: 0 };
  const chosen = new Set<number>();
  for (const i of frontier) if (points[i] && !points[i]!.error) chosen.add(i);
  for (const i of keep) if (i !== null && points[i] && !points[i]!.error) chosen.add(i);
  const extreme = (f: (p: TunePoint) => number, sign: 1 | -1): void => {
    let best = ok[0]!;
    for (const p of ok) if (sign * f(p) < sign * f(best)) best = p;
    chosen.add(best.index);
  };
  extreme(cost, 1);
  extreme(cost, -1);
  extreme(lost, -1);
  extreme(ended, -1);
  const rest = ok.filter((p) => !chosen.has(p.index)).sort((a, b) => cost(a) - cost(b) || lost(a) - lost(b) || a.index - b.index);
  const room = Math.max(0, max - chosen.size);
  // Even strides through the cost order: the cloud keeps its shape along the cost axis.
  if (room > 0)
    for (let k = 0; k < room && k < rest.length; k++) chosen.add(rest[Math.floor((k * rest.length) / Math.min(room, rest.length))]!.index);
  const indices = [...chosen].sort((a, b) => a - b);
  return { indices, hidden: ok.length - indices.length };
}
