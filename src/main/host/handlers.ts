/**
 * The host: one handler table implementing the contract in src/shared/api.ts, shared by the
 * Electron main process (over IPC) and `ctxscope serve` (over HTTP). Sessions live in SQLite
 * (src/main/store); imports run in a worker thread that writes to the database itself; counts
 * are read from the database when stored, else computed once and stored. It never renders and
 * never trusts its input: the transports validate every payload against the contract first.
 */
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type { FormatId, Session } from '../../core/model';
import { defaultTokenizerFor, type SessionCounts } from '../../core/tokens/index';
import { ApiError, type AppInfo, type EventSink, type Handlers, type ImportPartial, type SessionDetail } from '../../shared/api';
import { GrowthEvents, withPartial } from './partial';
import { openStoreChecked, type SessionStore } from '../store/index';
import { countForHost } from './counts';
import { sessionDetailOf } from './session-detail';
import type { ImportAllowList } from './import-allow';
import { startImport, type ImportRun } from './import-runner';
import { SpareImportWorker } from './import-spare';
import { createExporter } from './export-runner';
import { configOf, policyInfo, policyInfos, policyOf, ReplayService, type ReplayInputs } from './replays';
import { inThreadExecutor, ReplayClient, workerExecutor } from './replay-client';
import { configFields } from '../../core/config-fields';
import { ConfigError, envOverrides } from '../../core/config';
import { SavedPolicies } from './saved-policies';
import { getPolicy } from '../../core/policies/index';
import { policyToJSON } from '../../core/policies/io';
import { toMessageView, toSummary } from './views';
import { deleteFromLibrary, listLibrary, subagentSessionsOf } from './library';
import { localLogsOf } from './local-logs';
import { createTuner } from './tune';
import { TailService } from './tail';
import { appendToSession, type SessionAppend } from './session-append';
import { BoundedCache } from '../../core/bounded-cache';
import { loadLazySession } from '../store/lazy-session';
import { prepareMessage } from '../../core/summarize/extractive';
import { PoolError, TaskPool } from '../worker-pool';
import type { CountReply, CountRequest } from './count-worker';
import { createFleetHost } from './fleet';
import { createProber } from './probe';
import { costOf, defaultWorkBudget, WorkBudget, type WorkBudgetOptions } from './work-budget';
import { availableParallelism } from 'node:os';
import { traceHeap } from '../trace';

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
  /** Built count worker script; without it exact counts are computed in this thread. */
  readonly countWorkerFile?: string;
  /** The count worker's heap bound in MB (COUNT_HEAP_MB); a count that needs more runs again without one. */
  readonly countHeapMb?: number;
  /**
   * Replay worker script (built `.js`, or the `.ts` source run through tsx); without it, or with
   * an in-memory database a worker cannot open, replays run in this thread (tests from source).
   */
  readonly replayWorkerFile?: string;
  readonly emit: EventSink;
  /** The host's native file picker (Electron only). */
  readonly pickFiles?: () => Promise<string[]>;
  /** When given, importFiles reads only what it allows (`ctxscope serve`: src/main/host/import-allow.ts). */
  readonly importAllow?: ImportAllowList;
  /** The memory budget and queue shared by sweeps, exports and replays (default: work-budget.ts defaultWorkBudget). */
  readonly workBudget?: WorkBudgetOptions;
}

export interface Host {
  readonly handlers: Handlers;
  readonly initialSessionId: string | null;
  /**
   * Settles when the start-up files are wholly imported (a big one opens progressively: the host is
   * up once its first calls are stored). Never rejects; a failed import is the window's to show.
   */
  readonly initialImport: Promise<void>;
  readonly store: SessionStore;
  /** The queue and memory budget the heavy requests share (its stats: tests, the bench). */
  readonly budget: WorkBudget;
  close(): Promise<void>;
}

