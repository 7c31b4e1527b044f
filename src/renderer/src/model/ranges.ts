/** Inclusive message ranges as one list: count, the n-th message, membership. Pure; unit-tested. */
import type { MessageRange } from '../../../core/replay/types';

export interface RangeList {
  readonly count: number;
  /** Message index of the n-th message of the list. */
  at(n: number): number;
}

export function rangeList(ranges: readonly MessageRange[]): RangeList {
  const starts: number[] = [];
  let count = 0;
  for (const [from, to] of ranges) {
    starts.push(count);
    count += Math.max(0, to - from + 1);
  }
  return {
    count,
    at(n) {
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if ((starts[mid] as number) <= n) lo = mid;
        else hi = mid - 1;
      }
      const r = ranges[lo] as MessageRange;
      return r[0] + (n - (starts[lo] as number));
    },
  };
}

export function inRanges(ranges: readonly MessageRange[], index: number): boolean {
  return ranges.some(([from, to]) => index >= from && index <= to);
}

export const rangeCount = (ranges: readonly MessageRange[]): number => ranges.reduce((n, [a, b]) => n + Math.max(0, b - a + 1), 0);

export const describeRanges = (ranges: readonly MessageRange[]): string =>
  ranges.length === 0 ? 'none' : ranges.map(([a, b]) => (a === b ? `#${a}` : `#${a}–${b}`)).join(', ');
