/**
 * Keeps the URL's hash in step with the store (session, policy, overrides, selected call) so a
 * reload or a shared link reopens the same call; the hash is written with replaceState (no
 * history entry per step).
 *
 * Written once after the frame that shows a change, when the page is next idle (at most 250 ms
 * later), not inside every store update: a new chart
 * would otherwise wait for replaceState (a synchronous navigation-state write, over a millisecond)
 * before React draws it, and holding ← down would write on every call (browsers throttle
 * replaceState called hundreds of times within seconds, and ignore the calls past the limit).
 */
import { afterPaintIdle } from './after-paint';
import { formatUrlState, parseUrlState, type UrlState } from './model/url-state';
import type { AppStore } from './store';

export function readUrlState(win: Window): UrlState {
  return parseUrlState(win.location.hash);
}

export function syncUrl(store: AppStore, win: Window, later: (fn: () => void) => void = (fn) => afterPaintIdle(fn)): () => void {
  let last = '';
  let queued = false;
  let stopped = false;
  const write = (): void => {
    queued = false;
    if (stopped) return;
    const s = store.getState();
    if (!s.currentId) return;
    const hash = formatUrlState({ session: s.currentId, policy: s.chartFor?.policy ?? s.policyId, overrides: s.chartFor?.overrides ?? s.overrides, step: s.selectedStep });
    if (hash === last) return;
    last = hash;
    win.history.replaceState(null, '', `${win.location.pathname}${win.location.search}${hash}`);
  };
  const unsubscribe = store.subscribe(() => {
    if (queued) return;
    queued = true;
    later(write);
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}
