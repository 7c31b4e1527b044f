/**
 * Getting files in: the files the page is handed (file input, drop) on their way to the host,
 * the import's progress (bytes, rate, ETA; the upload first when the host is `serve`), Cancel,
 * the error panel of a file that did not import (it stays until dismissed), and the agent-logs
 * panel (listLocalLogs, one click imports, or opens what is already stored).
 *
 * The session slice owns `importing` (the job whose end opens its session); this slice sets it
 * when a job starts and listens to the same events for the panels. Its listeners are registered
 * when the store is made, before the session slice's, so they still see `importing` set.
 */
import { BoundedCache } from '../../../core/bounded-cache';
import { type ApiClient, type EventPayload, type LocalLogFile, type LocalLogsView } from '../../../shared/api';
import type { FileImporter } from '../api/files';
import { codeOf, createRequests, describe } from './request';
import type { DebuggerState } from './state';

export interface ImportProgressView {
  /** null while the file is still being uploaded. */
  readonly jobId: string | null;
  readonly phase: 'upload' | 'import';
  readonly file: string;
  readonly bytes: number;
  readonly totalBytes: number;
  readonly bytesPerSecond: number;
  readonly etaMs: number | null;
  /** Files still waiting after this one (one upload at a time). */
  readonly queued: number;
}

export interface ImportErrorView {
  readonly file: string;
  /** The importer's message: `file:line[:column]: what was expected`. */
  readonly message: string;
}

export interface ImportSlice {
  importProgress: ImportProgressView | null;
  importError: ImportErrorView | null;
  localLogsOpen: boolean;
  localLogs: LocalLogsView | null;
  localLogsError: string | null;
  localLogsLoading: boolean;
  /** Imports files the user chose in the page or dropped on it. */
  importPageFiles(files: readonly File[]): Promise<void>;
  cancelCurrentImport(): Promise<void>;
  dismissImportError(): void;
  /** Shows a problem found before any import started (e.g. a folder dropped) in the error panel. */
  showImportError(file: string, message: string): void;
  setLocalLogsOpen(open: boolean): void;
  loadLocalLogs(): Promise<void>;
  /** Opens a listed file's session when it is stored and unchanged, else imports it (the session opens when done). */
  openLocalLog(file: LocalLogFile): Promise<void>;
}

/** The slice's own state and the debugger's it reads (slices/state.ts). */
type State = ImportSlice & DebuggerState;
type Set = (partial: Partial<State>) => void;
type Get = () => State;

const baseName = (path: string): string => path.split(/[\\/]/).pop() || path;
/** Terminal events remembered for jobs this window has not learned the id of yet (a small file can finish first). */
const EARLY_ENDS = 32;

