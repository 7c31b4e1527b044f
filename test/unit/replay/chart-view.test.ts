/** chartView: a replay reduced per pixel column — min / max per bucket, exact markers, exact when small. */
import { describe, expect, it } from 'vitest';
import { bucketStarts, chartView } from '../../../src/core/replay/chart-view';
import { replay } from '../../../src/core/replay/index';
import { REGIONS, STEP_STATUSES, type ReplayEvent, type ReplayResult, type StepStatus } from '../../../src/core/replay/types';
import { assistant, session, user } from '../../helpers/session';

/** A hand-made result of `n` calls: total = i mod 1000, limit 900, trigger 800 (NaN on odd calls), reported 2 × total on every third call. */
function synthetic(
  n: number,
  statusAt: (i: number) => StepStatus = () => 'ok',
  reasonAt: (i: number) => string = () => '',
  events: ReplayEvent[] = [],
): ReplayResult {
  const regions = Object.fromEntries(REGIONS.map((r) => [r, new Float64Array(n)])) as Record<(typeof REGIONS)[number], Float64Array>;
  const total = new Float64Array(n);
  const reported = new Float64Array(n).fill(NaN);
  const trigger = new Float64Array(n);
  const status = new Uint8Array(n);
  const reasonIndex = new Uint16Array(n);
  const reasons = [''];
  for (let i = 0; i < n; i++) {
    total[i] = i % 1000;
    regions.history[i] = i % 1000;
    regions.free[i] = 1000 - (i % 1000);
    trigger[i] = i % 2 === 0 ? 800 : NaN;
    if (i % 3 === 0) reported[i] = 2 * (i % 1000);
    status[i] = STEP_STATUSES.indexOf(statusAt(i));
    const r = reasonAt(i);
    let idx = reasons.indexOf(r);
    if (idx < 0) idx = reasons.push(r) - 1;
    reasonIndex[i] = idx;
  }
  return {
    policy: 'synthetic',
    config: { resolved: { window: 1000, warnings: ['unknown model "x": using default limits'] } },
    steps: {
      count: n,
      messageIndex: Uint32Array.from({ length: n }, (_, i) => 2 * i + 1),
      turn: Uint32Array.from({ length: n }, (_, i) => Math.floor(i / 10)),
      regions,
      total,
      limit: new Float64Array(n).fill(900),
      trigger,
      reported,
      status,
      reasonIndex,
      reasons,
      keptFrom: new Uint32Array(n),
    },
    events,
    totals: {
      billedInputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      cost: 0,
      compressions: events.length,
      tokensRemoved: 0,
      peak: 999,
      forcedFinals: 0,
      aborts: 0,
      overflows: 0,
    },
    retention: { lost: [] },
  };
}

const compression = (step: number): ReplayEvent => ({
  kind: 'compression',
  step,
  path: 'proactive',
  strategy: 'summarize',
  tokensBefore: 150_000,
  tokensAfter: 30_000,
  dropped: [[0, 3]],
  kept: [[4, 9]],
});

