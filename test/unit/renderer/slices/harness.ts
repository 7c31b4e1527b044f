/**
 * One debugger slice on its own: a plain state object, spies for the hooks the other slices
 * provide, timers the test runs by hand, and the request helper over that state.
 */
import { vi } from 'vitest';
import type { ApiClient } from '../../../../src/shared/api';
import { createRequests } from '../../../../src/renderer/src/slices/request';
import type { DebuggerState, SliceContext } from '../../../../src/renderer/src/slices/state';

export function sliceHarness(api: Partial<Record<keyof ApiClient, unknown>> = {}, initial: Partial<DebuggerState> = {}) {
  let state = { currentId: null, error: null, ...initial } as DebuggerState;
  const set = (partial: Partial<DebuggerState>): void => {
    state = { ...state, ...partial };
  };
  const get = (): DebuggerState => state;
  const timers: { fn: () => void; ms: number }[] = [];
  const hooks = {
    requestStepDetail: vi.fn(async () => undefined),
    clearDetails: vi.fn(),
    steppedTowards: vi.fn(),
    scheduleLive: vi.fn(),
  };
  const ctx: SliceContext = {
    api: api as unknown as ApiClient,
    set,
    get,
    requests: createRequests({ get, showError: (error) => set({ error }) }),
    hooks,
    timers: {
      setTimer: (fn, ms) => timers.push({ fn, ms }),
      clearTimer: () => void timers.splice(0),
    },
  };
  return {
    ctx,
    hooks,
    timers,
    /** Puts a slice's state and actions into the shared state (as the store does). */
    install<T extends object>(slice: T): T {
      set(slice as Partial<DebuggerState>);
      return slice;
    },
    state: (): DebuggerState => state,
    /** Runs the timers set so far (each may set the next). */
    runTimers(): void {
      for (const t of timers.splice(0)) t.fn();
    },
  };
}
