/**
 * The call a recorded compaction precedes (core/replay/compaction-check.ts `firstCallFrom`), found by
 * binary search: the first call whose message is at or after the compaction's, as a scan from call
 * 0 finds it — for any increasing list of call messages and any message index, before, among and
 * after them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstCallFrom } from '../../../src/core/replay/compaction-check';

const scan = (stepMsg: Uint32Array, at: number): number => {
  let j = 0;
  while (j < stepMsg.length && stepMsg[j]! < at) j++;
  return j;
};

describe('firstCallFrom', () => {
  it('finds the call a scan from call 0 finds', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 5_000 }), { maxLength: 300 }),
        fc.array(fc.integer({ min: -2, max: 5_010 }), { minLength: 1, maxLength: 20 }),
        (messages, ats) => {
          const stepMsg = Uint32Array.from([...messages].sort((a, b) => a - b));
          for (const at of ats) expect(firstCallFrom(stepMsg, at)).toBe(scan(stepMsg, at));
          // Each call's own message gives that call.
          stepMsg.forEach((m, j) => expect(firstCallFrom(stepMsg, m)).toBe(j));
        },
      ),
    );
  });
});
