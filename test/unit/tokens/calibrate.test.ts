/**
 * The calibration report scores the fit honestly: on the calls it was fitted on (in sample) and,
 * fitted on the first half of the calls, on the second half (out of sample). The counts are
 * built by hand (100 tokens per message, no system prompt or tools) so every expected value
 * below is arithmetic on the reported sizes.
 */
import { describe, expect, it } from 'vitest';
import type { Message, Session } from '../../../src/core/model';
import { calibrationReport, fitCalibration, fittedCalls } from '../../../src/core/tokens/calibrate';
import type { SessionCounts } from '../../../src/core/tokens/types';

/** 2·calls messages, user then assistant; assistant k (message 2k+1) reported `reported[k]` prompt tokens. */
function sessionWith(reported: readonly (number | undefined)[]): { session: Session; counts: SessionCounts } {
  const messages: Message[] = [];
  reported.forEach((y, k) => {
    messages.push({ id: `u${k}`, role: 'user', parts: [{ kind: 'text', text: 'q' }] });
    messages.push({
      id: `a${k}`,
      role: 'assistant',
      parts: [{ kind: 'text', text: 'a' }],
      ...(y !== undefined ? { usage: { convention: 'openai', input: y, cacheRead: 0, cacheWrite: 0, output: 1 } } : {}),
    });
  });
  const n = messages.length;
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + 100;
  const counts: SessionCounts = {
    tokenizer: 'test',
    perMessage: new Uint32Array(n).fill(100),
    prefix,
    system: 0,
    tools: 0,
    unlogged: 0,
    approximate: false,
  };
  const session: Session = {
    id: 's',
    format: 'openai-chat',
    systemPrompt: null,
    tools: [],
    messages,
    sourceCompactions: [],
    subagents: [],
    warnings: [],
  };
  return { session, counts };
}

describe('calibrationReport', () => {
  it('recovers an exact line: ratio, overhead, zero error in and out of sample', () => {
    // Call k is message 2k+1, so its estimate x = 100·(2k+1) = 100, 300, …, 1500; y = 1.5·x + 1000.
    const ys = [100, 300, 500, 700, 900, 1100, 1300, 1500].map((x) => 1.5 * x + 1000);
    const { session, counts } = sessionWith(ys);
    const r = calibrationReport(session, counts);
    expect(r).toEqual({
      ratio: expect.closeTo(1.5, 9),
      overhead: 1000,
      inSampleError: expect.closeTo(0, 9),
      outOfSampleError: expect.closeTo(0, 9),
      calls: 8,
    });
  });

  it('scores the second half with the line fitted on the first half only', () => {
    // First half x = 100, 300, 500, 700 with y = x + 1000 → fit ratio 1, overhead 1000.
    // Second half x = 900, 1100, 1300, 1500 → predicted 1900, 2100, 2300, 2500; reported
    // 2000, 2100, 2500, 2500 → errors 100/2000 = 5%, 0%, 200/2500 = 8%, 0% → median of
    // [0, 0, 5, 8] = (0 + 5) / 2 = 2.5%.
    const { session, counts } = sessionWith([1100, 1300, 1500, 1700, 2000, 2100, 2500, 2500]);
    const r = calibrationReport(session, counts);
    if ('fallback' in r) throw new Error(r.fallback);
    expect(r.outOfSampleError).toBeCloseTo(2.5, 9);
    expect(r.calls).toBe(8);
    // Fitted on all eight, the line also bends toward the second half's points: it flatters itself.
    expect(r.inSampleError).toBeLessThan(r.outOfSampleError!);
  });

  it('gives no out-of-sample error when a half would hold fewer than two calls', () => {
    // Three calls: the first half is one call, and a line through one point says nothing.
    const { session, counts } = sessionWith([1100, 1300, 1500]);
    const r = calibrationReport(session, counts);
    expect(r).toMatchObject({ calls: 3, outOfSampleError: null });
  });

  it('says why it falls back: no usage, or a line that is not physical', () => {
    const none = sessionWith([undefined, undefined]);
    expect(calibrationReport(none.session, none.counts)).toEqual({ fallback: expect.stringMatching(/no call reports a prompt size/) });
    // Reported sizes that shrink as the transcript grows: a negative ratio.
    const shrinking = sessionWith([5000, 4000, 3000, 2000]);
    expect(calibrationReport(shrinking.session, shrinking.counts)).toEqual({
      fallback: expect.stringMatching(/not physical.*fixed offset only/),
    });
    // The tokenizer itself still uses the offset: mean of y − x = (4900 + 3700 + 2500 + 1300) / 4 = 3100.
    expect(fitCalibration(shrinking.session, shrinking.counts)).toMatchObject({
      ratio: 1,
      overhead: 3100,
      fallback: expect.stringMatching(/not physical/),
    });
  });

  it('keeps the best line with overhead ≥ 0 when only the overhead came out negative, if it beats the offset', () => {
    // x = 100, 300, 500, 700 (100 tokens per message before each call); y = 1.05 x − 10 = 95, 305, 515, 725.
    // The free line (1.05, −10) has a negative overhead. Clamped at 0: ratio Σxy / Σxx =
    // (9,500 + 91,500 + 257,500 + 507,500) / (10,000 + 90,000 + 250,000 + 490,000) = 866,000 / 840,000.
    // Its squared error (8.10² + 4.29² + 0.48² + 3.33² ≈ 95) beats the offset's (mean gap 10: 15² + 5² + 5² + 15² = 500).
    const { session, counts } = sessionWith([95, 305, 515, 725]);
    const fit = fitCalibration(session, counts);
    expect(fit.fallback).toBeUndefined();
    expect(fit.overhead).toBe(0);
    expect(fit.ratio).toBeCloseTo(866_000 / 840_000, 12);
  });
});

describe('the calls the line is fitted on (a growing session holds it still)', () => {
  it('are all of them up to 1,024, then the largest 1,024 × 2^k there are', () => {
    expect([0, 1, 2, 1_024].map(fittedCalls)).toEqual([0, 1, 2, 1_024]);
    // 1,025 … 2,047 → 1,024; 2,048 → 2,048; 5,000 → 4,096 (8,192 > 5,000).
    expect([1_025, 2_047, 2_048, 5_000].map(fittedCalls)).toEqual([1_024, 1_024, 2_048, 4_096]);
  });

  it('fits the first 1,024 of 1,500 calls: the later ones, off the line, move neither the fit nor the report', () => {
    // Call k's request is message 2k+1's prefix: (2k+1)·100. The first 1,024 report x + 5,000
    // exactly (ratio 1, overhead 5,000); the other 476 report 2x, far off that line.
    const reported = Array.from({ length: 1_500 }, (_, k) => (2 * k + 1) * 100 * (k < 1_024 ? 1 : 2) + (k < 1_024 ? 5_000 : 0));
    const { session, counts } = sessionWith(reported);
    const fit = fitCalibration(session, counts);
    expect(fit).toMatchObject({ ratio: 1, overhead: 5_000, points: 1_024, meanAbsError: 0 });
    expect(calibrationReport(session, counts)).toMatchObject({ ratio: 1, overhead: 5_000, inSampleError: 0, calls: 1_500 });
  });
});
