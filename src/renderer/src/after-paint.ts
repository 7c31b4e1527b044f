/**
 * Runs `fn` once the frame that shows the current DOM is drawn: a timeout queued from an animation
 * frame runs after that frame's paint. Work that can wait (the URL, the selected call's detail)
 * goes here so it does not delay a new chart's frame. A hidden page draws no frames, so a plain
 * timeout stands in after `fallbackMs`; where there are no frames at all (tests in Node), at once.
 */
export function afterPaint(fn: () => void, fallbackMs = 100): void {
  if (typeof requestAnimationFrame !== 'function') return fn();
  let done = false;
  const run = (): void => {
    if (done) return;
    done = true;
    fn();
  };
  requestAnimationFrame(() => setTimeout(run, 0));
  setTimeout(run, fallbackMs);
}

/**
 * Runs `fn` after the next paint, once the page is idle (requestIdleCallback), at most
 * `timeoutMs` after that paint. For work nobody waits for — the URL's hash — so that it neither
 * delays a new chart's frame nor queues ahead of the next input event of a drag (replaceState
 * is a synchronous write that took 1–6 ms a chart on a loaded machine).
 */
export function afterPaintIdle(fn: () => void, timeoutMs = 250): void {
  afterPaint(() => {
    if (typeof requestIdleCallback !== 'function') return fn();
    requestIdleCallback(() => fn(), { timeout: timeoutMs });
  });
}
