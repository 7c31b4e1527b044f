/**
 * Turns a ReplayView into the rows the window chart draws, downsampled for long sessions: at
 * most `maxPoints` rows, each bucket represented by its fullest step so peaks never vanish.
 * Pure, so it is unit-tested without a DOM.
 */
import type { ReplayView } from '../../shared/api';

export const REGION_ORDER = ['system', 'unlogged', 'summary', 'history', 'tools', 'output', 'buffer', 'free'] as const;
export type RegionKey = (typeof REGION_ORDER)[number];

export const REGION_LABELS: Record<RegionKey, string> = {
  system: 'system prompt',
  unlogged: 'unlogged system & tools',
  summary: 'summary',
  history: 'history',
  tools: 'tool definitions',
  output: 'output reserve',
  buffer: 'buffer',
  free: 'free',
};

export type ChartRow = { step: number; total: number; limit: number; reported: number | null; status: string } & Record<RegionKey, number>;

export function chartRows(view: ReplayView, maxPoints = 1200): ChartRow[] {
  const n = view.steps.total.length;
  const row = (i: number): ChartRow => {
    const r = view.steps.regions;
    return {
      step: i,
      total: view.steps.total[i] ?? 0,
      limit: view.steps.limit[i] ?? 0,
      reported: view.steps.reported[i] ?? null,
      status: view.steps.status[i] ?? 'ok',
      system: r.system[i] ?? 0,
      unlogged: r.unlogged[i] ?? 0,
      summary: r.summary[i] ?? 0,
      history: r.history[i] ?? 0,
      tools: r.tools[i] ?? 0,
      output: r.output[i] ?? 0,
      buffer: r.buffer[i] ?? 0,
      free: r.free[i] ?? 0,
    };
  };
  if (n <= maxPoints) return Array.from({ length: n }, (_, i) => row(i));
  const rows: ChartRow[] = [];
  const bucket = n / maxPoints;
  for (let b = 0; b < maxPoints; b++) {
    const from = Math.floor(b * bucket);
    const to = Math.min(n, Math.floor((b + 1) * bucket));
    let best = from;
    for (let i = from + 1; i < to; i++) if ((view.steps.total[i] ?? 0) > (view.steps.total[best] ?? 0)) best = i;
    rows.push(row(best));
  }
  return rows;
}
