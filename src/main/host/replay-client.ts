/**
 * Schedules the host's replay requests to the replay engine — a worker thread when one is built
 * (Electron and `serve` alike), else the host's own thread (tests from source) — one at a time,
 * in order (charts first), with the debugger's rules (docs/architecture.md, "Heavy work … can be cancelled when superseded,
 * and an older answer never overwrites a newer one"):
 * - a request may name a `channel`; a newer request on the same channel supersedes the older,
 *   which answers `cancelled` at once: dropped from the queue, or, when it was already running,
 *   stopped (a flag its replay loop checks every few hundred calls, so a dragged slider does not
 *   queue work) — unless the newer request needs the same replay, which then runs on;
 * - a chart goes ahead of queued non-chart requests and stops a running step detail of another
 *   replay (prioritise);
 * - the queue is bounded: past MAX_QUEUE waiting requests a new one answers `cancelled`;
 * - a worker that dies fails the requests it held with a clear error and is started again for
 *   the next one, so no request ever waits for an answer that will not come.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../../shared/api';
import { traceSpan } from '../trace';
import { startWorker } from '../workers';
import {
  dispatch,
  replaysOf,
  type ForgetWhat,
  type FromReplayWorker,
  type WorkerNote,
  type ReplayOp,
  type ReplayOpName,
  type ReplayOpOf,
  type ReplayOpResults,
  type ReplayWorkerData,
  type ToReplayWorker,
} from './replay-protocol';
import { configOf, type ReplayService } from './replays';
import type { SessionAppend } from './session-append';

/** Requests waiting beyond the running one. A dragged slider supersedes its own; this bounds the rest. */
export const MAX_QUEUE = 32;

/**
 * The replay worker's TypeScript source when running from a checkout (`tsx`), so `serve` replays
 * off its request thread there too; undefined inside a bundle (which has the built worker).
 */
export function replayWorkerSource(): string | undefined {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.ts')) return undefined;
  const file = here.replace(/replay-client\.ts$/, 'replay-worker.ts');
  return existsSync(file) ? file : undefined;
}

/** Runs one request at a time, somewhere. */
export interface ReplayExecutor {
  run(op: ReplayOp): Promise<ReplayOpResults[ReplayOpName]>;
  /** Asks the request running now to stop (its replay answers `cancelled` within a few hundred calls). */
  stopRunning?(): void;
  /** `append`: a live-tail update a worker applies to the session it holds (session-append.ts). */
  forget(sessionId: string, what: ForgetWhat, append?: SessionAppend, tokenizer?: string): void;
  /**
   * A session being imported grew (a chunk wrote messages from `from` on), or is wholly imported
   * (`on` false): a worker holds a prefix of it and reads on by steps (growing.ts). Without it the
   * executor's session is the host's, which follows the import itself.
   */
  growing?(sessionId: string, on: boolean, from?: number): void;
  /** Starts the engine ahead of its first request (a worker's code loaded while the host does something else). */
  start?(): void;
  close(): Promise<void>;
}

/** The engine in this thread (no worker file: tests from source). */
export function inThreadExecutor(service: ReplayService): ReplayExecutor {
  // This thread only gets to set the flag between a replay's awaits (a remote summary), which is where it matters here.
  let current = { stopped: false };
  return {
    run: (op) => {
      const mine = (current = { stopped: false });
      return dispatch(service, op, () => mine.stopped);
    },
    stopRunning: () => {
      current.stopped = true;
    },
    // The host patched the session it holds (handlers.ts): the replays kept for it may be continued.
    forget: (id, what, append, tokenizer) => service.forget(id, what === 'counts' ? tokenizer : undefined, append !== undefined),
    close: async () => {},
  };
}

/**
 * The engine in a worker thread started from `file` (a built `.js`, or a `.ts` source run through
 * tsx). Started on first use; restarted after it dies.
 */
