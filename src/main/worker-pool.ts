/**
 * The one worker-pool library of the project (tinypool) and the one place that handles crashed
 * workers. Every pool of threads that run tasks (bulk token counting, `batch`, the host's exact
 * counts, exports) is a `TaskPool`: a task whose worker dies (exits, is killed, throws outside the
 * task) is run again on a fresh worker, a bounded number of times, and then fails with a message
 * naming the pool and how the worker died; when workers keep dying the pool gives up and every
 * waiting and later task fails at once instead of waiting for a reply that will never come
 * (docs/reliability.md). A task that throws fails as it threw, never retried.
 *
 * Tinypool 2.2 (worker_threads runtime) does not notice a worker that exits without an error in
 * the middle of a task (`process.exit` in a native module or a dependency, say): the task waits
 * forever and `destroy()` waits for an exit that already happened. Its child_process runtime does
 * notice — it turns an exit it did not ask for into the worker's `error` — so `guardExits` does the
 * same for threads: every worker the pool starts is watched, and one that exits while the pool
 * still counts it (the pool removes a worker from its set before it terminates one itself) gets an
 * `error` naming the pool and the exit code. Tinypool then fails the worker's running task with
 * that error and drops the worker; the next task starts a new one.
 */
import type { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { ResourceLimits } from 'node:worker_threads';
import Tinypool from 'tinypool';

/** A handler name no task module exports (see the nudge below). */
const NUDGE = '__tinypoolExitNudge';

/** What the worker objects of `Tinypool#threads` offer (tinypool's ThreadWorker wraps a Worker). */
type PoolWorker = Pick<EventEmitter, 'on' | 'emit'>;

/** Thrown into a task whose worker exited under it. */
export class WorkerExitError extends Error {
  constructor(
    readonly pool: string,
    readonly exitCode: number,
  ) {
    super(`${pool}: a worker exited (code ${exitCode}) in the middle of a task`);
    this.name = 'WorkerExitError';
  }
}

/**
 * Watches `pool`'s workers (those it has, and those each `run` starts) and returns the same pool.
 * `onIdleError` hears a worker that died with no task on it (tinypool emits that on the pool, and
 * an `error` event nobody listens to would end the process).
 */
export function guardExits<P extends Tinypool>(
  pool: P,
  name: string,
  onIdleError: (e: Error) => void = () => {},
  onWorker: (w: PoolWorker) => void = () => {},
): P {
  const watched = new WeakSet<object>();
  const watchNew = (): void => {
    for (const w of pool.threads as unknown as PoolWorker[]) {
      if (watched.has(w)) continue;
      watched.add(w);
      onWorker(w);
      w.on('exit', (code: number) => {
        // Still in the pool's set: the pool did not end it; tell the pool the way its
        // child_process runtime would (it fails the running task and drops the worker).
        if (!(pool.threads as unknown as PoolWorker[]).includes(w)) return;
        w.emit('error', new WorkerExitError(name, code));
        // Tasks queued behind the dead one wait for a worker, and tinypool starts one only when a
        // task arrives (with minThreads 0): send it one, naming no handler, so it starts a
        // worker now; that task fails at once ("no handler") and nobody waits for it.
        if (pool.queueSize > 0) pool.run(null, { name: NUDGE }).catch(() => {});
      });
    }
  };
  pool.on('error', (e: unknown) => onIdleError(e instanceof Error ? e : new Error(String(e))));
  watchNew();
  const run = pool.run.bind(pool);
  // Workers are added synchronously inside run(): watch them before any can have exited.
  pool.run = ((task: unknown, options?: Parameters<P['run']>[1]) => {
    const p = run(task, options);
    watchNew();
    return p;
  }) as P['run'];
  return pool;
}

/**
 * A task module for tinypool: the built `<name>.js` when one of `built` exists (the app, the built
 * CLI), else the TypeScript source loaded through tsx (tests, `tsx` runs from a checkout). Tinypool
 * imports its task module by URL, so the source is wrapped in a `data:` module that registers tsx
 * in the worker first and re-exports the source's `exports`.
 */
export function taskModule(built: readonly string[], source: string, exports: readonly string[] = ['default']): string {
  for (const f of built) if (existsSync(f)) return f;
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const names = exports.map((n) => (n === 'default' ? 'export default m.default;' : `export const ${n} = m.${n};`)).join(' ');
  const boot = `const t = await import(${JSON.stringify(tsx)}); t.register(); const m = await import(${JSON.stringify(pathToFileURL(source).href)}); ${names}`;
  return `data:text/javascript,${encodeURIComponent(boot)}`;
}

/** A task that could not run: its workers died (see TaskPool), or the pool is closed. */
export class PoolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoolError';
  }
}

