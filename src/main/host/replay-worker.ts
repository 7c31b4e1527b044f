/**
 * The replay worker thread: loads sessions and counts from SQLite through its own connection,
 * which it only reads (the host keeps the one writer: summaries and count requests go to it),
 * runs replays and answers chart-view, step-detail, view and compare requests from its cache of
 * recent results (replays.ts), so the thread that answers the renderer never replays. One request
 * at a time; replay-client.ts queues, cancels (a flag in shared memory that the running replay
 * checks) and restarts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Session } from '../../core/model';
import { ApiError } from '../../shared/api';
import { openStore } from '../store/index';
import { dispatch, errorReply, sessionReadBy, type FromReplayWorker, type ReplayWorkerData, type ToReplayWorker } from './replay-protocol';
import { traceHeap, traceSpan } from '../trace';
import { createPrewarm, warmUpOrder, warmUpOverrides } from './replay-prewarm';
import { configOf, ReplayService } from './replays';
import { POLICIES } from '../../core/policies/index';
import { appendToSession } from './session-append';
import { BoundedCache } from '../../core/bounded-cache';
import { countsPrefix, GrowingSessions } from './growing';
import { CALIBRATION_BASE, getTokenizer } from '../../core/tokens/registry';
import { lazyMessages, loadLazySession, sessionPages, type MessagePages } from '../store/lazy-session';
import { prepareMessage } from '../../core/summarize/extractive';

/**
 * Sessions kept in this thread, each held by its numbers with its text read from SQLite a page at
 * a time (store/lazy-session.ts): what one costs here grows with its calls, not its text.
 */
const SESSION_CACHE = 4;

