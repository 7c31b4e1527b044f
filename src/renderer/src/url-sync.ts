/**
 * Keeps the URL's hash in step with the store (session, policy, overrides, selected call) so a
 * reload or a shared link reopens the same call, and the browser's Back and Forward walk the
 * sessions and calls a person visited.
 *
 * A new session, or a call selected after a pause (PUSH_AFTER_MS since the last entry), pushes a
 * history entry; a burst of steps (holding ←, playing) and a policy or setting change replace the
 * current one, so Back goes to the call the person stopped at, not through every call on the way
 * (browsers also throttle history writes called hundreds of times within seconds). Back / Forward
 * (popstate) read the hash and open its session and call.
 *
 * Written once after the frame that shows a change, when the page is next idle (at most 250 ms
 * later), not inside every store update: a new chart would otherwise wait for the history write (a
 * synchronous navigation-state write, over a millisecond) before React draws it.
 */
import { afterPaintIdle } from './after-paint';
import { formatUrlState, parseUrlState, type UrlState } from './model/url-state';
import type { AppStore } from './store';

/** A call selected this long after the last history entry is a place of its own to go back to. */
export const PUSH_AFTER_MS = 800;

export function readUrlState(win: Window): UrlState {
  return parseUrlState(win.location.hash);
}

export function syncUrl(
  store: AppStore,
  win: Window,
  later: (fn: () => void) => void = (fn) => afterPaintIdle(fn),
  now: () => number = () => Date.now(),
): () => void {
  let last = '';
  let lastState: UrlState | null = null;
  let lastEntryAt = -Infinity;
  let queued = false;
  let stopped = false;
  const write = (): void => {
    queued = false;
    if (stopped) return;
    const s = store.getState();
    if (!s.currentId) return;
    const state: UrlState = {
      session: s.currentId,
      policy: s.chartFor?.policy ?? s.policyId,
      overrides: s.chartFor?.overrides ?? s.overrides,
      step: s.selectedStep,
    };
    const hash = formatUrlState(state);
    if (hash === last) return;
    const url = `${win.location.pathname}${win.location.search}${hash}`;
    const t = now();
    // The first write names where the page opened (replace); a session, or a call after a pause, is a new entry.
    const push =
      lastState !== null &&
      (state.session !== lastState.session ||
        (state.step !== lastState.step && state.step !== null && lastState.step !== null && t - lastEntryAt >= PUSH_AFTER_MS));
    if (push && typeof win.history.pushState === 'function') {
      win.history.pushState(null, '', url);
    } else win.history.replaceState(null, '', url);
    if (push || lastState === null || state.step !== lastState.step) lastEntryAt = t;
    last = hash;
    lastState = state;
  };
  const unsubscribe = store.subscribe(() => {
    if (queued) return;
    queued = true;
    later(write);
  });
  // Back / Forward: the hash names a session and a call visited before; open them (no new entry).
  const onPop = (): void => {
    const to = readUrlState(win);
    last = win.location.hash;
    lastState = to;
    lastEntryAt = now();
    const s = store.getState();
    if (to.session && to.session !== s.currentId) void s.openSession(to.session, to);
    else if (to.step !== null && to.step !== s.selectedStep) s.selectStep(to.step);
  };
  if (typeof win.addEventListener === 'function') win.addEventListener('popstate', onPop);
  return () => {
    stopped = true;
    unsubscribe();
    if (typeof win.removeEventListener === 'function') win.removeEventListener('popstate', onPop);
  };
}
