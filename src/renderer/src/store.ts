/**
 * The renderer's one zustand store, made of slices: the session and its messages, the replay
 * (chart view, selected call's detail, accuracy), the config panel, the selection, playback and
 * the comparison. Actions live in the store; components select small values. The store is a
 * vanilla store made by a factory so tests give it a fake client and fresh state.
 *
 * One selection drives the window (docs/architecture.md): `selectedStep` is the only "where am I"; a
 * message click, an event click, the chart, the timeline and the keys all go through
 * `selectStep`, and the export dialog, the guard status, the context view and the URL read it.
 *
 * Answers from the host can arrive out of order: every chart / step-detail request takes a
 * sequence number and its answer is applied only while it is still the latest, so an older
 * replay never overwrites a newer one (the host also cancels superseded requests by channel).
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  ApiError,
  type AccuracyView,
  type ApiClient,
  type AppInfo,
  type ChartView,
  type CompareView,
  type ConfigField,
  type ExportResult,
  type MessageView,
  type PolicyInfo,
  type SessionDetail,
  type SessionSummary,
  type StepDetail,
} from '../../shared/api';
import { chartViewFromWire } from '../../shared/marker-columns';
import { afterPaint as afterNextPaint } from './after-paint';
import { clampStep, compressionSteps, nextCompression, stepAtOrAfter } from './model/selection';
import { fieldProblem, guessFieldKey, withOverrides, type Override } from './model/config';
import type { UrlState } from './model/url-state';
import { createExportSlice, type ExportSlice } from './slices/export';
import { createLibrarySlice, type LibrarySlice } from './slices/library';
import type { FileImporter } from './api/files';
import { createImportSlice, type ImportSlice } from './slices/imports';
import { createTunerSlice, type TunerSlice } from './slices/tuner';
import { createProbeSlice, type ProbeSlice } from './slices/probe';
import { tailSlice, type TailSlice } from './slices/tail';
import { createDialogsSlice, type DialogsSlice } from './slices/dialogs';
import { createFleetSlice, type FleetSlice } from './slices/fleet';

/** Messages are fetched in pages of this size as lists scroll. */
export const MESSAGE_PAGE = 200;
/** Step details kept for instant back-and-forth stepping. */
const DETAIL_CACHE = 256;

/** The inputs a chart (and the step details that go with it) was computed from. */
export interface ReplayInputs {
  readonly sessionId: string;
  readonly policy: string;
  readonly overrides: Readonly<Record<string, Override>>;
  readonly needles: readonly string[];
}

export interface SessionSlice {
  info: AppInfo | null;
  sessions: SessionSummary[];
  currentId: string | null;
  detail: SessionDetail | null;
  /** Sparse: index → message, filled page by page. */
  messages: Map<number, MessageView>;
  loadingPages: Set<number>;
  /** The raw source record of a message, once asked for. */
  rawRecord: { index: number; record: string | null; line: number | null } | null;
  error: string | null;
  importing: string | null;
  init(from?: UrlState): Promise<void>;
  openSession(id: string, from?: Partial<UrlState>): Promise<void>;
  ensureMessages(from: number, to: number): Promise<void>;
  loadRawRecord(index: number): Promise<void>;
  refreshSessions(): Promise<void>;
  /** Exact counts arrived: refetch what shows them, keeping what is on screen until then. */
  refreshCounts(): Promise<void>;
  openFiles(): Promise<void>;
  /** Pins or unpins a message (kept by every strategy) and replays again. */
  setPinned(index: number, pinned: boolean): Promise<void>;
  clearError(): void;
}

export interface ReplaySlice {
  policies: PolicyInfo[];
  policyId: string | null;
  /** `--set`-style overrides on top of the policy (dotted config key → value), as the chart on screen used them. */
  overrides: Record<string, Override>;
  needles: string[];
  /** The last good chart: an invalid value or a failed replay never blanks it. */
  chart: ChartView | null;
  chartFor: ReplayInputs | null;
  chartError: string | null;
  chartLoading: boolean;
  /** Pixel columns of the chart: the host reduces the replay to this many buckets. */
  buckets: number;
  stepDetail: StepDetail | null;
  stepDetailError: string | null;
  accuracy: AccuracyView | null;
  accuracyError: string | null;
  /** Asks for the chart; `after`: the chart is shown only once that settles (the detail it must agree with). */
  requestChart(after?: Promise<unknown>): Promise<void>;
  setBuckets(n: number): void;
  setNeedles(needles: string[]): Promise<void>;
  loadAccuracy(): Promise<void>;
}

