/**
 * Benchmark harness: each `test/bench/*.bench.ts` exports `suite: BenchSuite`. `npm run bench`
 * runs them all (or those named on the command line), prints one table and writes
 * `bench-results/bench.json`. Timings live here, never in unit tests.
 */
export interface BenchRow {
  /** What was measured, e.g. "import claude-code 100 MB". */
  readonly name: string;
  /** The measured figure. */
  readonly value: number;
  readonly unit: string;
  /** The issue's target, when it has one, as text ("≥ 50% of bare pass"). */
  readonly target?: string;
  /** Whether the target is met; undefined when there is no target. */
  readonly pass?: boolean;
  readonly note?: string;
}

export interface BenchSuite {
  readonly name: string;
  run(): Promise<BenchRow[]>;
}

/** Times `fn` once and returns milliseconds. */
export async function timeMs(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Best of `n` runs (after one warm-up), in milliseconds: the least noisy figure on a shared machine. */
export async function bestOfMs(n: number, fn: () => unknown): Promise<number> {
  await fn();
  let best = Infinity;
  for (let i = 0; i < n; i++) best = Math.min(best, await timeMs(fn));
  return best;
}
