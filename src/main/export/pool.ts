/**
 * The export worker pool (tinypool): builds exports and runs the redaction scan off the request
 * thread, so `serve` and the app's main process keep answering while a 10,000-call session is
 * scanned (docs/user-guide.md "Export"). Workers start on first use and stay warm for a while (the dialog asks
 * again after each keystroke); the queue is bounded. An aborted task's worker is ended at once
 * (tinypool terminates it) and the task answers `cancelled`; a worker that throws or runs out of
 * memory fails its task with a message naming the pool instead of leaving it waiting, and so does
 * one that exits mid-task (src/main/worker-pool.ts, the pool every task pool of the project is).
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../../shared/api';
import { TaskPool, taskModule } from '../worker-pool';
import type { Built } from '../host/exports';
import type { Session } from '../../core/model';
import type { AccuracyView } from '../../shared/api';
import type { AccuracyReply, AccuracyTask, ExportReply, ExportTask } from './protocol';

/** Tasks waiting beyond the running ones: a person previews one export at a time; this bounds the rest. */
export const MAX_QUEUE = 16;
/** Tinypool's message for a task whose worker it terminated (see runOnce). */
const THREAD_TERMINATION = 'Terminating worker thread';
/** Runs a task gets when tinypool keeps ending its worker for others' sake (see runOnce). */
const TERMINATION_RETRIES = 3;
/** How long an idle worker stays (the dialog previews again as the user types). */
const IDLE_MS = 60_000;

/**
 * The worker module: the built `export-worker.js` beside the bundle holding this code (out/main,
 * out/cli or its chunks/), else the TypeScript source loaded through tsx (tests, `tsx` runs from a
 * checkout). Tinypool imports its task module by URL, so the source is wrapped in a `data:` module
 * that registers tsx in the worker first.
 */
export function exportWorkerModule(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return taskModule([join(here, 'export-worker.js'), join(here, '..', 'export-worker.js')], join(here, 'export-worker.ts'), [
    'default',
    'accuracy',
  ]);
}

export interface ExportPoolOptions {
  /** Threads at most (default: one, two on a machine with more than two cores). */
  readonly threads?: number;
  /** The task module (tests); default exportWorkerModule(). */
  readonly filename?: string;
}

export class ExportPool {
  private pool: TaskPool | undefined;
  private closed = false;
  /** Tasks running or waiting. The bound is kept here, not by tinypool's maxQueue: a task tinypool
   *  refuses still has its abort listener attached, and aborting it later rejects a promise nobody
   *  holds (an unhandled rejection, which ends the process). */
  private inFlight = 0;
  /** Times a session was sent to a worker (a worker did not hold it yet): tests and the bench read it. */
  sessionsSent = 0;

  constructor(private readonly options: ExportPoolOptions = {}) {}

  /** Builds in a worker; `cancelled` when `signal` aborts (the worker running it is ended). */
  async run(task: ExportTask, signal?: AbortSignal): Promise<Built> {
    const reply = await this.send<ExportTask, ExportReply>('default', task, signal, 'exports');
    if (!reply.ok)
      throw 'missing' in reply
        ? new ApiError('internal', 'export: the worker lost the session it was just sent; ask again')
        : new ApiError(reply.code, reply.message);
    return reply.built;
  }

  /** getAccuracy in a worker: counting a 100 MB session twice took seconds of the request thread. */
  async accuracy(task: AccuracyTask): Promise<AccuracyView> {
    const reply = await this.send<AccuracyTask, AccuracyReply>('accuracy', task, undefined, 'tasks');
    if (!reply.ok)
      throw 'missing' in reply
        ? new ApiError('internal', 'accuracy: the worker lost the session it was just sent; ask again')
        : new ApiError(reply.code, reply.message);
    return reply.view;
  }

  /**
   * Runs the worker's `name` export: first without the session (the worker holds it, or reads it
   * from the store), then with it when the worker answers `missing`.
   */
  private async send<T extends { readonly session: Session | null }, R extends { readonly ok: boolean }>(
    name: string,
    task: T,
    signal: AbortSignal | undefined,
    what: string,
  ): Promise<R> {
    if (this.closed) throw new ApiError('internal', 'export: the worker pool is closed');
    if (signal?.aborted) throw new ApiError('cancelled', reasonOf(signal));
    if (this.inFlight >= this.threads() + MAX_QUEUE)
      throw new ApiError('internal', `export: ${MAX_QUEUE} ${what} are already waiting; try again when they are done`);
    const options = { name, ...(signal ? { signal } : {}) };
    this.inFlight++;
    try {
      let reply = (await this.runOnce({ ...task, session: null }, options)) as R;
      if (!reply.ok && 'missing' in reply) {
        this.sessionsSent++;
        reply = (await this.runOnce(task, options)) as R;
      }
      return reply;
    } catch (e) {
      if (signal?.aborted) throw new ApiError('cancelled', reasonOf(signal));
      throw new ApiError('internal', `export: the worker failed (${e instanceof Error ? e.message : String(e)}); ask again`);
    } finally {
      this.inFlight--;
    }
  }

  /**
   * One tinypool run, again when tinypool ended the worker under it for another task's sake.
   * Tinypool 2.2 ends a worker when a task running on it is aborted; if that task's answer was
   * already on its way, the answer marks the dying worker free and the next queued task is posted
   * to it, then fails with "Terminating worker thread" although nobody aborted it (seen about once
   * in 300 superseded previews). Exports only read, so running it again is safe.
   */
  private async runOnce(task: unknown, options: { name: string; signal?: AbortSignal }): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ensure().run(task, options);
      } catch (e) {
        const endedForAnother = e instanceof Error && e.message === THREAD_TERMINATION && !options.signal?.aborted && !this.closed;
        if (!endedForAnother || attempt >= TERMINATION_RETRIES) throw e;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const p = this.pool;
    this.pool = undefined;
    await p?.close();
  }

  private threads(): number {
    return this.options.threads ?? (availableParallelism() > 2 ? 2 : 1);
  }

  private ensure(): TaskPool {
    if (this.pool) return this.pool;
    // A worker that exits mid-task fails that task (tinypool alone would leave it waiting forever).
    // An export is asked for again by the person waiting on it: a task whose worker died fails at
    // once (no second run), and the pool, as long-lived as the app, never gives up on its workers.
    this.pool = new TaskPool({
      name: 'export',
      filename: this.options.filename ?? exportWorkerModule(),
      threads: this.threads(),
      idleMs: IDLE_MS,
      attempts: 1,
      restarts: Infinity,
      onIdleError: (e) => process.stderr.write(`${e.message}\n`),
    });
    return this.pool;
  }
}

function reasonOf(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'cancelled';
}
