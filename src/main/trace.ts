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
