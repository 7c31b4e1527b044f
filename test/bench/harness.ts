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

/**
 * The longest gap (ms) between ticks of a 1 ms interval while `fn` runs: how long a request
 * arriving meanwhile would wait. (perf_hooks' monitorEventLoopDelay reports ~5 ms across a 1 s
 * synchronous block, so it is not used.)
 */
export async function longestBlockMs(fn: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let gap = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  await fn();
  // One more turn, so a block that ends the run is counted too.
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(tick);
  return Math.max(gap, performance.now() - last);
}