export function workerExecutor(file: string, data: ReplayWorkerData, onNote?: (note: WorkerNote) => void): ReplayExecutor {
  let worker: Worker | undefined;
  let nextId = 1;
  let lastRun = 0;
  // Shared with every worker started: the id of the run to stop, and of the newest run posted (see ReplayWorkerData.stop).
  const stop = new SharedArrayBuffer(8);
  const stopFlag = new Int32Array(stop);
  const growingIds = new Set<string>();
  const pending = new Map<number, { resolve: (v: ReplayOpResults[ReplayOpName]) => void; reject: (e: Error) => void }>();
  const failAll = (why: string): void => {
    for (const p of pending.values())
      p.reject(new ApiError('internal', `the replay worker stopped (${why}); the request failed — ask again`));
    pending.clear();
  };
  const ensure = (): Worker => {
    if (worker) return worker;
    const workerData: ReplayWorkerData = { ...data, stop };
    const w = file.endsWith('.ts') ? startWorker([], file, { workerData }) : new Worker(file, { workerData });
    w.on('message', (m: FromReplayWorker) => {
      if ('type' in m) {
        onNote?.(m);
        return;
      }
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new ApiError(m.code, m.message));
    });
    w.on('error', (e) => {
      if (worker === w) worker = undefined;
      failAll(e.message);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      failAll(`exit code ${code}`);
    });
    worker = w;
    // Sessions being imported, told to every worker started (the first one starts with the window's first request).
    for (const sessionId of growingIds) w.postMessage({ type: 'growing', sessionId, on: true } satisfies ToReplayWorker);
    return w;
  };
  return {
    run: (op) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        lastRun = id;
        Atomics.store(stopFlag, 1, id);
        // Posted → answered: beside the worker's own span, the time the request waited there
        // (behind an idle-time warm-up that had not stopped yet) and its result's transfer.
        const span = traceSpan(`worker round trip ${op.op}`);
        pending.set(id, {
          resolve: (v) => {
            span();
            resolve(v);
          },
          reject: (e) => {
            span('(failed)');
            reject(e);
          },
        });
        ensure().postMessage({ type: 'run', id, op } satisfies ToReplayWorker);
      }),
    stopRunning: () => Atomics.store(stopFlag, 0, lastRun),
    forget: (sessionId, what, append, tokenizer) =>
      worker?.postMessage({
        type: 'forget',
        sessionId,
        what,
        ...(append ? { append } : {}),
        ...(tokenizer !== undefined ? { tokenizer } : {}),
      } satisfies ToReplayWorker),
    start: () => void ensure(),
    growing: (sessionId, on, from) => {
      if (on) growingIds.add(sessionId);
      else growingIds.delete(sessionId);
      worker?.postMessage({ type: 'growing', sessionId, on, ...(from !== undefined ? { from } : {}) } satisfies ToReplayWorker);
    },
    close: async () => {
      const w = worker;
      worker = undefined;
      failAll('the host closed');
      await w?.terminate();
    },
  };
}

interface Job {
  readonly op: ReplayOp;
  readonly channel: string | undefined;
  readonly resolve: (v: ReplayOpResults[ReplayOpName]) => void;
  readonly reject: (e: Error) => void;
  settled: boolean;
  /** Stopped because its session's counts or data changed while it ran: run it again, do not fail it. */
  rerun?: boolean;
}

/**
 * Whether a request's replays may read counts under `tokenizer`: its config names it (or its
 * reference, for S0's (docs/policies.md §S0) emergency path), or leaves the choice to the model ('auto'). A replay on
 * runes or shannon counts goes on when exact BPE counts land.
 */
function mayRead(op: ReplayOp, tokenizer: string): boolean {
  const inputs = op.op === 'session' ? [] : op.op === 'compare' ? [op.a, op.b] : [op.inputs];
  return inputs.some((i) => {
    try {
      const c = configOf(i.policy, i.overrides);
      return c.tokenizer === tokenizer || c.tokenizer === 'auto' || (c.paths.emergency && c.referenceTokenizer === tokenizer);
    } catch {
      return true;
    }
  });
}

/** The session a request replays, if any. */
const sessionOfOp = (op: ReplayOp): string | undefined =>
  op.op === 'session' ? undefined : op.op === 'compare' ? op.a.sessionId : op.inputs.sessionId;

export class ReplayClient {
  private readonly queue: Job[] = [];
  private running: Job | null = null;
  private readonly channels = new Map<string, Job>();

  constructor(private readonly executor: ReplayExecutor) {}

  /** Queues `op`; superseding the request still pending on `channel`, if any. */
  submit<K extends ReplayOpName>(op: ReplayOpOf<K>, channel?: string): Promise<ReplayOpResults[K]> {
    return new Promise<ReplayOpResults[K]>((resolve, reject) => {
      const job: Job = { op, channel, resolve: resolve as (v: ReplayOpResults[ReplayOpName]) => void, reject, settled: false };
      if (channel !== undefined) {
        const older = this.channels.get(channel);
        if (older) this.cancel(older, `superseded by a newer request on channel "${channel}"`, job);
        this.channels.set(channel, job);
      }
      if (this.queue.length >= MAX_QUEUE) {
        this.cancel(job, `the replay queue is full (${MAX_QUEUE} waiting); ask again`);
        return;
      }
      if (op.op === 'chart') this.prioritise(job);
      else this.queue.push(job);
      this.pump();
    });
  }

