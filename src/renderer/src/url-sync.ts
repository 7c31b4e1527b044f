/**
 * Keeps the URL's hash in step with the store (session, policy, overrides, selected call) so a
 * reload or a shared link reopens the same call; the hash is written with replaceState (no
 * history entry per step).
 */
import { formatUrlState, parseUrlState, type UrlState } from './model/url-state';
import type { AppStore } from './store';

export function readUrlState(win: Window): UrlState {
  return parseUrlState(win.location.hash);
}

export function syncUrl(store: AppStore, win: Window): () => void {
  let last = '';
  return store.subscribe((s) => {
    if (!s.currentId) return;
    const hash = formatUrlState({ session: s.currentId, policy: s.chartFor?.policy ?? s.policyId, overrides: s.chartFor?.overrides ?? s.overrides, step: s.selectedStep });
    if (hash === last) return;
    last = hash;
    win.history.replaceState(null, '', `${win.location.pathname}${win.location.search}${hash}`);
  });
}
