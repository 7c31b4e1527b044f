import { describe, expect, it } from 'vitest';
import type { ReplayView } from '../../../src/shared/api';
import { chartRows } from '../../../src/renderer/src/chart-data';

function view(totals: number[]): ReplayView {
  const n = totals.length;
  const zeros = () => new Array<number>(n).fill(0);
  return {
    policy: 'p',
    config: {},
    steps: {
      messageIndex: totals.map((_, i) => i * 2),
      turn: zeros(),
      regions: { system: zeros(), unlogged: zeros(), summary: zeros(), history: [...totals], tools: zeros(), output: zeros(), buffer: zeros(), free: totals.map((t) => 1000 - t) },
      total: [...totals],
      limit: new Array<number>(n).fill(900),
      trigger: new Array<number | null>(n).fill(null),
      reported: totals.map((t, i) => (i % 2 ? null : t + 1)),
      status: totals.map(() => 'ok' as const),
      reason: totals.map(() => ''),
      keptFrom: zeros(),
    },
    events: [],
    totals: { billedInputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, compressions: 0, tokensRemoved: 0, peak: 0, forcedFinals: 0, aborts: 0 },
    retention: { lost: [] },
  };
}

describe('chart rows', () => {
  it('keeps every step of a short session with its regions and reported size', () => {
    const rows = chartRows(view([10, 20, 30]));
    expect(rows.map((r) => r.step)).toEqual([0, 1, 2]);
    expect(rows[1]).toMatchObject({ history: 20, free: 980, total: 20, reported: null, limit: 900 });
    expect(rows[2]?.reported).toBe(31);
  });

  it('downsamples long sessions without losing the peak', () => {
    const totals = Array.from({ length: 10_000 }, (_, i) => (i === 7_777 ? 999 : i % 100));
    const rows = chartRows(view(totals), 500);
    expect(rows).toHaveLength(500);
    expect(Math.max(...rows.map((r) => r.total))).toBe(999);
    expect(rows.some((r) => r.step === 7_777)).toBe(true);
    // steps stay in order
    expect(rows.every((r, i) => i === 0 || r.step > rows[i - 1]!.step)).toBe(true);
  });
});
