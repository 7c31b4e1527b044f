/**
 * A small pool of worker threads that survives its workers dying. Each worker runs one job at a
 * time; a worker that exits or throws while on a job is replaced and the job tried again, a
 * bounded number of times, and then the job fails with a message that says which pool, which exit
 * code and what the worker said. When workers keep dying (a broken script, no memory), the pool
 * gives up: every queued and later job fails at once, instead of waiting for a reply that will
 * never come (docs/reliability.md).
 *
 * Only the fleet runner (src/main/fleet/run.ts) still starts one; every other pool is a tinypool
 * TaskPool (src/main/worker-pool.ts), where the fleet's should move too.
 */
import type { Worker } from 'node:worker_threads';

export interface PoolOptions {
  /** Names the pool in errors ("token counting", "batch"). */
  readonly name: string;
  readonly size: number;
  readonly spawn: () => Worker;
  /** Tries per job, the first included (default 2). */
  readonly attempts?: number;
  /** Workers the pool may start to replace dead ones, over its lifetime (default 2 × size + 2). */
  readonly restarts?: number;
}

interface Pending<R> {
  readonly id: number;
  /** Sent with its `id`, which the worker echoes in its reply (a stale reply is never taken). */
  readonly message: object;
  tries: number;
  readonly resolve: (r: R) => void;
  readonly reject: (e: Error) => void;
}

interface Slot<R> {
  worker: Worker;
  busy?: Pending<R>;
  /** Set once this slot's worker is known dead (exit and error can both arrive). */
  dead: boolean;
}

export class PoolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoolError';
  }
}

export class WorkerPool<M extends object, R extends { id: number }> {
  private readonly slots: Slot<R>[] = [];
  private readonly queue: Pending<R>[] = [];
  private nextId = 0;
  private restartsLeft: number;
  private broken: Error | undefined;
  private closed = false;

  constructor(private readonly options: PoolOptions) {
    this.restartsLeft = options.restarts ?? 2 * options.size + 2;
    for (let i = 0; i < options.size; i++) this.slots.push(this.start());
  }

  /** Runs one job on the next free worker; resolves with the worker's reply. */
  run(message: M): Promise<R> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new PoolError(`${this.options.name}: the worker pool is closed`));
    return new Promise<R>((resolve, reject) => {
      const id = this.nextId++;
      this.queue.push({ id, message: { ...message, id }, tries: 0, resolve, reject });
      this.dispatch();
    });
  }

  /** Sends a job to every worker at once (warming caches); resolves when all have answered. */
  async each(message: M): Promise<void> {
    await Promise.all(this.slots.map(() => this.run(message)));
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = this.slots.map((s) => s.worker);
    this.slots.length = 0;
    this.fail(new PoolError(`${this.options.name}: the worker pool was closed while jobs were waiting`));
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private start(): Slot<R> {
    const worker = this.options.spawn();
    const slot: Slot<R> = { worker, dead: false };
    worker.on('message', (reply: R) => {
      const job = slot.busy;
      if (!job || reply.id !== job.id) return;
      slot.busy = undefined;
      job.resolve(reply);
      this.dispatch();
    });
    worker.on('error', (e: Error) => this.died(slot, `threw ${e.message}`));
    worker.on('messageerror', (e: Error) => this.died(slot, `sent a message that could not be read (${e.message})`));
    worker.on('exit', (code: number) => this.died(slot, `exited with code ${code}`));
    return slot;
  }

  private died(slot: Slot<R>, how: string): void {
    if (slot.dead || this.closed) return;
    slot.dead = true;
    void slot.worker.terminate();
    const index = this.slots.indexOf(slot);
    const job = slot.busy;
    slot.busy = undefined;
    if (job) {
      if (job.tries >= (this.options.attempts ?? 2))
        job.reject(new PoolError(`${this.options.name}: a worker ${how} on this job, ${job.tries} time(s); giving up on it`));
      else this.queue.unshift(job);
    }
    if (this.restartsLeft <= 0) {
      this.slots.splice(index, 1);
      if (this.slots.every((s) => s.dead)) {
        this.broken = new PoolError(`${this.options.name}: workers keep dying (the last one ${how}); no worker left to run the job`);
        this.fail(this.broken);
      }
      return;
    }
    this.restartsLeft--;
    this.slots[index] = this.start();
    this.dispatch();
  }

  private fail(e: Error): void {
    for (const job of this.queue.splice(0)) job.reject(e);
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy || slot.dead) continue;
      const job = this.queue.shift();
      if (!job) return;
      job.tries++;
      slot.busy = job;
      slot.worker.postMessage(job.message);
    }
  }
}