export function createImportSlice(api: ApiClient, files: FileImporter | null, set: Set, get: Get): ImportSlice {
  let queue: File[] = [];
  let abortUpload: (() => void) | null = null;
  /** Cancel was pressed while the job id was not known yet (the upload may finish regardless). */
  let cancelAsked = false;
  /**
   * Jobs the user cancelled. Cancel can lose the race with the job's end (the upload finished, or
   * the import ended, as it was pressed): whatever such a job stored is deleted again, so a
   * cancelled import never leaves a session behind.
   */
  const cancelled = new Set<string>();
  /** Host-started jobs that came while another import was on screen: their end only refreshes the list (or shows the error). */
  const background = new Map<string, string>();
  // Import requests are the window's, not a session's: none is dropped when another session opens.
  const requests = createRequests({ get, showError: (message) => set({ importError: { file: '', message } }) });
  const early = new BoundedCache<string, { done: EventPayload<'importDone'> } | { failed: EventPayload<'importFailed'> }>({
    max: EARLY_ENDS,
  });

  const nextFile = (): void => {
    const file = queue.shift();
    if (file) void startUploads([file]);
  };

  /** A cancelled job that finished anyway: take back what it stored (not what was stored before it: `reused`). */
  const discard = async (done: EventPayload<'importDone'>): Promise<void> => {
    if (done.reused) return;
    // A parent's delete takes its subagents with it: those answer not_found, which is fine.
    for (const id of done.sessionIds) await api.deleteSession({ id }).catch(() => undefined);
    await get().refreshSessions();
  };

  /**
   * Sessions a progressive import showed before it ended (by job). A failed or cancelled import
   * deletes them on the host (all or nothing): the window leaves them for another session.
   */
  const shown = new Map<string, readonly string[]>();
  /** No session on screen (the one shown is being deleted); answers still on their way find no session to land in. */
  const blank = (): void =>
    set({
      currentId: null,
      detail: null,
      chart: null,
      chartFor: null,
      chartError: null,
      stepDetail: null,
      messages: new Map(),
      selectedStep: null,
      inspectedMessage: null,
    });
  const leaveShown = async (jobId: string): Promise<void> => {
    const ids = shown.get(jobId);
    shown.delete(jobId);
    if (!ids) return;
    const current = get().currentId;
    const leaving = current === null || ids.includes(current);
    if (leaving) blank();
    await get().refreshSessions();
    if (!leaving || get().currentId !== null) return;
    const next = get().sessions.find((x) => x.parentId === null);
    if (next) await get().openSession(next.id);
    // A request made before the session went failed on it: not the user's problem.
    else if (get().error?.includes('no session with id')) set({ error: null });
  };

  const ended = (jobId: string, end: { done: EventPayload<'importDone'> } | { failed: EventPayload<'importFailed'> }): void => {
    if ('done' in end) shown.delete(jobId);
    else void leaveShown(jobId);
    if (cancelled.has(jobId)) {
      cancelled.delete(jobId);
      // Cleared before the session slice's listener runs, so it does not open the session.
      if (get().importing === jobId) set({ importing: null });
      if (get().importProgress?.jobId === jobId) set({ importProgress: null });
      queue = [];
      if ('done' in end) void discard(end.done);
      return;
    }
    const behind = background.get(jobId);
    if (behind !== undefined) {
      background.delete(jobId);
      if ('done' in end) void get().refreshSessions();
      else if (!end.failed.cancelled) set({ importError: { file: behind, message: end.failed.error } });
      return;
    }
    if (get().importProgress?.jobId !== jobId && get().importing !== jobId) {
      early.set(jobId, end);
      return;
    }
    const file = get().importProgress?.file ?? '';
    set({ importProgress: null });
    if ('failed' in end) {
      if (!end.failed.cancelled) set({ importError: { file, message: end.failed.error } });
      queue = [];
      return;
    }
    nextFile();
  };

  /** A job id is known: show it, and settle it at once if it already ended. */
  const started = (jobId: string, file: string, totalBytes: number): void => {
    set({
      importing: jobId,
      importProgress: { jobId, phase: 'import', file, bytes: 0, totalBytes, bytesPerSecond: 0, etaMs: null, queued: queue.length },
    });
    const end = early.get(jobId);
    if (!end) return;
    early.delete(jobId);
    // The session slice missed it too: do what its listener would have done.
    set({ importing: null });
    if ('done' in end && end.done.sessionIds[0]) {
      const id = end.done.sessionIds[0];
      set({ libraryQuery: '' });
      void get()
        .refreshSessions()
        .then(() => get().openSession(id));
    }
    ended(jobId, end);
  };

  const startUploads = async (chosen: readonly File[]): Promise<void> => {
    if (!files) return;
    const label = chosen.length === 1 ? chosen[0]!.name : `${chosen.length} files`;
    const total = chosen.reduce((n, f) => n + f.size, 0);
    const t0 = performance.now();
    cancelAsked = false;
    // Electron reads the files where they are: there is no upload to show, only the import to come.
    set({
      importError: null,
      importProgress: {
        jobId: null,
        phase: files.kind === 'upload' ? 'upload' : 'import',
        file: label,
        bytes: 0,
        totalBytes: total,
        bytesPerSecond: 0,
        etaMs: null,
        queued: queue.length,
      },
    });
    const run = files.start(chosen, (sent, of) => {
      const p = get().importProgress;
      if (!p || p.jobId !== null) return;
      const rate = (sent / Math.max(1, performance.now() - t0)) * 1000;
      set({
        importProgress: { ...p, bytes: sent, totalBytes: of, bytesPerSecond: rate, etaMs: rate > 0 ? ((of - sent) / rate) * 1000 : null },
      });
    });
    abortUpload = run.abort;
    try {
      const { jobId } = await run.done;
      if (cancelAsked) {
        // Cancel came as the upload finished (too late to abort it): cancel the import it started.
        cancelled.add(jobId);
        set({ importProgress: null });
        queue = [];
        const end = early.get(jobId);
        early.delete(jobId);
        if (end) ended(jobId, end);
        else void api.cancelImport({ jobId }).catch(() => undefined);
        return;
      }
      started(jobId, label, total);
    } catch (e) {
      set({ importProgress: null });
      queue = [];
      if (codeOf(e) === 'cancelled') return;
      set({ importError: { file: label, message: describe(e) } });
    } finally {
      abortUpload = null;
    }
  };

  api.on('importProgress', (p) => {
    const cur = get().importProgress;
    if (p.jobId !== get().importing || (cur && cur.jobId !== p.jobId)) return;
    set({
      importProgress: {
        jobId: p.jobId,
        phase: 'import',
        file: baseName(p.file),
        bytes: p.bytes,
        totalBytes: p.totalBytes,
        bytesPerSecond: p.bytesPerSecond,
        etaMs: p.etaMs,
        queued: queue.length,
      },
    });
  });
  // A big file is opened progressively: its first calls are on screen while the rest is imported
  // (the progress bar and Cancel stay until the end; the chart says it is partial).
  api.on('importVisible', (p) => {
    const first = p.sessionIds[0];
    if (p.jobId !== get().importing || !first) return;
    shown.set(p.jobId, p.sessionIds);
    set({ libraryQuery: '' });
    void get()
      .refreshSessions()
      .then(() => (get().importing === p.jobId && get().currentId !== first ? get().openSession(first) : undefined));
  });
  // Imports the host was already running when this window opened (a big file given to `serve`).
  void api
    .getInfo({})
    .then((info) => {
      const running = info.imports?.[0];
      if (!running || get().importProgress || get().importing) return;
      if (info.initialSessionId) shown.set(running.jobId, [info.initialSessionId]);
      started(running.jobId, running.file, running.totalBytes);
    })
    .catch(() => undefined);
  api.on('importDone', (p) => ended(p.jobId, { done: p }));
  api.on('importFailed', (p) => ended(p.jobId, { failed: p }));
  api.on('showLocalLogs', () => get().setLocalLogsOpen(true));
  // An import the host started (the desktop menu, a second launch, the OS) is adopted: same
  // panels, and its session opens when done; never a page reload.
  api.on('hostImportStarted', (p) => {
    if (get().importProgress || get().importing) background.set(p.jobId, p.file);
    else started(p.jobId, p.file, p.totalBytes);
  });

  return {
    importProgress: null,
    importError: null,
    localLogsOpen: false,
    localLogs: null,
    localLogsError: null,
    localLogsLoading: false,

    async importPageFiles(chosen) {
      if (chosen.length === 0) return;
      if (!files) return set({ importError: { file: chosen[0]!.name, message: 'this host takes no files from the page' } });
      if (get().importProgress || get().importing)
        return set({ importError: { file: chosen[0]!.name, message: 'an import is already running: wait for it, or cancel it first' } });
      if (files.kind === 'path') return startUploads(chosen);
      queue = chosen.slice(1);
      return startUploads(chosen.slice(0, 1));
    },

    async cancelCurrentImport() {
      queue = [];
      const p = get().importProgress;
      if (!p) return;
      if (p.jobId === null) {
        cancelAsked = true;
        abortUpload?.();
        return;
      }
      cancelled.add(p.jobId);
      // The session shown so far goes with the import (all or nothing): the window leaves it first.
      const current = get().currentId;
      if (current !== null && shown.get(p.jobId)?.includes(current)) blank();
      const jobId = p.jobId;
      await requests.send(() => api.cancelImport({ jobId }), {
        session: null,
        onError: (message) => set({ importError: { file: p.file, message } }),
      });
    },

    dismissImportError() {
      set({ importError: null });
    },

    showImportError(file, message) {
      set({ importError: { file, message } });
    },

    setLocalLogsOpen(open) {
      set({ localLogsOpen: open });
      if (open) void get().loadLocalLogs();
    },

    async loadLocalLogs() {
      set({ localLogsLoading: true, localLogsError: null });
      await requests.send(() => api.listLocalLogs({}), {
        session: null,
        lane: 'local-logs',
        onAnswer: (localLogs) => set({ localLogs, localLogsLoading: false }),
        onError: (message) => set({ localLogsError: message, localLogsLoading: false }),
      });
    },

    async openLocalLog(file) {
      const stored = file.sessionIds[0];
      if (stored && !file.changed) {
        set({ localLogsOpen: false });
        return get().openSession(stored);
      }
      if (get().importProgress || get().importing)
        return set({ importError: { file: file.name, message: 'an import is already running: wait for it, or cancel it first' } });
      set({ importError: null });
      await requests.send(() => api.importFiles({ paths: [file.path] }), {
        session: null,
        onAnswer: ({ jobId }) => {
          set({ localLogsOpen: false });
          started(jobId, baseName(file.name), file.size);
        },
        onError: (message) => set({ importError: { file: file.name, message } }),
      });
    },
  };
}
