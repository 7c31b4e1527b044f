/**
 * The host: one handler table implementing the contract in src/shared/api.ts, shared by the
 * Electron main process (over IPC) and `ctxscope serve` (over HTTP). It owns the sessions,
 * runs imports (in a worker thread when one is given) and emits progress events. It never
 * renders and never trusts its input: the transports validate every payload against the
 * contract's schemas before a handler runs.
 */
import { randomUUID } from 'node:crypto';
import type { FormatId } from '../../core/model';
import { stepIndices } from '../../core/model';
import { ApiError, type AppInfo, type EventSink, type Handlers, type SessionDetail } from '../../shared/api';
import { resolveLimits } from '../../core/budget/limits';
import type { SessionCounts } from '../../core/tokens/index';
import { turnStarts } from '../../core/turns';
import { countForHost } from './counts';
import { startImport, type ImportRun } from './import-runner';
import { policyInfos, ReplayService } from './replays';
import { toMessageView, toSummary, type StoredSession } from './views';

export interface HostOptions {
  readonly dbPath: string;
  readonly hostKind: AppInfo['host'];
  readonly version: string;
  /** Files opened at start-up; the first session of the first file becomes the initial one. */
  readonly initialFiles: readonly string[];
  /** Electron-ABI better-sqlite3 binding, when running inside Electron. */
  readonly nativeBinding?: string;
  /** Built import worker script; without it imports run in this thread (tests from source). */
  readonly importWorkerFile?: string;
  readonly emit: EventSink;
  /** The host's native file picker (Electron only). */
  readonly pickFiles?: () => Promise<string[]>;
}

export interface Host {
  readonly handlers: Handlers;
  readonly initialSessionId: string | null;
  close(): Promise<void>;
}

function modelInfoOf(s: StoredSession): SessionDetail['modelInfo'] {
  const limits = resolveLimits({ model: s.session.model, window: s.session.reportedContextWindow, provider: s.session.provider });
  const warning = limits.warnings[0] ?? (s.session.model ? undefined : 'the transcript names no model: default limits');
  return { window: limits.window, maxOutput: limits.maxOutput, known: limits.model !== undefined, ...(warning ? { warning } : {}) };
}

export async function createHost(options: HostOptions): Promise<Host> {
  const sessions = new Map<string, StoredSession>();
  const counts = new Map<string, SessionCounts>();
  const jobs = new Map<string, ImportRun>();
  const replays = new ReplayService();

  const stored = (id: string): StoredSession => {
    const s = sessions.get(id);
    if (!s) throw new ApiError('not_found', `no session with id "${id}"`);
    return s;
  };
  const countsOf = (s: StoredSession): SessionCounts => {
    let c = counts.get(s.id);
    if (!c) counts.set(s.id, (c = countForHost(s.session)));
    return c;
  };

  /** Imports one file and stores its sessions; resolves with their ids. */
  const importFile = async (path: string, format: FormatId | undefined, jobId: string): Promise<string[]> => {
    const run = startImport({
      path,
      format,
      workerFile: options.importWorkerFile,
      onProgress: (p) => options.emit('importProgress', { jobId, file: path, ...p }),
    });
    jobs.set(jobId, run);
    try {
      const outcome = await run.done;
      const importedAt = Date.now();
      return outcome.sessions.map((session) => {
        const id = randomUUID();
        sessions.set(id, { id, session, sourcePath: path, importedAt, pinned: new Set() });
        return id;
      });
    } finally {
      jobs.delete(jobId);
    }
  };

  const startJob = (paths: readonly string[], format: FormatId | undefined): string => {
    const jobId = randomUUID();
    void (async () => {
      const ids: string[] = [];
      try {
        for (const p of paths) ids.push(...(await importFile(p, format, jobId)));
        options.emit('importDone', { jobId, sessionIds: ids, reused: false });
      } catch (error) {
        const cancelled = error instanceof ApiError && error.code === 'cancelled';
        options.emit('importFailed', { jobId, error: error instanceof Error ? error.message : String(error), cancelled });
      }
    })();
    return jobId;
  };

  let initialSessionId: string | null = null;
  for (const file of options.initialFiles) {
    const ids = await importFile(file, undefined, randomUUID());
    initialSessionId ??= ids[0] ?? null;
  }

  const handlers: Handlers = {
    getInfo: async () => ({ version: options.version, host: options.hostKind, dbPath: options.dbPath, initialSessionId }),
    listSessions: async () => [...sessions.values()].map(toSummary),
    getSession: async ({ id }): Promise<SessionDetail> => {
      const s = stored(id);
      const c = countsOf(s);
      return {
        summary: toSummary(s),
        systemPrompt: s.session.systemPrompt,
        tools: s.session.tools.map((t) => ({ name: t.name, description: t.description })),
        tokenizer: c.tokenizer,
        approximate: c.approximate,
        counts: { system: c.system, tools: c.tools, unlogged: c.unlogged, perMessage: [...c.perMessage] },
        roles: s.session.messages.map((m) => m.role),
        turnStarts: turnStarts(s.session.messages),
        steps: stepIndices(s.session.messages),
        sourceCompactions: s.session.sourceCompactions,
        subagents: s.session.subagents.length,
        warnings: s.session.warnings,
        modelInfo: modelInfoOf(s),
      };
    },
    getMessages: async ({ sessionId, offset, limit }) => {
      const s = stored(sessionId);
      const c = countsOf(s);
      const total = s.session.messages.length;
      const end = Math.min(total, offset + limit);
      const messages = [];
      for (let i = offset; i < end; i++) messages.push(toMessageView(s, i, c.perMessage[i] ?? 0));
      return { total, messages };
    },
    listPolicies: async () => policyInfos(),
    runReplay: async ({ sessionId, policy, overrides, needles }) => {
      const s = stored(sessionId);
      return replays.view(s.id, s.session, policy, overrides, needles, s.pinned);
    },
    compare: async ({ sessionId, a, b }) => {
      const s = stored(sessionId);
      return replays.compare(s.id, s.session, a, b, s.pinned);
    },
    importFiles: async ({ paths, format }) => ({ jobId: startJob(paths, format as FormatId | undefined) }),
    pickAndImport: async () => {
      if (!options.pickFiles) throw new ApiError('unsupported', 'this host has no file picker; use `ctxscope serve FILE` or `ctxscope import FILE`');
      const paths = await options.pickFiles();
      return { jobId: paths.length > 0 ? startJob(paths, undefined) : null };
    },
    cancelImport: async ({ jobId }) => {
      const run = jobs.get(jobId);
      run?.cancel();
      return { cancelled: run !== undefined };
    },
    exportSession: async () => {
      throw new ApiError('unsupported', 'export is not available in this build yet');
    },
    setPinned: async ({ sessionId, messageId, pinned }) => {
      const s = stored(sessionId);
      if (!s.session.messages.some((m) => m.id === messageId)) throw new ApiError('not_found', `no message "${messageId}" in session "${sessionId}"`);
      if (pinned) s.pinned.add(messageId);
      else s.pinned.delete(messageId);
      return { pinned };
    },
  };

  return {
    handlers,
    initialSessionId,
    close: async () => {
      for (const run of jobs.values()) run.cancel();
    },
  };
}
