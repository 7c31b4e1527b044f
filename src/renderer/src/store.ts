/**
 * The renderer's one zustand store, made of slices (app info, sessions, the open session and
 * its messages). Actions live in the store; components select small values. The store is a
 * vanilla store created by a factory so tests can make a fresh one with a fake client.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { ApiClient, AppInfo, CompareView, ExportResult, ExportTarget, MessageView, PolicyInfo, ReplayView, SessionDetail, SessionSummary } from '../../shared/api';

/** Messages are fetched in pages of this size as the list scrolls. */
export const MESSAGE_PAGE = 200;

export interface AppState {
  info: AppInfo | null;
  sessions: SessionSummary[];
  currentId: string | null;
  detail: SessionDetail | null;
  /** Sparse: index → message, filled page by page. */
  messages: Map<number, MessageView>;
  loadingPages: Set<number>;
  selectedMessage: number | null;
  /** The raw source record of a message, once asked for. */
  rawRecord: { index: number; record: string | null; line: number | null } | null;
  error: string | null;
  policies: PolicyInfo[];
  policyId: string | null;
  /** `--set`-style overrides on top of the policy (config key → value). */
  overrides: Record<string, string | number | boolean>;
  replay: ReplayView | null;
  replayError: string | null;
  replaying: boolean;
  selectedStep: number | null;
  init(): Promise<void>;
  setPolicy(id: string): Promise<void>;
  setOverride(key: string, value: string | number | boolean | null): Promise<void>;
  runReplay(): Promise<void>;
  selectStep(step: number | null): void;
  needles: string[];
  setNeedles(needles: string[]): Promise<void>;
  importing: string | null;
  openFiles(): Promise<void>;
  exportCurrent(to: ExportTarget): Promise<ExportResult | null>;
  openSession(id: string): Promise<void>;
  ensureMessages(from: number, to: number): Promise<void>;
  selectMessage(index: number | null): void;
  loadRawRecord(index: number): Promise<void>;
  refreshSessions(): Promise<void>;
  /** Exact counts arrived: refetch what shows them, keeping what is on screen until then. */
  refreshCounts(): Promise<void>;
  clearError(): void;
  /** A second policy to compare the current one with (its preset, no overrides), or null. */
  comparePolicyId: string | null;
  comparison: CompareView | null;
  setComparePolicy(id: string | null): Promise<void>;
  runCompare(): Promise<void>;
  /** Saves a policy from its JSON text; resolves to the error message, or null when saved. */
  savePolicy(json: string): Promise<string | null>;
  deletePolicy(id: string): Promise<void>;
  exportPolicy(id: string): Promise<ExportResult | null>;
  refreshPolicies(): Promise<void>;
}

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export function createAppStore(api: ApiClient): StoreApi<AppState> {
  let listening = false;
  return createStore<AppState>()((set, get) => ({
    info: null,
    sessions: [],
    currentId: null,
    detail: null,
    messages: new Map(),
    loadingPages: new Set(),
    selectedMessage: null,
    rawRecord: null,
    error: null,
    policies: [],
    policyId: null,
    overrides: {},
    replay: null,
    replayError: null,
    replaying: false,
    selectedStep: null,
    needles: [],
    importing: null,
    comparePolicyId: null,
    comparison: null,

    async setComparePolicy(id) {
      set({ comparePolicyId: id, comparison: null });
      await get().runCompare();
    },

    async runCompare() {
      const { currentId, policyId, overrides, comparePolicyId } = get();
      if (!currentId || !policyId || !comparePolicyId) return set({ comparison: null });
      try {
        const comparison = await api.compare({ sessionId: currentId, a: { policy: policyId, overrides }, b: { policy: comparePolicyId, overrides: {} } });
        const now = get();
        if (now.currentId === currentId && now.policyId === policyId && now.overrides === overrides && now.comparePolicyId === comparePolicyId) set({ comparison });
      } catch (e) {
        set({ comparison: null, error: describe(e) });
      }
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

    async setNeedles(needles) {
      set({ needles });
      await get().runReplay();
    },

    async openFiles() {
      try {
        const { jobId } = await api.pickAndImport({});
        if (!jobId) return;
        set({ importing: jobId });
      } catch (e) {
        set({ error: describe(e) });
      }
    },

    async exportCurrent(to) {
      const { currentId, policyId, overrides, selectedStep } = get();
      if (!currentId) return null;
      try {
        const isReport = to === 'report-json' || to === 'report-csv';
        return await api.exportSession({ sessionId: currentId, ...(policyId ? { policy: policyId } : {}), overrides, at: isReport || selectedStep === null ? 'end' : selectedStep, to, redact: false, redactPatterns: [] });
      } catch (e) {
        set({ error: describe(e) });
        return null;
      }
    },

    async init() {
      // Imports started from this window (Open…) end here: refresh the list and open the result.
      if (!listening) {
        listening = true;
        api.on('importDone', (p) => {
          if (p.jobId !== get().importing) return;
          set({ importing: null });
          void get().refreshSessions().then(() => (p.sessionIds[0] ? get().openSession(p.sessionIds[0]) : undefined));
        });
        // Exact counts replaced the estimates: reload what shows them.
        api.on('countsReady', (p) => {
          if (p.sessionId === get().currentId) void get().refreshCounts();
        });
        api.on('importFailed', (p) => {
          if (p.jobId !== get().importing) return;
          set({ importing: null, error: p.error });
        });
      }
      try {
        const [info, sessions, policies] = await Promise.all([api.getInfo({}), api.listSessions({}), api.listPolicies({})]);
        set({ info, sessions, policies, policyId: policies[0]?.id ?? null });
        const first = info.initialSessionId ?? sessions[0]?.id ?? null;
        if (first) await get().openSession(first);
      } catch (e) {
        set({ error: describe(e) });
      }
    },

    async refreshCounts() {
      const id = get().currentId;
      if (!id) return;
      try {
        const detail = await api.getSession({ id });
        const pages = [...new Set([...get().messages.keys()].map((i) => Math.floor(i / MESSAGE_PAGE)))];
        const results = await Promise.all(pages.map((pg) => api.getMessages({ sessionId: id, offset: pg * MESSAGE_PAGE, limit: MESSAGE_PAGE })));
        if (get().currentId !== id) return;
        const messages = new Map(get().messages);
        for (const r of results) for (const m of r.messages) messages.set(m.index, m);
        set({ detail, messages });
        await get().runReplay();
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

    async openSession(id) {
      set({ currentId: id, detail: null, messages: new Map(), loadingPages: new Set(), selectedMessage: null, replay: null, comparison: null, selectedStep: null });
      try {
        const detail = await api.getSession({ id });
        if (get().currentId !== id) return;
        set({ detail });
        await Promise.all([get().ensureMessages(0, Math.min(MESSAGE_PAGE, detail.summary.messages) - 1), get().runReplay()]);
      } catch (e) {
        set({ error: describe(e) });
      }
    },

    async ensureMessages(from, to) {
      const { currentId, detail } = get();
      if (!currentId || !detail || to < from) return;
      const total = detail.summary.messages;
      const pages: number[] = [];
      for (let p = Math.floor(from / MESSAGE_PAGE); p <= Math.floor(Math.min(to, total - 1) / MESSAGE_PAGE); p++) {
        if (!get().loadingPages.has(p) && !get().messages.has(p * MESSAGE_PAGE)) pages.push(p);
      }
      if (pages.length === 0) return;
      set({ loadingPages: new Set([...get().loadingPages, ...pages]) });
      try {
        const results = await Promise.all(pages.map((p) => api.getMessages({ sessionId: currentId, offset: p * MESSAGE_PAGE, limit: MESSAGE_PAGE })));
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

    selectMessage(index) {
      set({ selectedMessage: index });
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

    async setPolicy(id) {
      set({ policyId: id, overrides: {} });
      await get().runReplay();
    },

    async setOverride(key, value) {
      const overrides = { ...get().overrides };
      if (value === null || value === '') delete overrides[key];
      else overrides[key] = value;
      set({ overrides });
      await get().runReplay();
    },

    async runReplay() {
      const { currentId, policyId, overrides, needles } = get();
      if (!currentId || !policyId) return;
      set({ replaying: true });
      try {
        const replay = await api.runReplay({ sessionId: currentId, policy: policyId, overrides, needles });
        // A newer request may have started meanwhile; keep only the answer to the latest.
        if (get().currentId === currentId && get().policyId === policyId && get().overrides === overrides) set({ replay, replayError: null });
      } catch (e) {
        set({ replay: null, replayError: describe(e) });
      } finally {
        set({ replaying: false });
      }
      if (get().comparePolicyId) await get().runCompare();
    },

    selectStep(step) {
      const replay = get().replay;
      const messageIndex = step === null || !replay ? null : (replay.steps.messageIndex[step] ?? null);
      set({ selectedStep: step, selectedMessage: messageIndex });
      if (messageIndex !== null) void get().ensureMessages(messageIndex, messageIndex);
    },

    clearError() {
      set({ error: null });
    },
  }));
}

export type AppStore = StoreApi<AppState>;

export function useApp<T>(store: AppStore, selector: (s: AppState) => T): T {
  return useStore(store, selector);
}
