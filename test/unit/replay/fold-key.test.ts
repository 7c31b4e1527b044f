/**
 * The fold memo's keys (compress.ts): a number for one range with a small target, the text
 * otherwise. Two folds get the same key exactly when they are the same fold (target and ranges),
 * and the last message a key names — what a live-tail append carries by — is the folds' last.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldEnd, foldKey } from '../../../src/core/replay/compress';
import type { MessageRange } from '../../../src/core/replay/types';

// Around the bounds of the number key: small and large targets and message indices.
const indexArb = fc.oneof(fc.nat(50), fc.integer({ min: 2 ** 21 - 3, max: 2 ** 21 + 3 }));
const targetArb = fc.oneof(fc.constantFrom(400, 512, 2047, 2048, 20_000), fc.nat(3000));
const rangeArb = fc.tuple(indexArb, indexArb).map(([a, z]): MessageRange => [Math.min(a, z), Math.max(a, z)]);
const foldArb = fc.tuple(targetArb, fc.array(rangeArb, { minLength: 1, maxLength: 3 }));

const same = (x: [number, readonly MessageRange[]], y: [number, readonly MessageRange[]]): boolean =>
  x[0] === y[0] && x[1].length === y[1].length && x[1].every(([a, z], q) => a === y[1][q]![0] && z === y[1][q]![1]);

describe('fold memo keys', () => {
  it('name a fold and only that fold (property)', () => {
    fc.assert(
      fc.property(foldArb, foldArb, (x, y) => {
        expect(foldKey(x[0], x[1]) === foldKey(y[0], y[1])).toBe(same(x, y));
        expect(foldKey(x[0], x[1])).toBe(
          foldKey(
            x[0],
            x[1].map(([a, z]): MessageRange => [a, z]),
          ),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('end at the folds’ last message (property)', () => {
    fc.assert(
      fc.property(foldArb, ([target, ranges]) => {
        expect(foldEnd(foldKey(target, ranges))).toBe(Math.max(...ranges.map(([, z]) => z)));
      }),
    );
  });

  it('one range with a small target is a number; a large target or more ranges the text', () => {
    expect(typeof foldKey(400, [[3, 60]])).toBe('number');
    expect(foldKey(20_000, [[3, 60]])).toBe('20000\u00003-60');
    expect(
      foldKey(400, [
        [0, 2],
        [5, 60],
      ]),
    ).toBe('400\u00000-2,5-60');
  });
});
