/**
 * The session library's state: open or not, the search text, the sort, which parents show their
 * subagents, and a delete waiting for the user's confirmation. The rows themselves are derived
 * (model/library-rows.ts) from the session list the session slice keeps, so there is one list.
 */
import type { ApiClient, MethodOutputs, SessionSummary } from '../../../shared/api';
import type { LibraryColumn, LibrarySort } from '../model/library-rows';
import { createRequests } from './request';
import type { DebuggerState } from './state';

export interface LibrarySlice {
  libraryOpen: boolean;
  libraryQuery: string;
  librarySort: LibrarySort;
  libraryExpanded: ReadonlySet<string>;
  /** The session a delete was asked for, shown with its counts until confirmed or cancelled. */
  pendingDelete: SessionSummary | null;
  /** What the last delete removed (shown in the library). */
  lastDeleted: (MethodOutputs['deleteSession'] & { title: string }) | null;
  openLibrary(): Promise<void>;
  closeLibrary(): void;
  setLibraryQuery(q: string): void;
  /** Sorts by a column; the same column again reverses the order. */
  sortLibrary(column: LibraryColumn): void;
  toggleExpanded(id: string): void;
  askDelete(id: string): void;
  cancelDelete(): void;
  confirmDelete(): Promise<void>;
  /** Opens a session from the library (or a subagent link) and closes the library. */
  openFromLibrary(id: string): Promise<void>;
}

/** The slice's own state and the debugger's it reads (slices/state.ts). */
type State = LibrarySlice & DebuggerState;
type Set = (partial: Partial<State>) => void;
type Get = () => State;

/** Numbers read best largest first; names A→Z. */
const DESCENDING_FIRST: ReadonlySet<LibraryColumn> = new Set(['calls', 'tokens', 'cost', 'compactions', 'date', 'size']);

export function createLibrarySlice(api: ApiClient, set: Set, get: Get): LibrarySlice {
  const requests = createRequests({ get, showError: (error) => set({ error }) });
  return {
    libraryOpen: false,
    libraryQuery: '',
    librarySort: { column: 'date', dir: -1 },
    libraryExpanded: new Set(),
    pendingDelete: null,
    lastDeleted: null,

    async openLibrary() {
      set({ libraryOpen: true, pendingDelete: null });
      // The list may have grown (imports from elsewhere, counts cached since): read it afresh.
      await get().refreshSessions();
    },
    closeLibrary() {
      set({ libraryOpen: false, pendingDelete: null });
    },
    setLibraryQuery(q) {
      set({ libraryQuery: q });
    },
    sortLibrary(column) {
      const cur = get().librarySort;
      set({
        librarySort:
          cur.column === column ? { column, dir: cur.dir === 1 ? -1 : 1 } : { column, dir: DESCENDING_FIRST.has(column) ? -1 : 1 },
      });
    },
    toggleExpanded(id) {
      const next = new Set(get().libraryExpanded);
      if (!next.delete(id)) next.add(id);
      set({ libraryExpanded: next });
    },
    askDelete(id) {
      set({ pendingDelete: get().sessions.find((s) => s.id === id) ?? null });
    },
    cancelDelete() {
      set({ pendingDelete: null });
    },
    async confirmDelete() {
      const doomed = get().pendingDelete;
      if (!doomed) return;
      await requests.send(() => api.deleteSession({ id: doomed.id }), {
        session: null,
        onAnswer: (r) => set({ pendingDelete: null, lastDeleted: { ...r, title: doomed.title } }),
        onError: (error) => set({ pendingDelete: null, error }),
      });
      const before = get().sessions;
      await get().refreshSessions();
      // The open session went (itself, or its parent with it): open another, or none.
      const current = get().currentId;
      const left = get().sessions;
      if (current !== null && !left.some((s) => s.id === current)) {
        const next = left.find((s) => s.parentId === null && before.some((b) => b.id === s.id));
        if (next) await get().openSession(next.id);
        else
          set({
            currentId: null,
            detail: null,
            chart: null,
            chartFor: null,
            stepDetail: null,
            messages: new Map(),
            selectedStep: null,
            inspectedMessage: null,
          });
      }
    },
    async openFromLibrary(id) {
      set({ libraryOpen: false, pendingDelete: null });
      await get().openSession(id);
    },
  };
}
