/**
 * WindowState keeps its last historyTokens answer until the window changes (window.ts): after
 * every kind of change — the live start, the kept-before list, a reduction, a copy for a grown
 * session — the answer is the sum worked out from scratch.
 */
import { describe, expect, it } from 'vitest';
import { WindowState } from '../../../src/core/replay/window';

const perMessage = Uint32Array.from({ length: 40 }, (_, i) => 10 + ((i * 7) % 13));
const prefix = new Float64Array(perMessage.length + 1);
for (let i = 0; i < perMessage.length; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;

/** The history before `end` summed message by message. */
function bySum(w: WindowState, end: number): number {
  let t = 0;
  for (const i of w.keepBefore) t += perMessage[i]! - w.reduced[i]!;
  for (let i = w.from; i < end; i++) t += perMessage[i]! - w.reduced[i]!;
  return t;
}

describe('WindowState.historyTokens', () => {
  it('answers the sum after each change, asked again and again between them', () => {
    const w = new WindowState(perMessage, prefix);
    const check = (end: number): void => {
      expect(w.historyTokens(end)).toBe(bySum(w, end));
      expect(w.historyTokens(end)).toBe(bySum(w, end));
    };
    check(30);
    w.from = 12;
    check(30);
    w.keepBefore = [0, 1];
    check(30);
    check(31);
    w.reduceTo(20, 1);
    check(31);
    // No change: a reduction above the current size does nothing.
    w.reduceTo(20, 500);
    check(31);
    w.keepBefore = [0];
    check(31);
    const g = w.grownTo(perMessage, prefix)!;
    expect(g.historyTokens(31)).toBe(bySum(w, 31));
    g.from = 25;
    expect(g.historyTokens(31)).toBe(bySum(g, 31));
    // The copy's changes are its own.
    check(31);
  });
});
