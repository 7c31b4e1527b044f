/**
 * toRanges / eachRun: message indices as runs of consecutive indices, checked against the plain
 * definition (sort, then extend the last run while the next index follows it) on random lists.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eachRun, toRanges } from '../../../src/core/strategies/util';

function runsByDefinition(xs: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const i of [...xs].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && i === last[1] + 1) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}

describe('toRanges and eachRun', () => {
  it('write runs of consecutive indices', () => {
    expect(toRanges([])).toEqual([]);
    expect(toRanges([3, 4, 5, 9, 11, 12])).toEqual([
      [3, 5],
      [9, 9],
      [11, 12],
    ]);
    // Unsorted input is sorted first; a repeated index starts a run of its own, as before.
    expect(toRanges([12, 3, 4, 11])).toEqual([
      [3, 4],
      [11, 12],
    ]);
    expect(toRanges([2, 2, 3])).toEqual([
      [2, 2],
      [2, 3],
    ]);
  });

  it('agree with the definition on any list, sorted or not', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 40 }), (xs) => {
        const runs: [number, number][] = [];
        eachRun(xs, (a, z) => runs.push([a, z]));
        expect(runs).toEqual(runsByDefinition(xs));
        expect(toRanges(xs)).toEqual(runs);
      }),
      { numRuns: 1000 },
    );
  });
});
