/**
 * The session slice: the host's info, the session list, the open session's detail and its
 * messages (fetched page by page as lists scroll), a message's raw record, pins, and the window's
 * error line. Opening a session resets what belonged to the one before; every answer is applied
 * only while the session it was asked for is still open (request.ts).
 */
import type { MessageView } from '../../../shared/api';
import type { SessionSlice, SliceContext } from './state';

/** Messages are fetched in pages of this size as lists scroll. */
export const MESSAGE_PAGE = 200;

export function createSessionSlice({ api, set, get, requests, hooks }: SliceContext): SessionSlice {
  let listening = false;

  /** Puts fetched pages into the open session's messages. */
  const merge = (pages: readonly { messages: readonly MessageView[] }[]): Map<number, MessageView> => {
    const messages = new Map(get().messages);
    for (const r of pages) for (const m of r.messages) messages.set(m.index, m);
    return messages;
  };

  /** Host events: imports started from this window (Open…) end here, exact counts arrive. */
  const listen = (): void => {
    if (listening) return;
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
  };

  return {
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
      listen();
      await requests.send(() => Promise.all([api.getInfo({}), api.listSessions({}), api.listPolicies({})]), {
        session: null,
        onAnswer: async ([info, sessions, policies]) => {
          // The host's notices (a corrupt database moved aside and a fresh one started) are shown at once.
          set({ info, sessions, policies, ...(info.notices && info.notices.length > 0 ? { error: info.notices.join(' ') } : {}) });
          const wanted = from?.session && sessions.some((s) => s.id === from.session) ? from.session : null;
          const first = wanted ?? info.initialSessionId ?? sessions[0]?.id ?? null;
          if (first) await get().openSession(first, first === wanted ? from : undefined);
        },
      });
    },

    async openSession(id, from) {
      if (get().playing) get().togglePlay();
      requests.supersede('chart');
      requests.supersede('step');
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
      await requests.send(() => api.getSession({ id }), {
        onAnswer: async (detail) => {
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
        },
      });
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
      await requests.send(
        () => Promise.all(pages.map((p) => api.getMessages({ sessionId: currentId, offset: p * MESSAGE_PAGE, limit: MESSAGE_PAGE }))),
        {
          onAnswer: (results) => set({ messages: merge(results) }),
          // Only while the same session is open: another's page flags are its own requests'.
          onSettled: () => {
            const loading = new Set(get().loadingPages);
            for (const p of pages) loading.delete(p);
            set({ loadingPages: loading });
          },
        },
      );
    },

    async loadRawRecord(index) {
      const { currentId } = get();
      if (!currentId) return;
      await requests.send(() => api.getRawRecord({ sessionId: currentId, index }), {
        onAnswer: (r) => set({ rawRecord: { index, ...r } }),
      });
    },

    async refreshSessions() {
      await requests.send(() => api.listSessions({}), { session: null, onAnswer: (sessions) => set({ sessions }) });
    },

    async refreshCounts() {
      const id = get().currentId;
      if (!id) return;
      // The chart on the new counts (or calls) is asked for at once, beside the detail and the
      // visible pages, and shown once they are: the header, the list and the chart never
      // disagree on how many calls there are.
      const rows = requests.send(
        async () => {
          const detail = await api.getSession({ id });
          const pages = [...new Set([...get().messages.keys()].map((i) => Math.floor(i / MESSAGE_PAGE)))];
          const results = await Promise.all(
            pages.map((pg) => api.getMessages({ sessionId: id, offset: pg * MESSAGE_PAGE, limit: MESSAGE_PAGE })),
          );
          return { detail, results };
        },
        { onAnswer: ({ detail, results }) => set({ detail, messages: merge(results) }) },
      );
      await Promise.all([rows, get().requestChart(rows)]);
    },

    async openFiles() {
      await requests.send(() => api.pickAndImport({}), {
        session: null,
        onAnswer: ({ jobId }) => {
          if (jobId) set({ importing: jobId });
        },
      });
    },

    async setPinned(index, pinned) {
      const { currentId } = get();
      const m = get().messages.get(index);
      if (!currentId || !m) return;
      // The pin is stored for its session whatever happens; the window shows it only if that
      // session is still the one open when the answer comes (another's messages are not its).
      await requests.send(() => api.setPinned({ sessionId: currentId, messageId: m.id, pinned }), {
        onAnswer: async () => {
          const messages = new Map(get().messages);
          const now = messages.get(index);
          if (now?.id === m.id) messages.set(index, { ...now, pinned });
          set({ messages });
          hooks.clearDetails();
          await get().requestChart();
        },
      });
    },

    clearError() {
      set({ error: null });
    },
  };
}