describe('chartView', () => {
  it('splits the calls into equal buckets, one call each when there are fewer calls than buckets', () => {
    // 30,000 / 800 = 37.5 calls per bucket: bucket b starts at floor(37.5 b).
    const s = bucketStarts(30_000, 800);
    expect(s).toHaveLength(800);
    expect(s.slice(0, 4)).toEqual([0, 37, 75, 112]);
    expect(s[799]).toBe(29_962);
    expect(bucketStarts(5, 800)).toEqual([0, 1, 2, 3, 4]);
    expect(bucketStarts(0, 800)).toEqual([]);
  });

  it('keeps every marker of 30,000 calls reduced to 800 buckets, each at its exact call', () => {
    // A compression every 37 calls (811 of them, more than there are buckets), a source compaction every 1,000.
    const events: ReplayEvent[] = [];
    for (let i = 5; i < 30_000; i += 37) events.push(compression(i));
    for (let i = 500; i < 30_000; i += 1000)
      events.push({ kind: 'source-compaction', step: i, messageIndex: 2 * i, trigger: 'auto', tokensBefore: 160_000 });
    // Warnings on isolated calls (each its own reason), a skip, and an abort that ends the run at 29,990.
    const statusAt = (i: number): StepStatus => (i >= 29_990 ? 'abort' : i === 12_345 ? 'skip' : i % 999 === 0 && i > 0 ? 'warn' : 'ok');
    const reasonAt = (i: number): string =>
      i >= 29_990 ? 'tokens budget exceeded' : i === 12_345 ? 'skip to the fallback' : i % 999 === 0 && i > 0 ? `warn ${i}` : '';
    const v = chartView(synthetic(30_000, statusAt, reasonAt, events), { key: 'k', buckets: 800 });
    expect(v.bucketStart).toHaveLength(800);
    const at = (kind: string): number[] => v.markers.filter((m) => m.kind === kind).map((m) => m.step);
    expect(at('compression')).toEqual(events.filter((e) => e.kind === 'compression').map((e) => e.step));
    expect(at('source-compaction')).toEqual(Array.from({ length: 30 }, (_, k) => 500 + 1000 * k));
    // Multiples of 999 from 999 to 29,970: 30 warnings.
    expect(at('warn')).toEqual(Array.from({ length: 30 }, (_, k) => 999 * (k + 1)));
    expect(at('skip')).toEqual([12_345]);
    // The abort and the 9 calls after it are one marker.
    expect(v.markers.filter((m) => m.kind === 'abort')).toEqual([
      { step: 29_990, kind: 'abort', until: 29_999, reason: 'tokens budget exceeded' },
    ]);
    // Numbers, not prose: the renderer writes the line (model/marker-label.ts).
    expect(v.markers.find((m) => m.kind === 'compression')).toEqual({
      step: 5,
      kind: 'compression',
      path: 'proactive',
      strategy: 'summarize',
      tokensBefore: 150_000,
      tokensAfter: 30_000,
    });
    expect(v.markers.find((m) => m.kind === 'source-compaction')).toEqual({
      step: 500,
      kind: 'source-compaction',
      trigger: 'auto',
      tokensBefore: 160_000,
    });
    // Sorted by call.
    expect(v.markers.map((m) => m.step)).toEqual([...v.markers.map((m) => m.step)].sort((a, b) => a - b));
    // The bucket of call 12,345 (12,345 / 37.5 = 329.2 → bucket 329) shows the skip as its worst status.
    expect(v.status[329]).toBe('skip');
    expect(v.status[799]).toBe('abort');
  });

  it('gives each bucket the min and max of its calls and the regions of its fullest call', () => {
    const v = chartView(synthetic(30_000), { key: 'k', buckets: 800 });
    // Bucket 0 = calls 0..36: total = i, so min 0, max 36; its fullest call is 36.
    expect([v.total.min[0], v.total.max[0], v.peakStep[0]]).toEqual([0, 36, 36]);
    // Bucket 26 = calls 975..1011 (floor(26 × 37.5) = 975, floor(27 × 37.5) = 1012): total wraps at 1,000 → min 0, max 999 at call 999.
    expect(v.bucketStart.slice(26, 28)).toEqual([975, 1012]);
    expect([v.total.min[26], v.total.max[26], v.peakStep[26]]).toEqual([0, 999, 999]);
    expect(v.regions.history[26]).toBe(999);
    expect(v.regions.free[26]).toBe(1);
    // Trigger is NaN on odd calls (none in a one-call bucket of an odd call), reported on every third call as 2 × total.
    expect([v.trigger.min[0], v.trigger.max[0]]).toEqual([800, 800]);
    expect([v.reported.min[0], v.reported.max[0]]).toEqual([0, 72]);
    expect([v.limit.min[5], v.limit.max[5]]).toEqual([900, 900]);
    expect([v.window.min[5], v.window.max[5]]).toEqual([1000, 1000]);
    expect(v.warnings).toContain('unknown model "x": using default limits');
    // Turns start every 10 calls.
    expect(v.turnStarts.slice(0, 3)).toEqual([0, 10, 20]);
    expect(v.turnStarts).toHaveLength(3000);
  });

  it('is exact when the calls fit: one call per bucket, min = max = the call, null where a call has no value', () => {
    const v = chartView(synthetic(5), { key: 'k', buckets: 800 });
    expect(v.bucketStart).toEqual([0, 1, 2, 3, 4]);
    expect(v.peakStep).toEqual([0, 1, 2, 3, 4]);
    expect(v.total).toEqual({ min: [0, 1, 2, 3, 4], max: [0, 1, 2, 3, 4] });
    expect(v.trigger).toEqual({ min: [800, null, 800, null, 800], max: [800, null, 800, null, 800] });
    expect(v.reported).toEqual({ min: [0, null, null, 6, null], max: [0, null, null, 6, null] });
  });

  it('makes one marker of a run of calls with the same status and reason', () => {
    const v = chartView(
      synthetic(
        20,
        (i) => (i >= 5 && i < 15 ? 'warn' : 'ok'),
        (i) => (i >= 5 && i < 10 ? 'soft budget' : i >= 10 && i < 15 ? 'other' : ''),
      ),
      { key: 'k', buckets: 800 },
    );
    expect(v.markers).toEqual([
      { step: 5, kind: 'warn', until: 9, reason: 'soft budget' },
      { step: 10, kind: 'warn', until: 14, reason: 'other' },
    ]);
  });

  it('makes one marker of a run whose reasons differ only in their numbers', () => {
    // Numbers of any length, with thousands commas or a decimal point, are one number.
    const v = chartView(
      synthetic(
        10,
        (i) => (i >= 2 ? 'warn' : 'ok'),
        (i) =>
          i >= 2 && i < 6
            ? `session tokens budget exceeded (${(300_000 + i * 1_000).toLocaleString('en-US')} of 300,000; soft mode)`
            : i === 6
              ? 'request 1,200 > limit 1,000 (trigger)'
              : i === 7
                ? 'request 999.5 > limit 1,000 (trigger)'
                : i >= 8
                  ? 'request 12 > limit 1,000 (window)'
                  : '',
      ),
      { key: 'k', buckets: 800 },
    );
    expect(v.markers).toEqual([
      { step: 2, kind: 'warn', until: 5, reason: 'session tokens budget exceeded (302,000 of 300,000; soft mode)' },
      { step: 6, kind: 'warn', until: 7, reason: 'request 1,200 > limit 1,000 (trigger)' },
      // Different words: a new run.
      { step: 8, kind: 'warn', until: 9, reason: 'request 12 > limit 1,000 (window)' },
    ]);
  });

  it('makes one marker of compressions of one path and strategy on consecutive calls', () => {
    const masked = (step: number, before: number): ReplayEvent => ({
      kind: 'compression',
      step,
      path: 'proactive',
      strategy: 'observation-masking',
      tokensBefore: before,
      tokensAfter: before - 100,
      dropped: [],
      kept: [[0, step]],
    });
    const events = [masked(3, 1_000), masked(4, 1_050), masked(5, 1_100), masked(8, 1_200), compression(9)];
    const v = chartView(
      synthetic(
        20,
        () => 'ok',
        () => '',
        events,
      ),
      { key: 'k', buckets: 800 },
    );
    expect(v.markers).toEqual([
      {
        step: 3,
        kind: 'compression',
        path: 'proactive',
        strategy: 'observation-masking',
        until: 5,
        tokensBefore: 1_000,
        tokensAfter: 900,
        lastTokensBefore: 1_100,
        lastTokensAfter: 1_000,
      },
      { step: 8, kind: 'compression', path: 'proactive', strategy: 'observation-masking', tokensBefore: 1_200, tokensAfter: 1_100 },
      { step: 9, kind: 'compression', path: 'proactive', strategy: 'summarize', tokensBefore: 150_000, tokensAfter: 30_000 },
    ]);
  });

  it('reduces a real replay: the compression it ran is a marker with its numbers', async () => {
    // chars4: 400 chars = 100 tokens a message, no overhead. Window 4,000, trigger 0.5 → 2,000:
    // call j holds 2j + 1 messages, first over at j = 10 (2,100 tokens).
    const messages = [];
    for (let t = 0; t < 15; t++) messages.push(user(`u${t} `.repeat(200).slice(0, 400)), assistant(`a${t} `.repeat(200).slice(0, 400)));
    const r = await replay(session(messages), {
      tokenizer: 'chars4',
      window: 4_000,
      maxOutput: 500,
      buffer: 0,
      trigger: 0.5,
      target: 0.5,
      summarizer: 'none',
      pipeline: ['drop-oldest'],
    });
    const v = chartView(r, { key: 'k', buckets: 800 });
    expect(v.stepCount).toBe(15);
    // Drop-oldest drops messages until 2,000 fits (docs/policies.md §S2): at call 10 message 0 goes
    // (2,100 → 2,000); each later call brings two messages (2,200) and drops the two oldest (→ 2,000):
    // calls 10..14 all compress, one marker.
    expect(v.markers).toEqual([
      {
        step: 10,
        kind: 'compression',
        path: 'proactive',
        strategy: 'drop-oldest',
        until: 14,
        tokensBefore: 2_100,
        tokensAfter: 2_000,
        lastTokensBefore: 2_200,
        lastTokensAfter: 2_000,
      },
    ]);
    expect(v.total.max[9]).toBe(1_900);
    expect(v.status[10]).toBe('compress');
  });
});
