/**
 * `CTXSCOPE_TRACE=1`: one line per API call, replay and chart view on stderr, with its time — where
 * a slow slider move spends it (HTTP handler, replay worker, the replay, the chart's reduction),
 * without a profiler. Off by default; nothing is measured when it is off.
 */
const on = process.env.CTXSCOPE_TRACE === '1';

/** Starts a timer; the returned function prints `label` and the milliseconds since (a no-op when tracing is off). */
export function traceSpan(label: string): (detail?: string) => void {
  if (!on) return noop;
  const t0 = performance.now();
  return (detail) => process.stderr.write(`[trace] ${label}${detail ? ` ${detail}` : ''} ${(performance.now() - t0).toFixed(1)} ms\n`);
}

const noop = (): void => {};

/**
 * `CTXSCOPE_TRACE_HEAP=1`: this thread's V8 heap and its ArrayBuffers (typed arrays, Buffers) on
 * stderr every second, with the highest seen — which thread of a process holds its memory (RSS is
 * the process's: the host, the replay, count and import workers together). Off by default.
 */
export function traceHeap(thread: string): void {
  if (process.env.CTXSCOPE_TRACE_HEAP !== '1') return;
  let peak = 0;
  const mb = (n: number): string => (n / 1e6).toFixed(0);
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    const used = m.heapUsed + m.arrayBuffers;
    peak = Math.max(peak, used);
    process.stderr.write(
      `[heap] ${thread} heap ${mb(m.heapUsed)} MB, buffers ${mb(m.arrayBuffers)} MB, peak ${mb(peak)} MB, rss ${mb(m.rss)} MB\n`,
    );
  }, 1000);
  timer.unref();
}
