/**
 * Live tail in the window (docs/user-guide.md "Live tail"): the open session's source file is followed by
 * the host; when it grows, `sessionUpdated` arrives and the session detail, the loaded messages
 * and the chart are fetched again, keeping the selected call — or, with "follow" on, selecting
 * the last call. Switching sessions stops following the previous one.
 */
import type { StoreApi } from 'zustand/vanilla';
import type { ApiClient, EventPayload } from '../../../shared/api';
import { createRequests } from './request';
import type { DebuggerState } from './state';

export interface TailSlice {
  /** The session whose file the host follows (null: none, or the host cannot). */
  liveSession: string | null;
  /** Why the open session is not followed (its file is gone, …); null when it is. */
  liveError: string | null;
  /** Keep the last call selected as calls arrive. */
  following: boolean;
  /** Updates received for the open session (shown next to the toggle). */
  liveUpdates: number;
  setFollowing(on: boolean): void;
}

export interface TailHooks {
  /** Forgets cached step details: after an update the same chart key describes other calls. */
  readonly clearDetails: () => void;
}

/** The slice's own state and the debugger's it reads (slices/state.ts). */
type State = TailSlice & DebuggerState;
type Set = (partial: Partial<State>) => void;
type Get = () => State;

export function tailSlice(api: ApiClient, set: Set, get: Get, store: Pick<StoreApi<State>, 'subscribe'>, hooks: TailHooks): TailSlice {
  const requests = createRequests({ get, showError: (liveError) => set({ liveError }) });
  /** Follows the open session's file, and stops following the one before. */
  const follow = async (id: string | null, previous: string | null): Promise<void> => {
    if (previous) void api.watchSession({ sessionId: previous, on: false }).catch(() => undefined);
    set({ liveSession: null, liveError: null, liveUpdates: 0 });
    if (!id) return;
    await requests.send(() => api.watchSession({ sessionId: id, on: true }), {
      session: id,
      onAnswer: (r) => set({ liveSession: r.watching ? id : null }),
    });
  };

  const selectLast = (): void => {
    const n = get().chart?.stepCount ?? 0;
    if (n > 0 && get().selectedStep !== n - 1) get().selectStep(n - 1);
  };

  const updated = async (p: EventPayload<'sessionUpdated'>): Promise<void> => {
    void get().refreshSessions();
    if (p.sessionId !== get().currentId) return;
    hooks.clearDetails();
    // A rewritten file may have fewer messages: pages are fetched again as they come into view.
    if (p.rewritten) set({ messages: new Map() });
    set({ liveUpdates: get().liveUpdates + 1 });
    // Detail, loaded pages and chart, keeping the selection (clamped to the calls there are);
    // when following, the new chart selects its last call (below).
    await get().refreshCounts();
  };

  api.on('sessionUpdated', (p) => void updated(p));
  store.subscribe((s, prev) => {
    if (s.currentId !== prev.currentId) void follow(s.currentId, prev.currentId);
    // Set as the chart arrives, before its step detail is asked for: the detail asked is the last call's.
    else if (s.following && s.chart !== prev.chart && s.chart) selectLast();
  });

  return {
    liveSession: null,
    liveError: null,
    following: false,
    liveUpdates: 0,
    setFollowing(on) {
      set({ following: on });
      if (on) selectLast();
    },
  };
}