function start(data: ReplayWorkerData): void {
  const port = parentPort!;
  const stop = data.stop ? new Int32Array(data.stop) : undefined;
  const store = openStore(data.dbPath, data.nativeBinding ? { nativeBinding: data.nativeBinding } : {});
  // The replay service holds a session's counts and results beside it: it lets go of them with it.
  const sessions = new BoundedCache<string, Session>({ max: SESSION_CACHE, onEvict: (oldest) => service.forget(oldest) });
  const sessionOf = (id: string): Session => {
    let s = sessions.get(id);
    if (s) return s;
    s = loadLazySession(store, id, { prime: prepareMessage });
    if (!s) throw new ApiError('not_found', `no session with id "${id}"`);
    sessions.set(id, s);
    return s;
  };
  // Summaries made here are kept here at once and stored by the host (the store has them all;
  // this only bridges until the host has written them).
  const made = new BoundedCache<string, string>({ max: 1000 });
  // Sessions still being imported: a prefix held, read on by steps before the requests that read it
  // (growing.ts), by their numbers like any held session — their text read through one page cache
  // per session (a window open during a long import would otherwise have the worker hold its text).
  const growingPages = new Map<string, MessagePages>();
  const growing = new GrowingSessions({
    storedMessages: (id) => store.getRow(id)?.messageCount,
    meta: (id) => store.sessionMeta(id),
    messages: (id, from, to) => {
      let pages = growingPages.get(id);
      if (!pages) growingPages.set(id, (pages = sessionPages(store, id)));
      return lazyMessages(store, id, from, to, pages);
    },
  });
  const service = new ReplayService({
    session: sessionOf,
    // A growing session's stored counts cover more messages than the prefix held: its share of them.
    load: (id, tokenizer) => {
      const c = store.loadCounts(id, tokenizer);
      const held = growing.has(id) ? sessions.peek(id) : undefined;
      return c && held ? countsPrefix(c, held.messages.length) : c;
    },
    summaries: {
      get: (k) => made.get(k) ?? store.summaryGet(k),
      set: (k, v) => {
        made.set(k, v);
        port.postMessage({ type: 'summary', key: k, value: v } satisfies FromReplayWorker);
      },
    },
    ...(data.countsInBackground
      ? {
          requestCount: (sessionId: string, tokenizer: string) =>
            port.postMessage({ type: 'count', sessionId, tokenizer } satisfies FromReplayWorker),
        }
      : {}),
  });
  // The newest request this thread has taken up; one the host posted since (stop[1], see
  // ReplayWorkerData.stop) is waiting, and no message reaches a thread busy replaying.
  let taken = 0;
  const waiting = (): boolean => stop !== undefined && stop.length > 1 && Atomics.load(stop, 1) > taken;
  // Idle time after a chart: summary items read ahead, the summarizer rehearsed, policies warmed
  // up (replay-prewarm.ts); any request stops it.
  const prewarm = createPrewarm({
    // A policy's code compiled before its first drag (see WARM_UP_MS): a replay of a setting near
    // the chart's, stopped after its time or at once for a waiting request, its result thrown away.
    warm: async (inputs, own) => {
      if (waiting()) return 'request';
      const until = performance.now() + (own ? WARM_UP_MS : WARM_UP_OTHER_MS);
      const span = traceSpan(`worker warm-up ${inputs.policy.id}`);
      try {
        const overrides = { ...inputs.overrides, ...warmUpOverrides(configOf(inputs.policy, inputs.overrides)) };
        const ran = await service.rehearse({ ...inputs, overrides }, () => waiting() || performance.now() >= until);
        const outcome = ran === 'skipped' ? 'skipped' : waiting() ? 'request' : 'done';
        span(`(${outcome})`);
        return outcome;
      } catch (e) {
        span('(failed)');
        throw e;
      }
    },
    // Every other built-in policy at its own settings, those that write summaries first.
    alsoWarm: (inputs) => WARM_ORDER.filter((p) => p.id !== inputs.policy.id).map((policy) => ({ ...inputs, policy, overrides: {} })),
  });
  /**
   * Before a request of a session being imported: its first prefix read (any request), or read on
   * by a step before a request for its detail that says so (`readOn`: a window has drawn a chart of
   * what is held) — which the window asks for first at each chunk, with the chart right after: the
   * two then describe the same calls, and a chart made ahead of the window (handlers.ts) is still
   * the one it asks for.
   */
  const catchUp = (op: ToReplayWorker & { type: 'run' }): void => {
    const id = sessionReadBy(op.op);
    if (id === undefined || !growing.has(id)) return;
    const held = sessions.peek(id);
    if (held && !(op.op.op === 'session' && op.op.readOn)) return;
    const span = traceSpan('worker read on');
    const grown = growing.catchUp(id, held);
    if (!grown) return span('(nothing new)');
    sessions.set(id, grown.session);
    // Continued: the runs kept for the prefix go on over the new calls (resume.ts).
    service.forget(id, undefined, grown.appended);
    span(`to ${grown.session.messages.length} messages`);
  };
  const growingNow = (): boolean => growing.size > 0;
  port.on('message', (m: ToReplayWorker) => {
    if (m.type === 'growing') {
      growing.mark(m.sessionId, m.on, m.from);
      if (!m.on) growingPages.delete(m.sessionId);
      const held = m.on ? sessions.peek(m.sessionId) : undefined;
      const refreshed = held && growing.refresh(m.sessionId, held);
      if (refreshed) {
        // A held message was written again: held as stored, its replays continued from before it.
        sessions.set(m.sessionId, refreshed);
        service.forget(m.sessionId, undefined, true);
      }
      // Wholly imported: read again whole at the next request, as any session.
      if (!m.on && sessions.delete(m.sessionId)) service.forget(m.sessionId);
      return;
    }
    if (m.type === 'forget') {
      const span = traceSpan(`worker forget ${m.what}${m.append ? ` (append of ${m.append.messages.length})` : ''}`);
      const held = sessions.get(m.sessionId);
      if (m.what === 'session') sessions.delete(m.sessionId);
      // A live-tail update patches the session held instead of reading it all again.
      const patched = held && m.append && appendToSession(held, m.append);
      if (patched) sessions.set(m.sessionId, patched);
      // Patched: the replays kept for the session may be continued over the new calls (resume.ts).
      service.forget(m.sessionId, m.what === 'counts' ? m.tokenizer : undefined, Boolean(patched));
      span(patched ? '(patched)' : '');
      return;
    }
    taken = Math.max(taken, m.id);
    const shouldStop = stop ? () => Atomics.load(stop, 0) === m.id : undefined;
    prewarm.interrupt();
    const span = traceSpan(`worker ${m.op.op}`);
    Promise.resolve()
      .then(() => (catchUp(m), dispatch(service, m.op, shouldStop)))
      .then(
        (value) => {
          span();
          const posting = traceSpan('worker post');
          port.postMessage({ id: m.id, ok: true, value } satisfies FromReplayWorker);
          posting();
          // Not while a session is being imported: its lists change at every step read, and the
          // idle time is the import's (the machine's cores are shared with it).
          if (growingNow()) return;
          if (m.op.op === 'chart') prewarm.afterChart(sessionOf, m.op.inputs);
          else prewarm.resume(sessionOf);
        },
        (e: unknown) => {
          port.postMessage(errorReply(m.id, e));
          if (!growingNow()) prewarm.resume(sessionOf);
        },
      );
  });
  port.once('close', () => store.close());
  // The BPE ranks most first replays read (summaries are counted with o200k: the calibrated and the
  // max:tiktoken:o200k_base tokenizers alike) parsed while the worker waits for its first request:
  // a host given a file starts the worker with it (ReplayClient.start), and the first chart of a
  // big file is no longer the one to pay for them (170 ms idle, seconds on a machine busy importing).
  setImmediate(() => {
    if (taken === 0) getTokenizer(CALIBRATION_BASE).countText('warm');
  });
}

/**
 * The warm-up replay's length (replay-prewarm.ts `warm`): once per policy per worker, after its
 * first chart of its own. A fresh worker's first drag of a policy that summarizes ran its code still
 * unoptimized: openhands-summary at 60 messages (10,000 calls) replayed in 108–153 ms, 71–90 after
 * one replay at another setting (3 runs each, fresh serves). A request posted meanwhile stops it
 * within the replay's stop check (every 16 calls), so it may run long: a whole replay, mostly.
 */
const WARM_UP_MS = 400;
/**
 * Each other built-in policy's warm-up (replay-prewarm.ts `alsoWarm`): the code they share warmed
 * on their shapes too. Long enough for most of a cold heavy replay (warmUpOverrides): 60 ms had
 * left letta's and openhands-summary's first moves after a second's pause 30–60 ms slower (see
 * warmUpOverrides). Those that do not summarize end sooner; any request stops one at once.
 */
const WARM_UP_OTHER_MS = 200;
/** The built-in policies in the order they are warmed up as others (replay-prewarm.ts `warmUpOrder`). */
const WARM_ORDER = warmUpOrder(POLICIES);

if (parentPort) {
  traceHeap('replay worker');
  start(workerData as ReplayWorkerData);
}