  /**
   * The chart is what a person waits for after a slider move: it goes ahead of every queued
   * request that is not a chart (charts keep their order among themselves), and a step detail
   * running for another replay is stopped — the window asks for the new replay's detail once the
   * chart arrives, so the old one's would only delay it (under letta a detail that has to replay
   * first held the new chart back by a whole replay).
   */
  private prioritise(job: Job): void {
    const at = this.queue.findIndex((j) => j.op.op !== 'chart');
    if (at < 0) this.queue.push(job);
    else this.queue.splice(at, 0, job);
    const running = this.running;
    if (running && running.op.op === 'detail' && !sharesReplay(running.op, job.op))
      this.cancel(running, 'pre-empted by a chart of another replay', job);
  }

  private cancel(job: Job, why: string, by?: Job): void {
    if (job.settled) return;
    job.settled = true;
    // Running: stop its replay too, unless the newer request needs that very replay.
    if (job === this.running && !(by && sharesReplay(job.op, by.op))) this.executor.stopRunning?.();
    const i = this.queue.indexOf(job);
    if (i >= 0) this.queue.splice(i, 1);
    if (job.channel !== undefined && this.channels.get(job.channel) === job) this.channels.delete(job.channel);
    job.reject(new ApiError('cancelled', why));
  }

  private pump(): void {
    if (this.running) return;
    const job = this.queue.shift();
    if (!job) return;
    this.running = job;
    const done = (): void => {
      if (job.channel !== undefined && this.channels.get(job.channel) === job) this.channels.delete(job.channel);
      this.running = null;
      this.pump();
    };
    this.executor.run(job.op).then(
      (value) => {
        // A superseded request's answer is never delivered.
        if (!job.settled) {
          job.settled = true;
          job.resolve(value);
        }
        done();
      },
      (e: unknown) => {
        if (job.rerun && !job.settled) {
          // Stopped by forget(): it goes first again and replays on what the session is now.
          job.rerun = false;
          this.queue.unshift(job);
          this.running = null;
          this.pump();
          return;
        }
        if (!job.settled) {
          job.settled = true;
          job.reject(e instanceof Error ? e : new Error(String(e)));
        }
        done();
      },
    );
  }

  /**
   * The session's counts or data changed (exact counts stored, re-imported, grown): a replay of it
   * running now that reads them works on the old ones, and its result would not be kept. It is stopped and run
   * again first, so whoever asked gets the new replay without waiting for the stale one to end
   * (exact counts landing during a slider drag made the new chart wait for both).
   */
  forget(sessionId: string, what: ForgetWhat, append?: SessionAppend, tokenizer?: string): void {
    this.executor.forget(sessionId, what, append, tokenizer);
    const running = this.running;
    if (
      running &&
      !running.settled &&
      this.executor.stopRunning &&
      sessionOfOp(running.op) === sessionId &&
      (tokenizer === undefined || mayRead(running.op, tokenizer))
    ) {
      running.rerun = true;
      this.executor.stopRunning();
    }
  }

  /** Starts the engine's worker now, if it has one, rather than with the first request. */
  start(): void {
    this.executor.start?.();
  }

  /**
   * A session being imported grew, or is wholly imported (`on` false). A replay of it running now
   * goes on (it answers for the calls it read, marked partial): stopping it at every chunk, as
   * `forget` does, left a big session's first chart never answered while chunks kept coming.
   * Without a worker (tests from source) the host's own session follows the import: `forget`.
   */
  growing(sessionId: string, on: boolean, from?: number, append?: SessionAppend): void {
    if (this.executor.growing) this.executor.growing(sessionId, on, from);
    else this.forget(sessionId, 'session', on ? append : undefined);
  }

  async close(): Promise<void> {
    for (const job of [...this.queue]) this.cancel(job, 'the host closed');
    await this.executor.close();
  }
}

function sharesReplay(a: ReplayOp, b: ReplayOp): boolean {
  const keys = new Set(replaysOf(a));
  return replaysOf(b).some((k) => keys.has(k));
}
