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
import { dispatch, errorReply, type FromReplayWorker, type ReplayWorkerData, type ToReplayWorker } from './replay-protocol';
import { traceSpan } from '../trace';
import { createPrewarm, warmUpOverrides } from './replay-prewarm';
import { configOf, ReplayService } from './replays';
import { appendToSession } from './session-append';

/** Parsed sessions kept in this thread (the rest stay in SQLite). */
const SESSION_CACHE = 4;

function start(data: ReplayWorkerData): void {
  const port = parentPort!;
  const stop = data.stop ? new Int32Array(data.stop) : undefined;
  const store = openStore(data.dbPath, data.nativeBinding ? { nativeBinding: data.nativeBinding } : {});
  const sessions = new Map<string, Session>();
  const sessionOf = (id: string): Session => {
    let s = sessions.get(id);
    if (s) {
      sessions.delete(id);
      sessions.set(id, s);
      return s;
    }
    s = store.loadSession(id);
    if (!s) throw new ApiError('not_found', `no session with id "${id}"`);
    sessions.set(id, s);
    while (sessions.size > SESSION_CACHE) {
      const oldest = sessions.keys().next().value as string;
      sessions.delete(oldest);
      service.forget(oldest);
    }
    return s;
  };
  // Summaries made here are kept here at once and stored by the host.
  const made = new Map<string, string>();
  const service = new ReplayService({
    session: sessionOf,
    load: (id, tokenizer) => store.loadCounts(id, tokenizer),
    summaries: {
      get: (k) => made.get(k) ?? store.summaryGet(k),
      set: (k, v) => {
        made.set(k, v);
        // The store has them all; this only bridges until the host has written them.
        if (made.size > 1000) made.delete(made.keys().next().value as string);
        port.postMessage({ type: 'summary', key: k, value: v } satisfies FromReplayWorker);
      },
    },
    ...(data.countsInBackground ? { requestCount: (sessionId: string, tokenizer: string) => port.postMessage({ type: 'count', sessionId, tokenizer } satisfies FromReplayWorker) } : {}),
  });
  // Idle time after a chart: summary items read ahead, the summarizer rehearsed (replay-prewarm.ts); any request stops it.
  const prewarm = createPrewarm({
    // The policy's code compiled before its first drag (see WARM_UP_MS): a replay of a setting
    // near the chart's, stopped after WARM_UP_MS, its result thrown away.
    warm: async (inputs) => {
      const until = performance.now() + WARM_UP_MS;
      const span = traceSpan('worker warm-up');
      try {
        const overrides = { ...inputs.overrides, ...warmUpOverrides(configOf(inputs.policy, inputs.overrides)) };
        await service.cached({ ...inputs, overrides }, () => performance.now() >= until);
      } catch {
        // Stopped (what it is meant to do) or failed: either way nothing is kept.
      } finally {
        span();
      }
    },
  });
  port.on('message', (m: ToReplayWorker) => {
    if (m.type === 'forget') {
      const held = sessions.get(m.sessionId);
      if (m.what === 'session') sessions.delete(m.sessionId);
      // A live-tail update patches the session held instead of reading it all again.
      const patched = held && m.append && appendToSession(held, m.append);
      if (patched) sessions.set(m.sessionId, patched);
      // Patched: the replays kept for the session may be continued over the new calls (resume.ts).
      service.forget(m.sessionId, m.what === 'counts' ? m.tokenizer : undefined, Boolean(patched));
      return;
    }
    const shouldStop = stop ? () => Atomics.load(stop, 0) === m.id : undefined;
    prewarm.interrupt();
    const span = traceSpan(`worker ${m.op.op}`);
    dispatch(service, m.op, shouldStop).then(
      (value) => {
        span();
        const posting = traceSpan('worker post');
        port.postMessage({ id: m.id, ok: true, value } satisfies FromReplayWorker);
        posting();
        if (m.op.op === 'chart') prewarm.afterChart(sessionOf, m.op.inputs);
      },
      (e: unknown) => port.postMessage(errorReply(m.id, e)),
    );
  });
  port.once('close', () => store.close());
}


/**
 * The warm-up replay's length (replay-prewarm.ts `warm`): once per policy per worker, after its
 * first chart. A fresh worker's first drag of a policy that summarizes ran its code still
 * unoptimized: openhands-summary at 60 messages (10,000 calls) replayed in 108–153 ms, 71–90 after
 * one replay at another setting (3 runs each, fresh serves). The replay checks its stop every 256
 * calls, so a request arriving meanwhile waits at most about this long, once per policy.
 */
const WARM_UP_MS = 60;

if (parentPort) start(workerData as ReplayWorkerData);
