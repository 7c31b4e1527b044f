/** The turn arithmetic the strategies share: binary searches agree with the plain definition. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundaryAtOrAfter, turnStartOf } from '../../../src/core/strategies/util';

const sortedStarts = fc.uniqueArray(fc.nat(500), { maxLength: 60 }).map((a) => [0, ...a.filter((x) => x > 0)].sort((x, y) => x - y));

describe('turn arithmetic', () => {
  it('boundaryAtOrAfter is the first start ≥ i, capped at the limit', () => {
    fc.assert(
      fc.property(sortedStarts, fc.nat(520), fc.nat(520), (starts, i, limit) => {
        const first = starts.find((s) => s >= i);
        expect(boundaryAtOrAfter(starts, i, limit)).toBe(first === undefined ? limit : Math.min(first, limit));
      }),
    );
  });

  it('turnStartOf is the last start ≤ i', () => {
    fc.assert(
      fc.property(sortedStarts, fc.nat(520), (starts, i) => {
        const last = starts.filter((s) => s <= i).pop() ?? 0;
        expect(turnStartOf(starts, i)).toBe(last);
      }),
    );
  });
});
