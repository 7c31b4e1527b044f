import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accuracyPoints, type AccuracyCall } from '../../../src/renderer/src/model/accuracy-points';

const call = (step: number, estimate: number, reported: number): AccuracyCall => ({
  step,
  messageIndex: step * 2,
  estimate,
  reported,
  errorPct: ((estimate - reported) / reported) * 100,
});

describe('the estimate-vs-reported plot draws a bounded, faithful subset', () => {
  it('draws every call of a small session', () => {
    const calls = [call(0, 100, 110), call(1, 200, 190)];
    expect(accuracyPoints(calls, null, 10)).toEqual({ points: calls, hidden: 0 });
  });

  it('keeps the worst estimate, the axes extremes and the selected call when thinning', () => {
    // 1,000 calls estimated within 1%, one call 60% off (step 500), the biggest request last.
    const calls = Array.from({ length: 1_000 }, (_, i) => call(i, 1_000 + i, i === 500 ? 625 + i : 1_000 + i));
    const pick = accuracyPoints(calls, 733, 50);
    const steps = new Set(pick.points.map((c) => c.step));
    expect(steps.has(500)).toBe(true); // |error| 60%: the one a person looks for
    expect(steps.has(0)).toBe(true); // smallest reported and estimate
    expect(steps.has(999)).toBe(true); // largest
    expect(steps.has(733)).toBe(true); // the selected call
    expect(pick.points.length + pick.hidden).toBe(1_000);
  });

  it('property: never more than max + the always-kept calls, in call order, no call twice', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 1e6 })), { minLength: 1, maxLength: 600 }),
        fc.integer({ min: 5, max: 200 }),
        (pairs, max) => {
          const calls = pairs.map(([e, r], i) => call(i, e, r));
          const pick = accuracyPoints(calls, null, max);
          const steps = pick.points.map((c) => c.step);
          expect(new Set(steps).size).toBe(steps.length);
          expect([...steps].sort((a, b) => a - b)).toEqual(steps);
          // The worst 100 (capped at max), 4 extremes: at most max of them plus 4 over the room.
          expect(steps.length).toBeLessThanOrEqual(Math.max(calls.length <= max ? calls.length : max + 4, 0));
          expect(pick.hidden).toBe(calls.length - steps.length);
        },
      ),
    );
  });
});
