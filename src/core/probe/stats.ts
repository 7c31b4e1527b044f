/**
 * Sampling arithmetic of the probe (docs/probe.md §Sampling): a rate of k successes in n replicates
 * with its Wilson score interval at 95%, and a verdict only where the two contexts' intervals do
 * not overlap. Repeated runs of one prompt differ (even at temperature 0), so a single answer
 * proves nothing and an overlap is "inconclusive", never a difference.
 */

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** z for a two-sided 95% interval. */
const Z = 1.959963984540054;

/** Wilson score interval of k successes in n trials (n = 0: the whole [0, 1]). */
export function wilson(k: number, n: number, z = Z): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export type Verdict = 'policy-worse' | 'policy-better' | 'inconclusive';

/** (a) = the original request, (b) = the request under the policy. */
export function verdict(original: { k: number; n: number }, policy: { k: number; n: number }): Verdict {
  const a = wilson(original.k, original.n);
  const b = wilson(policy.k, policy.n);
  if (b.high < a.low) return 'policy-worse';
  if (b.low > a.high) return 'policy-better';
  return 'inconclusive';
}