export interface ConfigSlice {
  fields: ConfigField[];
  fieldsError: string | null;
  /** A value the host or the field's range rejected: shown on its field, never applied. */
  invalid: { key: string | null; value: Override | null; message: string } | null;
  /** Overrides the last policy switch dropped because the new policy has no such setting. */
  droppedOverrides: string[];
  setPolicy(id: string): Promise<void>;
  /** Sets (or clears, with null) one override; `live`: a slider being dragged (the first move replays at once, the rest debounced). */
  setOverride(key: string, value: Override | null, live?: boolean): Promise<void>;
  /**
   * Sends a live change's leading replay now instead of at the end of the task. A slider's input
   * event calls it after its one setOverride: React re-renders a controlled input's window before
   * the event returns, ahead of any microtask, and the request waited those milliseconds for it.
   */
  flushLive(): void;
  resetOverrides(): Promise<void>;
  /** Saves the policy with the overrides in force under a new name; resolves to an error or null. */
  savePolicyAs(name: string): Promise<string | null>;
  loadFields(): Promise<void>;
  savePolicy(json: string): Promise<string | null>;
  deletePolicy(id: string): Promise<void>;
  exportPolicy(id: string): Promise<ExportResult | null>;
  refreshPolicies(): Promise<void>;
}

export interface SelectionSlice {
  /** THE selected call; every panel derives from it. */
  selectedStep: number | null;
  /** The message shown in full: the one clicked, else the selected call's own message. */
  inspectedMessage: number | null;
  selectStep(step: number | null, opts?: { message?: number }): void;
  /** Selects the call at or after the message (the first call that sees it) and shows the message. */
  selectMessage(index: number): void;
  stepBy(delta: number): void;
  stepToEnd(end: 'first' | 'last'): void;
  jumpCompression(dir: 1 | -1): void;
}

export interface PlaybackSlice {
  playing: boolean;
  /** Calls per second while playing. */
  speed: number;
  togglePlay(): void;
  setSpeed(callsPerSecond: number): void;
}

export interface CompareSlice {
  comparePolicyId: string | null;
  /** Both sides get the user's overrides unless the user unticks it. */
  compareWithOverrides: boolean;
  minDelta: number;
  comparison: CompareView | null;
  setComparePolicy(id: string | null): Promise<void>;
  setCompareWithOverrides(on: boolean): Promise<void>;
  setMinDelta(n: number): Promise<void>;
  runCompare(): Promise<void>;
}

export type AppState = SessionSlice &
  ReplaySlice &
  ConfigSlice &
  SelectionSlice &
  PlaybackSlice &
  CompareSlice &
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

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

const codeOf = (e: unknown): string | null => (e instanceof ApiError ? e.code : null);

