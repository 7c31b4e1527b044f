/**
 * The renderer's one zustand store, assembled from slices (src/renderer/src/slices/): the session
 * and its messages, the replay (chart view, selected call's detail, accuracy), the config panel,
 * the selection, playback and the comparison — their types in slices/state.ts — and the window's
 * other parts (export, library, imports, tuner, probe, live tail, dialogs, fleet). Actions live in
 * the store; components select small values. The store is a vanilla store made by a factory so
 * tests give it a fake client and fresh state.
 *
 * Every request a slice sends goes through one helper (slices/request.ts) that drops an answer
 * once its session is no longer open or a newer request of its kind was sent, and shows its error.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../../shared/api';
import { afterPaint as afterNextPaint } from './after-paint';
import { createExportSlice, type ExportSlice } from './slices/export';
import { createLibrarySlice, type LibrarySlice } from './slices/library';
import type { FileImporter } from './api/files';
import { createImportSlice, type ImportSlice } from './slices/imports';
import { createTunerSlice, type TunerSlice } from './slices/tuner';
import { createProbeSlice, type ProbeSlice } from './slices/probe';
import { tailSlice, type TailSlice } from './slices/tail';
import { createDialogsSlice, type DialogsSlice } from './slices/dialogs';
import { createFleetSlice, type FleetSlice } from './slices/fleet';
import { createRequests } from './slices/request';
import { createSessionSlice } from './slices/session';
import { createReplaySlice } from './slices/replay';
import { createConfigSlice, createLiveScheduler } from './slices/config';
import { createSelectionSlice } from './slices/selection';
import { createPlaybackSlice } from './slices/playback';
import { createCompareSlice } from './slices/compare';
import type { DebuggerHooks, DebuggerState, SliceContext } from './slices/state';

export { MESSAGE_PAGE } from './slices/session';
export type { CompareSlice, ConfigSlice, PlaybackSlice, ReplayInputs, ReplaySlice, SelectionSlice, SessionSlice } from './slices/state';

export type AppState = DebuggerState &
  ExportSlice &
  LibrarySlice &
  ImportSlice &
  TunerSlice &
  TailSlice &
  DialogsSlice &
  FleetSlice &
  ProbeSlice;
export type AppStore = StoreApi<AppState>;

export interface StoreOptions {
  /** Debounce of live (dragged) config changes, ms. */
  debounceMs?: number;
  /** Timers, replaceable in tests. */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  /** Runs a function once the frame showing the last store change is drawn (tests: at once). */
  afterPaint?: (fn: () => void) => void;
  /** How files chosen in the page reach the host (src/renderer/src/api/files.ts); none: the page takes no files. */
  files?: FileImporter | null;
}

export function createAppStore(api: ApiClient, options: StoreOptions = {}): AppStore {
  // Short: a replay a newer move supersedes is stopped on the host (not run to its end), so the
  // debounce only has to coalesce the events of one drag, not protect the worker from a queue.
  const debounceMs = options.debounceMs ?? 40;
  const timers = {
    setTimer: options.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms)),
    clearTimer: options.clearTimer ?? ((h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>)),
  };
  const afterPaint = options.afterPaint ?? afterNextPaint;

  return createStore<AppState>()((set, get, store) => {
    // Filled below once the slices that provide them exist; slices call them only later, from actions.
    const hooks = {} as DebuggerHooks;
    const ctx: SliceContext = { api, set, get, requests: createRequests({ get, showError: (error) => set({ error }) }), hooks, timers };
    const live = createLiveScheduler(
      () => {
        void get().requestChart();
        void get().loadFields();
      },
      debounceMs,
      timers,
    );
    const replay = createReplaySlice(ctx, afterPaint);
    Object.assign(hooks, replay.internals, { scheduleLive: () => live.schedule() } satisfies Pick<DebuggerHooks, 'scheduleLive'>);

    return {
      ...createExportSlice(api, set, get),
      ...createLibrarySlice(api, set, get),
      ...createImportSlice(api, options.files ?? null, set, get),
      ...createTunerSlice(api, set, get),
      ...createProbeSlice(api, set, get),
      ...tailSlice(api, set, get, store, { clearDetails: () => hooks.clearDetails() }),
      ...createDialogsSlice(set, get),
      ...createFleetSlice(api, set, get),
      ...createSessionSlice(ctx),
      ...replay.slice,
      ...createConfigSlice(ctx, live),
      ...createSelectionSlice(ctx),
      ...createPlaybackSlice(ctx),
      ...createCompareSlice(ctx),
    };
  });
}
