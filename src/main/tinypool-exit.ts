/**
 * Tinypool 2.2 (worker_threads runtime) does not notice a worker that exits without an error in
 * the middle of a task (`process.exit` in a native module or a dependency, say): the task waits
 * forever and `destroy()` waits for an exit that already happened. Its child_process runtime does
 * notice — it turns an exit it did not ask for into the worker's `error` — so this does the same
 * for threads: every worker the pool starts is watched, and one that exits while the pool still
 * counts it (the pool removes a worker from its set before it terminates one itself) gets an
 * `error` naming the pool and the exit code. Tinypool then fails the worker's running task with
 * that error and drops the worker; the next task starts a new one. The one helper every tinypool
 * pool of the project goes through (the hand-written WorkerPool in count/pool.ts handles `exit`
 * itself).
 */
import type { EventEmitter } from 'node:events';
import type Tinypool from 'tinypool';

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
export function guardExits<P extends Tinypool>(pool: P, name: string, onIdleError: (e: Error) => void = () => {}): P {
  const watched = new WeakSet<object>();
  const watchNew = (): void => {
    for (const w of pool.threads as unknown as PoolWorker[]) {
      if (watched.has(w)) continue;
      watched.add(w);
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