/**
 * The count worker's heap bound (MB). Counting a session makes garbage as fast as it reads text,
 * and an unbounded V8 heap lets it pile up (a 300 MB session counted in a heap bounded at 200 MB
 * peaked at 157 MB, 319 MB unbounded, in the same time). What the worker holds is each message's
 * head — its role and reported usage, about 100 bytes (count/incremental.ts), some 60 MB at 1 GB
 * — and a slice of text, so a session too big for the bound (millions of messages) dies at it and
 * is counted again unbounded.
 */
export const COUNT_HEAP_MB = 256;
/** A spare import worker starts this long after an import ended (its start is off that moment's work: the whole session's replay). */
const SPARE_IMPORT_DELAY_MS = 1500;

/** The width of a chart made ahead (chartAhead): the replay is what is kept, any width is then made of it in milliseconds. */
const CHART_AHEAD_BUCKETS = 1_000;

/** How many sessions the host keeps in memory, each held by its numbers (store/lazy-session.ts); the rest stay in SQLite. */
const SESSION_CACHE = 4;

export async function createHost(options: HostOptions): Promise<Host> {
  traceHeap('host');
  // Checked on open; a corrupt file is moved aside and a fresh one started, with a notice.
  const { store, notices } = openStoreChecked(options.dbPath, {
    check: true,
    recover: true,
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
  });
  /**
   * Sessions held by their numbers, their text read from SQLite a page at a time
   * (store/lazy-session.ts), the most recently used few; in this thread the replay cache holds
   * each one too, so it lets go of it with the session. With a replay worker, this thread holds
   * one only for what it does itself (a probe, a count without a count worker).
   */
  const loaded = new BoundedCache<string, Session>({
    max: SESSION_CACHE,
    onEvict: (oldest) => {
      // A replay worker keeps its own sessions.
      if (!useWorker) replays.forget(oldest, 'session');
    },
  });
  const counts = new Map<string, SessionCounts>();
  const jobs = new Map<string, { run: ImportRun; file: string; totalBytes: number }>();
  /** Sessions still being imported (progressively), with how much of their file is stored. */
  const partial = new Map<string, ImportPartial>();
  /** Exact counts asked for while a session was partial: made when its import ends. */
  const deferredCounts = new Map<string, Set<string>>();
  const growth = new GrowthEvents((payload) => options.emit('sessionUpdated', payload));
  /** Windows that asked to follow a session while it was partial (by session: how many). */
  const deferredWatch = new Map<string, number>();
  const saved = new SavedPolicies(store.db);
  const lookup = (id: string) => saved.get(id) ?? getPolicy(id);
  const useWorker = options.replayWorkerFile !== undefined && options.dbPath !== ':memory:';
  // With a count worker, a replay that needs BPE counts not stored yet runs on the import's
  // estimates at once and asks for exact counts (countsReady, then the renderer asks again).
  const countsInBackground = options.countWorkerFile !== undefined && options.dbPath !== ':memory:';
  const replays = new ReplayClient(
    useWorker
      ? workerExecutor(
          options.replayWorkerFile!,
          { dbPath: options.dbPath, countsInBackground, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) },
          (note) => {
            if (note.type === 'count') requestCount(note.sessionId, note.tokenizer);
            else store.summarySet(note.key, note.value);
          },
        )
      : inThreadExecutor(
          new ReplayService({
            session: (id) => sessionOf(id),
            load: (id, tokenizer) => store.loadCounts(id, tokenizer),
            save: (id, c) => store.saveCounts(id, c),
            summaries: { get: (k) => store.summaryGet(k), set: (k, v) => store.summarySet(k, v) },
            ...(countsInBackground ? { requestCount: (id: string, tokenizer: string) => requestCount(id, tokenizer) } : {}),
          }),
        ),
  );
  /**
   * A replay's inputs, checked here before anything is queued: an unknown policy or a bad override
   * answers bad_input at once and leaves the cache (and the last good result) alone.
   */
  const inputsOf = (
    sessionId: string,
    policyId: string,
    overrides: Readonly<Record<string, string | number | boolean>>,
    needles: readonly string[] = [],
  ): ReplayInputs => {
    row(sessionId);
    const policy = policyOf(policyId, lookup);
    configOf(policy, overrides);
    return { sessionId, policy: { id: policy.id, config: policy.config }, overrides, needles, pins: [...store.pins(sessionId)] };
  };

  const sessionOf = (id: string): Session => {
    let s = loaded.get(id);
    if (s) return s;
    s = loadLazySession(store, id, { prime: prepareMessage });
    if (!s) throw new ApiError('not_found', `no session with id "${id}"`);
    // Stored before subagents were sessions of their own: they become rows the first time it opens.
    if (s.subagents.length > 0) s = store.promoteSubagents(id, s);
    loaded.set(id, s);
    return s;
  };
  /**
   * The last session parsed whole, for what sends a session to another thread as an object (a
   * sweep's workers, an export worker without a database to read): a lazily held one's text does
   * not cross. Only the last one: it costs its whole text.
   */
  const whole = new BoundedCache<string, Session>({ max: 1 });
  const wholeSessionOf = (id: string): Session => {
    let s = whole.get(id);
    if (s) return s;
    // Held first: a session stored before subagents were rows has them promoted there (sessionOf).
    sessionOf(id);
    s = store.loadSession(id);
    if (!s) throw new ApiError('not_found', `no session with id "${id}"`);
    whole.set(id, s);
    return s;
  };
  const counting = new Set<string>();
  /**
   * One session is counted at a time (one thread): each count task already spreads its work over a
   * pool of threads (one per core), so two at once would only fight over the same cores. A count
   * whose worker dies is not run again (the next request asks again); the pool, as long-lived as
   * the host, never gives up on its worker.
   */
  const countPoolOf = (heapMb: number | undefined): TaskPool | undefined =>
    options.countWorkerFile
      ? new TaskPool({
          name: 'exact counts',
          filename: options.countWorkerFile,
          threads: 1,
          idleMs: 5_000,
          attempts: 1,
          restarts: Infinity,
          ...(heapMb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: heapMb } } : {}),
          onIdleError: (e) => process.stderr.write(`${e.message}\n`),
        })
      : undefined;
  // Counting with a bounded heap; a session too big for the bound is counted again without it.
  const countPool = countPoolOf(options.countHeapMb ?? COUNT_HEAP_MB);
  let unboundedCountPool: TaskPool | undefined;
  let closing = false;
  const startCount = (id: string, tokenizer: string): void => {
    if (!countPool) return;
    const request: CountRequest = {
      dbPath: options.dbPath,
      sessionId: id,
      tokenizer,
      ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
    };
    void countPool
      .run<CountReply>(request)
      .catch((e: unknown) => {
        // The worker died (its heap's bound reached): once more, unbounded.
        if (!(e instanceof PoolError) || closing) throw e;
        process.stderr.write(`${e.message}: counting session ${id} again without a heap bound\n`);
        unboundedCountPool ??= countPoolOf(undefined)!;
        return unboundedCountPool.run<CountReply>(request);
      })
      .then(
        (r) => {
          if (!r.ok) return;
          counts.delete(id);
          // The session is unchanged: keep it (and what was extracted from it), drop this tokenizer's counts and the results that read them.
          replays.forget(id, 'counts', undefined, tokenizer);
          options.emit('countsReady', { sessionId: id, tokenizer });
        },
        () => {},
      )
      .finally(() => counting.delete(`${id}\u0000${tokenizer}`));
  };
  /** Queues an exact count of a session under a tokenizer (once); `countsReady` says when it is stored. */
  const requestCount = (id: string, tokenizer: string): void => {
    // A session still growing would be counted again at every chunk: once, at the end.
    if (partial.has(id)) {
      const wanted = deferredCounts.get(id) ?? new Set<string>();
      deferredCounts.set(id, wanted.add(tokenizer));
      return;
    }
    const key = `${id}\u0000${tokenizer}`;
    if (counting.has(key)) return;
    counting.add(key);
    startCount(id, tokenizer);
  };
  /**
   * Exact counts when stored; otherwise the import's chars/4 estimates at once while a worker
   * counts exactly and stores them, then `countsReady` tells the renderer to reload.
   */
  const countsOf = (id: string): SessionCounts => {
    let c = counts.get(id);
    if (c) return c;
    // The stored row says which tokenizer and how many messages: no need to parse the session.
    const r = row(id);
    const tokenizer = defaultTokenizerFor(r.model ?? undefined, r.hasUsage);
    c = store.loadCounts(id, tokenizer);
    if (c && c.perMessage.length === r.messageCount) {
      counts.set(id, c);
      return c;
    }
    if (!options.countWorkerFile || options.dbPath === ':memory:') {
      c = countForHost(sessionOf(id), tokenizer);
      store.saveCounts(id, c);
      counts.set(id, c);
      return c;
    }
    requestCount(id, tokenizer);
    const estimate = store.loadCounts(id, 'chars4') ?? countForHost(sessionOf(id), 'chars4');
    return estimate;
  };

  // Opening a file in the running app: an import worker waits with its code loaded and the store
  // open (import-spare.ts).
  const spareImport =
    options.importWorkerFile && options.dbPath !== ':memory:'
      ? new SpareImportWorker(options.importWorkerFile, options.dbPath, options.nativeBinding)
      : undefined;
  /**
   * Imports one file into the store; resolves with its session ids. A big file of lines is opened
   * progressively (store/progressive.ts): `onVisible` gets its first sessions as soon as a prefix
   * is stored, each later chunk reaches the window as `sessionUpdated` (the live tail's event),
   * and until the end the sessions are `partial` (their charts say so). A cancel or failure
   * deletes what was stored, the visible prefix too: an import is all or nothing.
   */
  const importFile = async (
    path: string,
    format: FormatId | undefined,
    jobId: string,
    onVisible?: (ids: string[]) => void,
  ): Promise<{ ids: string[]; reused: boolean }> => {
    let visible: string[] = [];
    const run = startImport({
      path,
      format,
      store,
      dbPath: options.dbPath,
      ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
      ...(options.importWorkerFile ? { workerFile: options.importWorkerFile } : {}),
      ...(spareImport ? { spare: spareImport } : {}),
      progressive: true,
      onProgress: (p) => {
        for (const id of visible) partial.set(id, { jobId, bytes: p.bytes, totalBytes: Math.max(p.totalBytes, p.bytes) });
        options.emit('importProgress', { jobId, file: path, ...p });
      },
      onVisible: (r) => {
        visible = r.sessionIds;
        for (const id of visible) partial.set(id, { jobId, bytes: 0, totalBytes: 0 });
        for (const id of visible) replays.growing(id, true);
        if (visible[0] !== undefined) chartAhead(visible[0]);
        onVisible?.(visible);
        options.emit('importVisible', { jobId, sessionIds: visible });
      },
      onGrown: (update, bytes, totalBytes) => {
        for (const id of update.deleted) forget(id);
        for (const u of update.sessions) {
          if (!visible.includes(u.id)) visible.push(u.id);
          partial.set(u.id, { jobId, bytes, totalBytes });
          const w = u.written;
          // The replay engine reads the chunk itself when it next needs the session (growing.ts);
          // without a worker the host's own session takes the chunk's messages.
          grownBy(
            u.id,
            u.changedFrom,
            w && {
              from: u.changedFrom,
              previous: w.previous,
              messages: w.messages,
              ...(w.compactions ? { compactions: w.compactions } : {}),
            },
          );
          growth.grown({ sessionId: u.id, steps: u.steps, messages: u.messages, rewritten: update.rewritten });
        }
      },
    });
    jobs.set(jobId, { run, file: path, totalBytes: run.totalBytes });
    try {
      const r = await run.done;
      for (const id of r.sessionIds) {
        loaded.delete(id);
        whole.delete(id);
        counts.delete(id);
        replays.growing(id, false);
        replays.forget(id, 'session');
      }
      return { ids: r.sessionIds, reused: r.reused };
    } catch (error) {
      // The worker deletes what it stored; one stopped before it could leaves it to this thread.
      for (const id of visible) {
        forget(id);
        if (store.getRow(id)) store.deleteSession(id);
      }
      throw error;
    } finally {
      jobs.delete(jobId);
      for (const id of visible) growth.flush(id);
      for (const id of visible) partial.delete(id);
      for (const id of visible) replays.growing(id, false);
      // Exact counts asked while the session grew are made once, on the whole session.
      for (const id of visible) for (const t of deferredCounts.get(id) ?? []) if (store.getRow(id)) requestCount(id, t);
      for (const id of visible) deferredCounts.delete(id);
      for (const id of visible) {
        const n = deferredWatch.get(id) ?? 0;
        deferredWatch.delete(id);
        for (let i = 0; i < n; i++) if (store.getRow(id)) void tail.watchSession(id, true).catch(() => undefined);
      }
    }
  };

  /** Starts an import job; `ended` settles with its sessions (or its error) once every file is in. */
  const runJob = (
    paths: readonly string[],
    format: FormatId | undefined,
    onVisible?: (ids: string[]) => void,
  ): { jobId: string; ended: Promise<string[]> } => {
    const jobId = randomUUID();
    const ended = (async () => {
      const ids: string[] = [];
      let reused = true;
      try {
        for (const p of paths) {
          const r = await importFile(p, format, jobId, onVisible);
          ids.push(...r.ids);
          reused &&= r.reused;
        }
        options.emit('importDone', { jobId, sessionIds: ids, reused });
        return ids;
      } catch (error) {
        const cancelled = error instanceof ApiError && error.code === 'cancelled';
        options.emit('importFailed', { jobId, error: error instanceof Error ? error.message : String(error), cancelled });
        throw error;
      }
    })();
    ended.catch(() => undefined);
    void ended.finally(() => spareImport?.prepare(SPARE_IMPORT_DELAY_MS)).catch(() => undefined);
    return { jobId, ended };
  };
  const startJob = (paths: readonly string[], format: FormatId | undefined): string => runJob(paths, format).jobId;

  let initialSessionId: string | null = null;

  /** A session that changed (`append`: how) leaves this thread's caches; the held one is patched when it can be. */
  const dropHeld = (id: string, append?: SessionAppend): void => {
    const held = loaded.peek(id);
    const patched = held && append && appendToSession(held, append);
    loaded.delete(id);
    whole.delete(id);
    if (patched) loaded.set(id, patched);
    counts.delete(id);
    tuner.forget(id);
  };
  // Live tail: a followed session that changed is dropped from every cache, like a re-import.
  const forget = (id: string, append?: SessionAppend): void => {
    dropHeld(id, append);
    replays.forget(id, 'session', append);
  };
  /** Sessions a window was answered a chart of since its last detail (getSession: a growing one is then read on). */
  const charted = new Set<string>();
  /**
   * The first chart of a session being imported, made as soon as its first calls are stored, before
   * a window asks: the replay worker started, its code loaded and compiled, the first calls read and
   * replayed under the session's own policy — the window's first chart is then answered from the
   * cache (docs/architecture.md "Opening a big session"). Only with a worker: the host's own thread
   * answers requests.
   */
  const chartAhead = (id: string): void => {
    if (!useWorker) return;
    void replays
      .submit({ op: 'session', sessionId: id })
      .then((d) => replays.submit({ op: 'chart', inputs: inputsOf(id, d.defaultPolicy, {}), buckets: CHART_AHEAD_BUCKETS }))
      .catch(() => undefined);
  };
  /** A session being imported grew by a chunk written from message `from` on (`append`: its messages). */
  const grownBy = (id: string, from: number, append?: SessionAppend): void => {
    dropHeld(id, append);
    replays.growing(id, true, from, append);
  };
  const tail = new TailService({
    store,
    emit: options.emit,
    invalidate: forget,
    recount: requestCount,
    onError: (m) => process.stderr.write(`${m}\n`),
  });

  const row = (id: string) => {
    const r = store.getRow(id);
    if (!r) throw new ApiError('not_found', `no session with id "${id}"`);
    return r;
  };

  // Export and accuracy workers read sessions from the database themselves (not parsed here).
  const exporter = createExporter(
    undefined,
    options.dbPath === ':memory:'
      ? undefined
      : { dbPath: options.dbPath, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) },
  );
  const budget = new WorkBudget(options.workBudget ?? defaultWorkBudget());
  /** Runs a heavy request of a session inside the budget (work-budget.ts); its cost is estimated from the session's source size. */
  const budgeted = <T>(kind: 'sweep' | 'export' | 'replay', sessionId: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> =>
    budget.run(kind, costOf(kind, row(sessionId).size, kind === 'sweep' ? availableParallelism() : 1), work, signal);
  const tuner = createTuner({
    session: wholeSessionOf,
    policy: (id) => policyOf(id, lookup),
    pins: (id) => (row(id), store.pins(id)),
    storedCounts: (id, tok) => store.loadCounts(id, tok),
  });
  const fleet = createFleetHost({
    dbPath: options.dbPath,
    version: options.version,
    store,
    emit: options.emit,
    policy: (id) => policyOf(id, lookup),
    ...(options.importAllow ? { importAllow: options.importAllow } : {}),
    importFile: async (path) => (await importFile(path, undefined, randomUUID())).ids,
    sourceIdOf: (id) => sessionOf(id).id,
  });
  // The probe (docs/probe.md): the replay it probes is the one the exports use (op 'result').
  const prober = createProber({
    db: store.db,
    session: (id) => sessionOf(id),
    replayOf: (id, policy, overrides) => replays.submit({ op: 'result', inputs: inputsOf(id, policy, overrides) }),
  });
  const handlers: Handlers = {
    ...fleet.handlers,
    // The start-up session, unless it was deleted since.
    getInfo: async () => ({
      version: options.version,
      host: options.hostKind,
      dbPath: options.dbPath,
      initialSessionId: initialSessionId !== null && store.getRow(initialSessionId) ? initialSessionId : null,
      ...(notices.length > 0 ? { notices } : {}),
      ...(jobs.size > 0 ? { imports: [...jobs].map(([jobId, j]) => ({ jobId, file: basename(j.file), totalBytes: j.totalBytes })) } : {}),
    }),
    listSessions: async () => listLibrary(store),
    getSession: async ({ id }): Promise<SessionDetail> => {
      const r = row(id);
      // With a worker, the session is parsed there (as its replays need it anyway), not on this thread.
      // A session being imported is read on by a step once a window has drawn a chart of it (growing.ts).
      const readOn = charted.delete(id) && partial.has(id);
      let body = useWorker
        ? await replays.submit({ op: 'session', sessionId: id, ...(readOn ? { readOn } : {}) })
        : sessionDetailOf(sessionOf(id), countsOf(id));
      if (useWorker && body.subagents > 0) {
        // Stored before subagents were rows (only old databases keep them in the metadata): they
        // become rows now, once, on this thread (sessionOf promotes them), and the worker forgets its copy.
        const promoted = sessionOf(id);
        replays.forget(id, 'session');
        body = { ...body, subagents: promoted.subagents.length };
      }
      return { summary: toSummary(r), ...body, ...subagentSessionsOf(store, id, body.subagents) };
    },
    getMessages: async ({ sessionId, offset, limit }) => {
      // One page from its rows: opening a long session never parses all of it here.
      const total = row(sessionId).messageCount;
      const c = countsOf(sessionId);
      const pins = store.pins(sessionId);
      const page = store.loadMessages(sessionId, offset, Math.min(total, offset + limit));
      return { total, messages: page.map((m, k) => toMessageView(m, offset + k, c.perMessage[offset + k] ?? 0, pins.has(m.id))) };
    },
    listPolicies: async () => policyInfos(saved.list()),
    runReplay: async ({ sessionId, policy, overrides, needles }) => {
      const inputs = inputsOf(sessionId, policy, overrides, needles);
      return budgeted('replay', sessionId, () => replays.submit({ op: 'view', inputs }));
    },
    getChartView: async ({ sessionId, policy, overrides, needles, channel, buckets }) => {
      const inputs = inputsOf(sessionId, policy, overrides, needles);
      const t0 = performance.now();
      growth.charting(sessionId);
      let view: Awaited<ReturnType<typeof replays.submit<'chart'>>>;
      try {
        view = await replays.submit({ op: 'chart', inputs, buckets }, channel);
      } finally {
        growth.charted(sessionId, performance.now() - t0);
      }
      charted.add(sessionId);
      // Marked as the store stands when it answers (the replay read the calls stored before).
      const p = partial.get(sessionId);
      return p ? withPartial(view, p) : view;
    },
    getStepDetail: async ({ sessionId, policy, overrides, needles, channel, step }) =>
      replays.submit({ op: 'detail', inputs: inputsOf(sessionId, policy, overrides, needles), step }, channel),
    getConfigFields: async ({ policy, overrides }) => {
      try {
        return configFields(policyOf(policy, lookup).config, overrides, { env: envOverrides(process.env) });
      } catch (e) {
        if (e instanceof ConfigError) throw new ApiError('bad_input', e.message);
        throw e;
      }
    },
    getAccuracy: async ({ sessionId, tokenizer }) => exporter.accuracy(() => wholeSessionOf(sessionId), row(sessionId), tokenizer),
    compare: async ({ sessionId, a, b, minDelta }) => {
      const op = {
        op: 'compare',
        a: inputsOf(sessionId, a.policy, a.overrides),
        b: inputsOf(sessionId, b.policy, b.overrides),
        minDelta,
      } as const;
      return budgeted('replay', sessionId, () => replays.submit(op));
    },
    importFiles: async ({ paths, format }) => ({
      jobId: startJob(options.importAllow ? options.importAllow.check(paths) : paths, format as FormatId | undefined),
    }),
    pickAndImport: async () => {
      if (!options.pickFiles)
        throw new ApiError('unsupported', 'this host has no file picker; use `ctxscope serve FILE` or `ctxscope import FILE`');
      const paths = await options.pickFiles();
      return { jobId: paths.length > 0 ? startJob(paths, undefined) : null };
    },
    cancelImport: async ({ jobId }) => {
      const job = jobs.get(jobId);
      job?.run.cancel();
      return { cancelled: job !== undefined };
    },
    exportSession: async (args) =>
      budgeted('export', args.sessionId, () =>
        exporter.exportFor(
          () => wholeSessionOf(args.sessionId),
          row(args.sessionId),
          args,
          (policy) => replays.submit({ op: 'result', inputs: inputsOf(args.sessionId, policy, args.overrides) }),
        ),
      ),
    setPinned: async ({ sessionId, messageId, pinned }) => {
      row(sessionId);
      if (!store.hasMessage(sessionId, messageId)) throw new ApiError('not_found', `no message "${messageId}" in session "${sessionId}"`);
      store.setPinned(sessionId, messageId, pinned);
      return { pinned };
    },
    getRawRecord: async ({ sessionId, index }) => {
      const total = row(sessionId).messageCount;
      if (index >= total) throw new ApiError('not_found', `no message #${index} in session "${sessionId}" (it has ${total})`);
      return { record: store.rawOf(sessionId, index), line: store.loadMessages(sessionId, index, index + 1)[0]?.sourceLine ?? null };
    },
    savePolicy: async ({ json }) => policyInfo(saved.save(json), true),
    deletePolicy: async ({ id }) => ({ deleted: saved.delete(id) }),
    exportPolicy: async ({ id }) => {
      const p = saved.get(id) ?? getPolicy(id);
      if (!p) throw new ApiError('not_found', `no policy "${id}"`);
      return { fileName: `${p.id}.policy.json`, mime: 'application/json', text: policyToJSON(p), redactions: 0 };
    },
    previewExport: async (args) =>
      exporter.previewFor(
        () => wholeSessionOf(args.sessionId),
        row(args.sessionId),
        args,
        (policy) => replays.submit({ op: 'result', inputs: inputsOf(args.sessionId, policy, args.overrides) }),
      ),
    deleteSession: async ({ id }) =>
      deleteFromLibrary(
        store,
        id,
        (x) => (loaded.delete(x), whole.delete(x), counts.delete(x), replays.forget(x, 'session'), tuner.forget(x)),
      ),
    listLocalLogs: async () => localLogsOf(store, options.dbPath),
    runTune: (args) => tuner.run(args, (work, signal) => budgeted('sweep', args.sessionId, work, signal)),
    cancelTune: async ({ channel }) => ({ cancelled: tuner.cancel(channel) }),
    watchSession: async ({ sessionId, on }) => {
      // A session still being imported grows through its import (the same path): the live tail
      // starts when the import ends, from where it stopped.
      if (partial.has(sessionId)) {
        const n = (deferredWatch.get(sessionId) ?? 0) + (on ? 1 : -1);
        if (n > 0) deferredWatch.set(sessionId, n);
        else deferredWatch.delete(sessionId);
        return { watching: on, path: row(sessionId).sourcePath };
      }
      return tail.watchSession(sessionId, on);
    },
    planProbe: (args) => prober.planProbe(args),
    runProbe: (args) => prober.runProbe(args),
    listProbes: async (args) => (row(args.sessionId), prober.listProbes(args)),
  };

  let initialImport: Promise<void> = Promise.resolve();
  // A file to open: the replay worker loads its code while the file's first calls are imported
  // (a fresh worker took ~0.5 s to start, which the first chart waited for).
  if (options.initialFiles.length > 0 && useWorker) replays.start();
  const close = async (): Promise<void> => {
    closing = true;
    await spareImport?.close();
    for (const job of jobs.values()) job.run.cancel();
    fleet.close();
    tuner.close();
    await exporter.close();
    await countPool?.close();
    await unboundedCountPool?.close();
    tail.close();
    await replays.close();
    store.close();
  };
  // Files given at start-up, once every handler above is ready (a progressive import's chunks reach them).
  try {
    for (const [k, file] of options.initialFiles.entries()) {
      // The last file opens progressively when it is big: the host is up once its first calls are
      // stored, and the rest is imported meanwhile (getInfo lists the job: a window shows its
      // progress and Cancel). A file that fails before that fails the start, as before.
      if (k === options.initialFiles.length - 1) {
        let shown: (ids: string[]) => void = () => {};
        const visible = new Promise<string[]>((resolve) => (shown = resolve));
        const { ended } = runJob([file], undefined, (ids) => shown(ids));
        initialImport = ended.then(
          () => undefined,
          () => undefined,
        );
        const ids = await Promise.race([visible, ended]);
        initialSessionId ??= ids[0] ?? null;
        continue;
      }
      const r = await importFile(file, undefined, randomUUID());
      initialSessionId ??= r.ids[0] ?? null;
    }
  } catch (e) {
    // The start fails: the threads started for it (the replay worker above) must not keep the process alive.
    await close();
    throw e;
  }

  // The next file opened in the window finds an import worker ready, once the start-up files are in.
  void initialImport.then(() => spareImport?.prepare(SPARE_IMPORT_DELAY_MS));

  return {
    handlers,
    initialSessionId,
    initialImport,
    store,
    budget,
    close,
  };
}
