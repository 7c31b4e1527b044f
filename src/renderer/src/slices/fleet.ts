/**
 * The Fleet view's state (docs/fleet.md §In the app): which sessions, policies and settings a run
 * takes, the run's progress, the datasets already written (listed by folder, reopened without
 * replaying) and the results of the one on screen — read through the queries of `ctxscope fleet
 * report`. A click on a row opens that session in the debugger under the row's policy.
 */
import type { ApiClient, EventPayload, FleetResults, FleetRunInfo } from '../../../shared/api';
import { createRequests, describe } from './request';
import type { DebuggerState } from './state';

export type FleetSource = 'library' | 'folder' | 'logs';

export interface FleetSlice {
  fleetOpen: boolean;
  fleetSource: FleetSource;
  /** Library session ids chosen. */
  fleetSessions: string[];
  /** Agent-log files chosen. */
  fleetLogFiles: string[];
  fleetFolder: string;
  fleetPolicies: string[];
  /** `key=value` lines, applied to every policy (as `--set`). */
  fleetSettings: string;
  fleetRun: { runId: string; out: string; total: number } | null;
  fleetProgress: EventPayload<'fleetProgress'> | null;
  fleetRuns: FleetRunInfo[];
  fleetResults: FleetResults | null;
  fleetLoading: boolean;
  fleetError: string | null;
  openFleet(): Promise<void>;
  closeFleet(): void;
  setFleet(
    patch: Partial<Pick<FleetSlice, 'fleetSource' | 'fleetSessions' | 'fleetLogFiles' | 'fleetFolder' | 'fleetPolicies' | 'fleetSettings'>>,
  ): void;
  startFleet(): Promise<void>;
  cancelFleet(): Promise<void>;
  refreshFleetRuns(): Promise<void>;
  openFleetResults(out: string): Promise<void>;
  /** Opens a row's session in the debugger under the row's policy. */
  openFleetRow(sourcePath: string, sessionId: string, policy: string): Promise<void>;
}

/** The slice's own state and the debugger's it reads (slices/state.ts). */
type State = FleetSlice & DebuggerState;
type Set = (partial: Partial<State>) => void;
type Get = () => State;

/** `key=value` lines as overrides: numbers and booleans as such, the rest as text. */
export function parseFleetSettings(text: string): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`settings line ${i + 1}: expected key=value, got "${line}"`);
    const key = line.slice(0, eq).trim();
    const v = line.slice(eq + 1).trim();
    out[key] = v === 'true' ? true : v === 'false' ? false : v !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  }
  return out;
}

export function createFleetSlice(api: ApiClient, set: Set, get: Get): FleetSlice {
  // A fleet run is not tied to the open session: its answers apply whatever is open; its failures go in the view.
  const requests = createRequests({ get: () => ({ currentId: null }), showError: (fleetError) => set({ fleetError }) });
  api.on('fleetProgress', (p) => {
    if (get().fleetRun?.runId === p.runId) set({ fleetProgress: p });
  });
  api.on('fleetDone', (p) => {
    if (get().fleetRun?.runId !== p.runId) return;
    set({ fleetRun: null, ...(p.error ? { fleetError: p.error } : {}) });
    void get().refreshFleetRuns();
    if (!p.error) void get().openFleetResults(p.out);
  });
  return {
    fleetOpen: false,
    fleetSource: 'library',
    fleetSessions: [],
    fleetLogFiles: [],
    fleetFolder: '',
    fleetPolicies: [],
    fleetSettings: '',
    fleetRun: null,
    fleetProgress: null,
    fleetRuns: [],
    fleetResults: null,
    fleetLoading: false,
    fleetError: null,
    async openFleet() {
      const s = get();
      const first = s.policies.slice(0, 3).map((p) => p.id);
      set({
        fleetOpen: true,
        ...(s.fleetPolicies.length === 0 ? { fleetPolicies: first } : {}),
        ...(s.fleetSessions.length === 0 ? { fleetSessions: s.sessions.map((x) => x.id) } : {}),
      });
      await get().refreshFleetRuns();
    },
    closeFleet() {
      set({ fleetOpen: false });
    },
    setFleet(patch) {
      set({ ...patch, fleetError: null });
    },
    async startFleet() {
      const s = get();
      let overrides;
      try {
        overrides = parseFleetSettings(s.fleetSettings);
      } catch (e) {
        set({ fleetError: describe(e) });
        return;
      }
      const input =
        s.fleetSource === 'library'
          ? { sessionIds: s.fleetSessions }
          : s.fleetSource === 'folder'
            ? { paths: [s.fleetFolder.trim()].filter(Boolean) }
            : { paths: s.fleetLogFiles };
      set({ fleetError: null, fleetProgress: null });
      await requests.send(() => api.startFleet({ ...input, policies: s.fleetPolicies, overrides }), {
        onAnswer: (run) =>
          set({
            fleetRun: run,
            fleetProgress: { runId: run.runId, done: 0, total: run.total, skipped: 0, errors: 0, rate: null, etaMs: null },
          }),
      });
    },
    async cancelFleet() {
      const run = get().fleetRun;
      if (run) await api.cancelFleet({ runId: run.runId });
    },
    async refreshFleetRuns() {
      await requests.send(() => api.listFleetRuns({}), { onAnswer: (fleetRuns) => set({ fleetRuns }) });
    },
    async openFleetResults(out) {
      set({ fleetLoading: true, fleetError: null });
      await requests.send(() => api.getFleetResults({ out }), {
        lane: 'results',
        onAnswer: (fleetResults) => set({ fleetResults }),
        onSettled: () => set({ fleetLoading: false }),
      });
    },
    async openFleetRow(sourcePath, sessionId, policy) {
      await requests.send(() => api.openFleetSession({ sourcePath, sessionId }), {
        onAnswer: async ({ sessionId: stored }) => {
          await get().refreshSessions();
          set({ fleetOpen: false });
          await get().openSession(stored, { policy });
        },
      });
    },
  };
}