export function createAppStore(api: ApiClient, options: StoreOptions = {}): AppStore {
  // Short: a replay a newer move supersedes is stopped on the host (not run to its end), so the
  // debounce only has to coalesce the events of one drag, not protect the worker from a queue.
  const debounceMs = options.debounceMs ?? 40;
  const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  const afterPaint = options.afterPaint ?? afterNextPaint;
  let listening = false;
  let chartSeq = 0;
  let stepSeq = 0;
  let compareSeq = 0;
  let fieldsSeq = 0;
  let liveTimer: unknown = null;
  let liveLeading = false;
  let livePending = false;
  let playTimer: unknown = null;
  const detailCache = new Map<string, StepDetail>();
  /** The detail being fetched ahead (prefetchAhead), and the way the selection last moved (+1 / -1). */
  let ahead: { readonly cacheKey: string; readonly promise: Promise<StepDetail> } | null = null;
  let lastDirection = 1;

  return createStore<AppState>()((set, get, store) => {
    const inputs = (): ReplayInputs | null => {
      const { currentId, policyId, overrides, needles } = get();
      return currentId && policyId ? { sessionId: currentId, policy: policyId, overrides, needles } : null;
    };

    /** Keeps a call's detail for the chart it was asked under (the oldest goes first). */
    const remember = (cacheKey: string, d: StepDetail): void => {
      if (detailCache.size >= DETAIL_CACHE) detailCache.delete(detailCache.keys().next().value as string);
      detailCache.set(cacheKey, d);
    };

    /**
     * The next call's detail, asked for while the user reads this one: stepping on (→, or ← after a
     * step back, and playback) then shows it from the cache in a frame, instead of waiting for a
     * round trip to the host at every step. One at a time, on its own channel (a newer one
     * supersedes it); its answer only fills the cache.
     */
    const prefetchAhead = (chart: ChartView, chartFor: ReplayInputs, step: number): void => {
      const next = step + lastDirection;
      const cacheKey = `${chart.key}#${next}`;
      if (next < 0 || next >= chart.stepCount || detailCache.has(cacheKey) || ahead?.cacheKey === cacheKey) return;
      const promise = api.getStepDetail({
        ...chartFor,
        overrides: { ...chartFor.overrides },
        needles: [...chartFor.needles],
        step: next,
        channel: 'step-ahead',
      });
      const mine = { cacheKey, promise };
      ahead = mine;
      promise
        .then(
          (d) => remember(cacheKey, d),
          () => undefined,
        )
        .finally(() => {
          if (ahead === mine) ahead = null;
        });
    };

    const requestStepDetail = async (): Promise<void> => {
      const { chart, chartFor, selectedStep } = get();
      if (!chart || !chartFor || selectedStep === null) return set({ stepDetail: null });
      const cacheKey = `${chart.key}#${selectedStep}`;
      const cached = detailCache.get(cacheKey);
      const seq = ++stepSeq;
      if (cached) {
        set({ stepDetail: cached, stepDetailError: null });
        prefetchAhead(chart, chartFor, selectedStep);
        return;
      }
      try {
        // The call asked for ahead of time, still on its way: its answer, not a second request.
        let d: StepDetail | null = null;
        if (ahead?.cacheKey === cacheKey) d = await ahead.promise.catch(() => null);
        d ??= await api.getStepDetail({
          ...chartFor,
          overrides: { ...chartFor.overrides },
          needles: [...chartFor.needles],
          step: selectedStep,
          channel: 'step',
        });
        remember(cacheKey, d);
        if (seq === stepSeq) {
          set({ stepDetail: d, stepDetailError: null });
          prefetchAhead(chart, chartFor, selectedStep);
        }
      } catch (e) {
        if (seq !== stepSeq || codeOf(e) === 'cancelled') return;
        set({ stepDetailError: describe(e) });
      }
    };

    const fireLive = (): void => {
      void get().requestChart();
      void get().loadFields();
    };
    /**
     * A dragged setting: its first move replays at once (at the end of this task, so keys set
     * together — a tuner point — go in one replay), and the moves that follow, each within
     * `debounceMs` of the last, in one replay after them. Waiting out the debounce before the first
     * replay cost every slider move 40 ms of the 150 it may take.
     */
    const scheduleLive = (): void => {
      if (liveTimer === null) {
        if (!liveLeading) {
          liveLeading = true;
          queueMicrotask(() => {
            // flushLive sent it already.
            if (!liveLeading) return;
            liveLeading = false;
            fireLive();
          });
        }
      } else {
        clearTimer(liveTimer);
        // A move before the leading replay has gone is part of it.
        if (!liveLeading) livePending = true;
      }
      liveTimer = setTimer(() => {
        liveTimer = null;
        if (!livePending) return;
        livePending = false;
        fireLive();
      }, debounceMs);
    };

    const stopPlaying = (): void => {
      if (playTimer !== null) clearTimer(playTimer);
      playTimer = null;
      if (get().playing) set({ playing: false });
    };

    return {
      ...createExportSlice(api, set, get),
      ...createLibrarySlice(api, set, get),
      ...createImportSlice(api, options.files ?? null, set, get),
      ...createTunerSlice(api, set, get),
      ...createProbeSlice(api, set, get),
      ...tailSlice(api, set, get, store, { clearDetails: () => detailCache.clear() }),
      ...createDialogsSlice(set, get),
      ...createFleetSlice(api, set, get),
      // ── session ────────────────────────────────────────────────────────────
      info: null,
      sessions: [],
      currentId: null,
      detail: null,
      messages: new Map(),
      loadingPages: new Set(),
      rawRecord: null,
      error: null,
      importing: null,

      async init(from) {
        // Imports started from this window (Open…) end here: refresh the list and open the result.
        if (!listening) {
          listening = true;
          api.on('importDone', (p) => {
            if (p.jobId !== get().importing) return;
            set({ importing: null });
            // Opened progressively and on screen already: its last chart (no longer partial) is fetched again.
            if (p.sessionIds[0] !== undefined && p.sessionIds[0] === get().currentId) {
              void get().refreshSessions();
              void get().refreshCounts();
              return;
            }
            // A new import clears the library's search (it would hide the new session) and is selected.
            if (p.sessionIds[0]) set({ libraryQuery: '' });
            void get()
              .refreshSessions()
              .then(() => (p.sessionIds[0] ? get().openSession(p.sessionIds[0]) : undefined));
          });
          api.on('countsReady', (p) => {
            if (p.sessionId === get().currentId) void get().refreshCounts();
          });
          api.on('importFailed', (p) => {
            if (p.jobId !== get().importing) return;
            // The import slice's error panel shows why (file, line, what was expected).
            set({ importing: null });
          });
        }
        try {
          const [info, sessions, policies] = await Promise.all([api.getInfo({}), api.listSessions({}), api.listPolicies({})]);
          // The host's notices (a corrupt database moved aside and a fresh one started) are shown at once.
          set({ info, sessions, policies, ...(info.notices && info.notices.length > 0 ? { error: info.notices.join(' ') } : {}) });
          const wanted = from?.session && sessions.some((s) => s.id === from.session) ? from.session : null;
          const first = wanted ?? info.initialSessionId ?? sessions[0]?.id ?? null;
          if (first) await get().openSession(first, first === wanted ? from : undefined);
        } catch (e) {
          set({ error: describe(e) });
        }
      },

      async openSession(id, from) {
        stopPlaying();
        chartSeq++;
        stepSeq++;
        set({
          currentId: id,
          detail: null,
          messages: new Map(),
          loadingPages: new Set(),
          chart: null,
          chartFor: null,
          chartError: null,
          stepDetail: null,
          comparison: null,
          accuracy: null,
          accuracyError: null,
          selectedStep: null,
          inspectedMessage: null,
          invalid: null,
          droppedOverrides: [],
        });
        try {
          const detail = await api.getSession({ id });
          if (get().currentId !== id) return;
          // Sessions open on the policy of the agent that wrote them (or the one the URL names).
          const policies = get().policies;
          const policy =
            [from?.policy, detail.defaultPolicy, get().policyId, policies[0]?.id].find(
              (p): p is string => !!p && policies.some((x) => x.id === p),
            ) ?? null;
          set({ detail, policyId: policy, overrides: from?.overrides ? { ...from.overrides } : {}, selectedStep: from?.step ?? null });
          // Stored probe runs: the chart marks their calls (ProbePanel.tsx).
          void get().loadProbes();
          await Promise.all([
            get().ensureMessages(0, Math.min(MESSAGE_PAGE, detail.summary.messages) - 1),
            get().requestChart(),
            get().loadFields(),
          ]);
        } catch (e) {
          set({ error: describe(e) });
        }
      },

      async ensureMessages(from, to) {
        const { currentId, detail } = get();
        if (!currentId || !detail || to < from) return;
        const total = detail.summary.messages;
        const pages: number[] = [];
        for (let p = Math.floor(Math.max(0, from) / MESSAGE_PAGE); p <= Math.floor(Math.min(to, total - 1) / MESSAGE_PAGE); p++) {
          if (!get().loadingPages.has(p) && !get().messages.has(p * MESSAGE_PAGE)) pages.push(p);
        }
        if (pages.length === 0) return;
        set({ loadingPages: new Set([...get().loadingPages, ...pages]) });
        try {
          const results = await Promise.all(
            pages.map((p) => api.getMessages({ sessionId: currentId, offset: p * MESSAGE_PAGE, limit: MESSAGE_PAGE })),
          );
          if (get().currentId !== currentId) return;
          const messages = new Map(get().messages);
          for (const r of results) for (const m of r.messages) messages.set(m.index, m);
          set({ messages });
        } catch (e) {
          set({ error: describe(e) });
        } finally {
          const loading = new Set(get().loadingPages);
          for (const p of pages) loading.delete(p);
          set({ loadingPages: loading });
        }
      },

      async loadRawRecord(index) {
        const { currentId } = get();
        if (!currentId) return;
        try {
          const r = await api.getRawRecord({ sessionId: currentId, index });
          if (get().currentId === currentId) set({ rawRecord: { index, ...r } });
        } catch (e) {
          set({ error: describe(e) });
        }
      },

      async refreshSessions() {
        try {
          set({ sessions: await api.listSessions({}) });
        } catch (e) {
          set({ error: describe(e) });
        }
      },

      async refreshCounts() {
        const id = get().currentId;
        if (!id) return;
        try {
          // The chart on the new counts (or calls) is asked for at once, beside the detail and the
          // visible pages, and shown once they are: the header, the list and the chart never
          // disagree on how many calls there are.
          const rows = async (): Promise<void> => {
            const detail = await api.getSession({ id });
            const pages = [...new Set([...get().messages.keys()].map((i) => Math.floor(i / MESSAGE_PAGE)))];
            const results = await Promise.all(
              pages.map((pg) => api.getMessages({ sessionId: id, offset: pg * MESSAGE_PAGE, limit: MESSAGE_PAGE })),
            );
            if (get().currentId !== id) return;
            const messages = new Map(get().messages);
            for (const r of results) for (const m of r.messages) messages.set(m.index, m);
            set({ detail, messages });
          };
          const rowsDone = rows();
          await Promise.all([rowsDone, get().requestChart(rowsDone.catch(() => undefined))]);
        } catch (e) {
          set({ error: describe(e) });
        }
      },

      async openFiles() {
        try {
          const { jobId } = await api.pickAndImport({});
          if (jobId) set({ importing: jobId });
        } catch (e) {
          set({ error: describe(e) });
        }
      },

      async setPinned(index, pinned) {
        const { currentId } = get();
        const m = get().messages.get(index);
        if (!currentId || !m) return;
        try {
          await api.setPinned({ sessionId: currentId, messageId: m.id, pinned });
          const messages = new Map(get().messages);
          messages.set(index, { ...m, pinned });
          set({ messages });
          detailCache.clear();
          await get().requestChart();
        } catch (e) {
          set({ error: describe(e) });
        }
      },

      clearError() {
        set({ error: null });
      },

      // ── replay ─────────────────────────────────────────────────────────────
      policies: [],
      policyId: null,
      overrides: {},
      needles: [],
      chart: null,
      chartFor: null,
      chartError: null,
      chartLoading: false,
      buckets: 1200,
      stepDetail: null,
      stepDetailError: null,
      accuracy: null,
      accuracyError: null,

      async requestChart(after) {
        const req = inputs();
        if (!req) return;
        const seq = ++chartSeq;
        set({ chartLoading: true });
        try {
          const chart = chartViewFromWire(
            await api.getChartView({
              ...req,
              overrides: { ...req.overrides },
              needles: [...req.needles],
              buckets: get().buckets,
              channel: 'chart',
            }),
          );
          if (after) await after;
          if (seq !== chartSeq) return; // superseded: a newer request is on its way
          const step = get().selectedStep;
          const selectedStep = chart.stepCount === 0 ? null : clampStep(step ?? 0, chart.stepCount);
          const inspectedMessage =
            selectedStep === step && get().inspectedMessage !== null
              ? get().inspectedMessage
              : selectedStep === null
                ? null
                : (get().detail?.steps[selectedStep] ?? null);
          set({ chart, chartFor: req, chartError: null, chartLoading: false, invalid: null, selectedStep, inspectedMessage });
          // The chart is drawn before the selected call's detail (and a comparison) is asked for:
          // an answer that arrived first would be parsed and rendered ahead of the chart's frame.
          await new Promise<void>((done) => afterPaint(done));
          await Promise.all([requestStepDetail(), get().comparePolicyId ? get().runCompare() : undefined]);
        } catch (e) {
          if (seq !== chartSeq) return;
          set({ chartLoading: false });
          if (codeOf(e) === 'cancelled') return;
          const good = get().chartFor;
          if (codeOf(e) === 'bad_input' && good && good.sessionId === req.sessionId && good.policy === req.policy) {
            // The value is refused: mark it and go back to the overrides the chart on screen used.
            const key = guessFieldKey(describe(e), Object.keys(req.overrides));
            set({
              invalid: { key, value: key ? (req.overrides[key] ?? null) : null, message: describe(e) },
              overrides: { ...good.overrides },
            });
            return;
          }
          set({ chartError: describe(e) });
        }
      },

      setBuckets(n) {
        const buckets = Math.max(16, Math.min(8192, Math.round(n)));
        if (buckets === get().buckets) return;
        set({ buckets });
        if (get().chart) scheduleLive();
      },

      async setNeedles(needles) {
        set({ needles });
        await get().requestChart();
      },

      async loadAccuracy() {
        const { currentId } = get();
        if (!currentId) return;
        try {
          const accuracy = await api.getAccuracy({ sessionId: currentId });
          if (get().currentId === currentId) set({ accuracy, accuracyError: null });
        } catch (e) {
          if (get().currentId === currentId) set({ accuracyError: describe(e) });
        }
      },

      // ── config ─────────────────────────────────────────────────────────────
      fields: [],
      fieldsError: null,
      invalid: null,
      droppedOverrides: [],

      async loadFields() {
        const { policyId, overrides } = get();
        if (!policyId) return;
        const seq = ++fieldsSeq;
        try {
          const fields = await api.getConfigFields({ policy: policyId, overrides: { ...overrides } });
          if (seq === fieldsSeq) set({ fields, fieldsError: null });
        } catch (e) {
          if (seq === fieldsSeq && codeOf(e) !== 'bad_input') set({ fieldsError: describe(e) });
        }
      },

      async setPolicy(id) {
        const { overrides } = get();
        let kept: Record<string, Override> = { ...overrides };
        let dropped: string[] = [];
        if (Object.keys(overrides).length > 0) {
          try {
            // Keep the overrides the new policy still has a setting for, say which it has not.
            const fields = await api.getConfigFields({ policy: id, overrides: {} });
            const applies = new Set(fields.filter((f) => f.applies).map((f) => f.key));
            kept = Object.fromEntries(Object.entries(overrides).filter(([k]) => applies.has(k)));
            dropped = Object.keys(overrides).filter((k) => !applies.has(k));
          } catch {
            // Without the new policy's fields the host judges them: keep them all.
          }
        }
        set({ policyId: id, overrides: kept, droppedOverrides: dropped, invalid: null });
        await Promise.all([get().requestChart(), get().loadFields()]);
      },

      async setOverride(key, value, live = false) {
        const field = get().fields.find((f) => f.key === key);
        const problem = value === null ? null : fieldProblem(field, value);
        if (problem) {
          // Out of range: mark the field, send nothing, keep the chart on screen.
          set({ invalid: { key, value, message: problem } });
          return;
        }
        const overrides = { ...get().overrides };
        if (value === null || value === '') delete overrides[key];
        else overrides[key] = value;
        set({ overrides, invalid: get().invalid?.key === key ? null : get().invalid });
        if (live) return scheduleLive();
        await Promise.all([get().requestChart(), get().loadFields()]);
      },

      flushLive() {
        if (!liveLeading) return;
        liveLeading = false;
        fireLive();
      },

      async resetOverrides() {
        set({ overrides: {}, invalid: null, droppedOverrides: [] });
        await Promise.all([get().requestChart(), get().loadFields()]);
      },

      async savePolicyAs(name) {
        const { policies, policyId, overrides } = get();
        const base = policies.find((p) => p.id === policyId);
        const id = name
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '');
        if (!base || !id) return 'Give the policy a name (letters or digits).';
        const json = JSON.stringify({
          id,
          label: name.trim(),
          source: `${base.id} with changes`,
          description: `${base.label}, with ${
            Object.entries(overrides)
              .map(([k, v]) => `${k}=${String(v)}`)
              .join(', ') || 'no changes'
          }`,
          config: withOverrides(base.config, overrides),
        });
        const problem = await get().savePolicy(json);
        return problem;
      },

      async refreshPolicies() {
        try {
          set({ policies: await api.listPolicies({}) });
        } catch (e) {
          set({ error: describe(e) });
        }
      },

      async savePolicy(json) {
        try {
          const saved = await api.savePolicy({ json });
          await get().refreshPolicies();
          set({ overrides: {} });
          await get().setPolicy(saved.id);
          return null;
        } catch (e) {
          return describe(e);
        }
      },

      async deletePolicy(id) {
        try {
          // Move off the policy before it goes, so nothing asks the host for it once deleted.
          const { policies, policyId, comparePolicyId } = get();
          if (comparePolicyId === id) set({ comparePolicyId: null, comparison: null });
          if (policyId === id) await get().setPolicy(policies.find((p) => p.id !== id)?.id ?? '');
          await api.deletePolicy({ id });
          await get().refreshPolicies();
        } catch (e) {
          set({ error: describe(e) });
        }
      },

      async exportPolicy(id) {
        try {
          return await api.exportPolicy({ id });
        } catch (e) {
          set({ error: describe(e) });
          return null;
        }
      },

      // ── selection ──────────────────────────────────────────────────────────
      selectedStep: null,
      inspectedMessage: null,

      selectStep(step, opts) {
        const count = get().chart?.stepCount ?? get().detail?.steps.length ?? 0;
        if (step === null || count === 0) {
          set({ selectedStep: null, inspectedMessage: null, stepDetail: null });
          return;
        }
        const selectedStep = clampStep(step, count);
        const previous = get().selectedStep;
        if (previous !== null && selectedStep !== previous) lastDirection = selectedStep > previous ? 1 : -1;
        const inspectedMessage = opts?.message ?? get().detail?.steps[selectedStep] ?? null;
        set({ selectedStep, inspectedMessage });
        if (inspectedMessage !== null) void get().ensureMessages(inspectedMessage - 20, inspectedMessage + 20);
        void requestStepDetail();
      },

      selectMessage(index) {
        const detail = get().detail;
        if (!detail) return;
        const step = stepAtOrAfter(detail.steps, index, get().chart?.stepCount);
        get().selectStep(step, { message: index });
      },

      stepBy(delta) {
        const { selectedStep } = get();
        get().selectStep((selectedStep ?? -1) + delta);
      },

      stepToEnd(end) {
        const count = get().chart?.stepCount ?? 0;
        if (count > 0) get().selectStep(end === 'first' ? 0 : count - 1);
      },

      jumpCompression(dir) {
        const { chart, selectedStep } = get();
        if (!chart) return;
        const to = nextCompression(compressionSteps(chart.markers), selectedStep ?? (dir === 1 ? -1 : chart.stepCount), dir);
        if (to !== null) get().selectStep(to);
      },

      // ── playback ───────────────────────────────────────────────────────────
      playing: false,
      speed: 10,

      togglePlay() {
        if (get().playing) return stopPlaying();
        const tick = (): void => {
          const { chart, selectedStep, playing } = get();
          if (!playing || !chart) return stopPlaying();
          if ((selectedStep ?? -1) >= chart.stepCount - 1) return stopPlaying();
          get().stepBy(1);
          playTimer = setTimer(tick, 1000 / get().speed);
        };
        set({ playing: true });
        playTimer = setTimer(tick, 1000 / get().speed);
      },

      setSpeed(callsPerSecond) {
        set({ speed: Math.max(1, Math.min(200, callsPerSecond)) });
      },

      // ── compare ────────────────────────────────────────────────────────────
      comparePolicyId: null,
      compareWithOverrides: true,
      minDelta: 0,
      comparison: null,

      async setComparePolicy(id) {
        set({ comparePolicyId: id, comparison: null });
        await get().runCompare();
      },

      async setCompareWithOverrides(on) {
        set({ compareWithOverrides: on });
        await get().runCompare();
      },

      async setMinDelta(n) {
        set({ minDelta: Math.max(0, Math.round(n)) });
        await get().runCompare();
      },

      async runCompare() {
        const { chartFor, comparePolicyId, compareWithOverrides, minDelta } = get();
        if (!chartFor || !comparePolicyId) return set({ comparison: null });
        const seq = ++compareSeq;
        // A is what the chart shows; B gets the same overrides unless the user unticked it.
        const a = { policy: chartFor.policy, overrides: { ...chartFor.overrides } };
        const b = { policy: comparePolicyId, overrides: compareWithOverrides ? { ...chartFor.overrides } : {} };
        try {
          const comparison = await api.compare({ sessionId: chartFor.sessionId, a, b, minDelta });
          if (seq === compareSeq) set({ comparison });
        } catch (e) {
          if (seq === compareSeq) set({ comparison: null, error: describe(e) });
        }
      },
    };
  });
}
