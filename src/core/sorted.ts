/** Searches in ascending number arrays (typed or not). */

/** The first index in the ascending `sorted` whose value is ≥ x: how many values are below x. */
export function lowerBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
