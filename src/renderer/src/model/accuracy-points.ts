/**
 * Which calls the estimate-vs-reported plot draws. A 30,000-call session would be 30,000 SVG
 * marks (recharts draws each as an element): slow to draw and to hover, and most overlap. Always
 * drawn: the calls the estimate misses most (by |error %|, the ones a person looks for), the
 * selected call, and each axis's extremes so the axes' ends stay true; the rest are thinned evenly
 * in call order so the cloud keeps its shape along the session.
 */
import type { AccuracyView } from '../../../shared/api';

export type AccuracyCall = AccuracyView['calls'][number];

export const ACCURACY_PLOT_MAX = 1_500;
/** How many of the worst-estimated calls are always drawn. */
const WORST = 100;

export interface AccuracyPick {
  readonly points: readonly AccuracyCall[];
  /** Calls left out of the drawing (the table below still lists them). */
  readonly hidden: number;
}

export function accuracyPoints(calls: readonly AccuracyCall[], selectedStep: number | null, max = ACCURACY_PLOT_MAX): AccuracyPick {
  if (calls.length <= max) return { points: calls, hidden: 0 };
  const chosen = new Set<number>();
  const byError = calls.map((_, i) => i).sort((a, b) => Math.abs(calls[b]!.errorPct) - Math.abs(calls[a]!.errorPct) || a - b);
  for (const i of byError.slice(0, Math.min(WORST, max))) chosen.add(i);
  let minR = 0;
  let maxR = 0;
  let minE = 0;
  let maxE = 0;
  calls.forEach((c, i) => {
    if (c.reported < calls[minR]!.reported) minR = i;
    if (c.reported > calls[maxR]!.reported) maxR = i;
    if (c.estimate < calls[minE]!.estimate) minE = i;
    if (c.estimate > calls[maxE]!.estimate) maxE = i;
  });
  for (const i of [minR, maxR, minE, maxE]) chosen.add(i);
  if (selectedStep !== null) {
    const i = calls.findIndex((c) => c.step === selectedStep);
    if (i >= 0) chosen.add(i);
  }
  const room = Math.max(0, max - chosen.size);
  for (let k = 0; k < room; k++) chosen.add(Math.floor((k * calls.length) / room));
  const indices = [...chosen].sort((a, b) => a - b);
  return { points: indices.map((i) => calls[i]!), hidden: calls.length - indices.length };
}