export interface TaskPoolOptions {
  /** Names the pool in errors ("token counting", "batch"). */
  readonly name: string;
  /** The task module (taskModule()): its default export runs a task, other exports by `name`. */
  readonly filename: string;
  readonly threads: number;
  /** Threads started at once and kept (default 0: started on demand, ended when idle). */
  readonly minThreads?: number;
  /** How long an idle thread above minThreads stays (tinypool's default when absent). */
  readonly idleMs?: number;
  /** Runs per task when its worker dies under it, the first included (default 2). */
  readonly attempts?: number;
  /** Worker deaths the pool survives over its life (default 2 × threads + 2); one more and it gives up. */
  readonly restarts?: number;
  readonly workerData?: unknown;
  /** Each worker's V8 limits (its heap's bound: a worker past it dies, and its task fails as a death). */
  readonly resourceLimits?: ResourceLimits;
  /** Hears a worker that died with no task on it. */
  readonly onIdleError?: (e: Error) => void;
}

/** How a worker died, from the error tinypool failed its task with. */
const howDied = (e: Error): string => (e instanceof WorkerExitError ? `exited (code ${e.exitCode})` : `threw ${e.message}`);

export class TaskPool {
  private readonly pool: Tinypool;
  /** Errors tinypool failed tasks with because their worker died (not because the task threw). */
  private readonly deaths = new WeakSet<Error>();
  private deathsLeft: number;
  private broken: PoolError | undefined;
  private closed = false;
  /** Rejecters of the tasks running or waiting: a pool that gives up fails them all at once. */
  private readonly waiting = new Set<(e: Error) => void>();
  /** Workers started over the pool's life (tests, the bench). */
  spawned = 0;

  constructor(private readonly options: TaskPoolOptions) {
    this.deathsLeft = options.restarts ?? 2 * options.threads + 2;
    this.pool = guardExits(
      new Tinypool({
        filename: options.filename,
        minThreads: options.minThreads ?? 0,
        maxThreads: options.threads,
        ...(options.idleMs !== undefined ? { idleTimeout: options.idleMs } : {}),
        ...(options.workerData !== undefined ? { workerData: options.workerData } : {}),
        ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
      }),
      options.name,
      (e) => {
        this.died(e);
        options.onIdleError?.(e);
      },
      (w) => {
        this.spawned++;
        // After tinypool's own listener (which fails the worker's task with this same error).
        w.on('error', (e: unknown) => {
          if (e instanceof Error) this.died(e);
        });
      },
    );
  }

  get threads(): number {
    return this.options.threads;
  }

  /** Runs `task` on a free worker (the module's export `name`, default its default export). */
  async run<R>(task: unknown, options: { readonly name?: string; readonly signal?: AbortSignal } = {}): Promise<R> {
    for (let tries = 1; ; tries++) {
      if (this.broken) throw this.broken;
      if (this.closed) throw new PoolError(`${this.options.name}: the worker pool is closed`);
      try {
        return await this.tracked<R>(this.pool.run(task, options) as Promise<R>);
      } catch (e) {
        if (this.broken) throw this.broken;
        if (!(e instanceof Error) || !this.deaths.has(e) || options.signal?.aborted) throw e;
        if (tries >= (this.options.attempts ?? 2))
          throw new PoolError(`${this.options.name}: a worker ${howDied(e)} in the middle of a task (${tries} time(s)); giving up on it`);
      }
    }
  }

  /**
   * Runs `task` once per thread, all at once (warming every worker: tinypool hands one task to each
   * idle worker); resolves when all have answered.
   */
  async each(task: unknown, options: { readonly name?: string } = {}): Promise<void> {
    await Promise.all(Array.from({ length: this.options.threads }, () => this.run(task, options)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new PoolError(`${this.options.name}: the worker pool was closed while tasks were waiting`));
    await this.pool.destroy();
  }

  private tracked<R>(p: Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.add(reject);
      p.then(resolve, reject).finally(() => this.waiting.delete(reject));
    });
  }

  private died(e: Error): void {
    if (this.deaths.has(e) || this.closed) return;
    this.deaths.add(e);
    if (--this.deathsLeft >= 0 || this.broken) return;
    this.broken = new PoolError(`${this.options.name}: workers keep dying (the last one ${howDied(e)}); no worker left to run the task`);
    this.fail(this.broken);
    void this.pool.destroy().catch(() => {});
  }

  private fail(e: Error): void {
    for (const reject of [...this.waiting]) reject(e);
    this.waiting.clear();
  }
}
