/**
 * One queue and one memory budget for the host's heavy requests — tuner sweeps, exports (and the
 * replays they need) and API replays (runReplay, compare) — shared by `ctxscope serve` and the
 * Electron app (both use this host). Every such request says what it will hold in memory (an
 * estimate from the size of its session's source, `costOf`); it starts when that fits beside what
 * runs already, else it waits in a first-in, first-out queue; when the queue is full it is refused
 * at once with `busy` (HTTP 409) and a message saying why. A request larger than the whole budget
 * runs alone. Without this, sixteen concurrent sweeps each started worker threads of their own,
 * each holding a copy of the session (docs/limits.md, "Bounds").
 *
 * The debugger's own chart and step views are not queued here: they run one at a time on the
 * replay worker, superseded per channel (replay-client.ts), so a queue of sweeps never holds up
 * the chart being drawn.
 */
import { totalmem } from 'node:os';
import { ApiError } from '../../shared/api';

export type WorkKind = 'sweep' | 'export' | 'replay';

export interface WorkBudgetOptions {
  /** Bytes the running requests may hold at once (their estimates summed). */
  readonly budgetBytes: number;
  /** Requests that may wait for room; one more is refused with `busy`. */
  readonly maxWaiting: number;
}

/** What the budget holds now, and the most it ever held (tests, the bench). */
export interface WorkBudgetStats {
  readonly running: number;
  readonly usedBytes: number;
  readonly waiting: number;
  readonly peakRunning: number;
  readonly peakUsedBytes: number;
  readonly refused: number;
  readonly budgetBytes: number;
  readonly maxWaiting: number;
}

const MB = 1024 * 1024;
/** A parsed session in a V8 heap is about three times its source's bytes (strings, objects, typed arrays of counts). */
const HEAP_PER_SOURCE_BYTE = 3;
/** What a worker thread holds before any session: its isolate, the bundle, the tokenizer tables. */
const THREAD_BYTES = 32 * MB;

/**
 * The estimate of what a request holds: a sweep holds the session once per worker thread it uses,
 * an export once in its worker (plus the replay it reads), a replay once in the replay worker.
 */
export function costOf(kind: WorkKind, sourceBytes: number, threads = 1): number {
  const session = Math.max(1, sourceBytes) * HEAP_PER_SOURCE_BYTE;
  if (kind === 'sweep') return Math.max(1, threads) * (session + THREAD_BYTES);
  if (kind === 'export') return session + THREAD_BYTES;
  return session;
}

/**
 * The budget unless configured: a quarter of this machine's memory, at least 512 MB and at most
 * 2 GB; `CTXSCOPE_WORK_BUDGET_MB` and `CTXSCOPE_WORK_QUEUE` override the budget and the queue.
 */
export function defaultWorkBudget(env: NodeJS.ProcessEnv = process.env, memory = totalmem()): WorkBudgetOptions {
  const mb = Number(env['CTXSCOPE_WORK_BUDGET_MB']);
  const queue = Number(env['CTXSCOPE_WORK_QUEUE']);
  return {
    budgetBytes: Number.isFinite(mb) && mb > 0 ? Math.round(mb * MB) : Math.min(2048 * MB, Math.max(512 * MB, Math.floor(memory / 4))),
    maxWaiting: Number.isInteger(queue) && queue >= 0 ? queue : 16,
  };
}

const inMb = (bytes: number): string => `${Math.ceil(bytes / MB)} MB`;

interface Waiter {
  readonly cost: number;
  readonly start: () => void;
}

export class WorkBudget {
  private used = 0;
  private running = 0;
  private readonly queue: Waiter[] = [];
  private peakRunning = 0;
  private peakUsed = 0;
  private refused = 0;

  constructor(readonly options: WorkBudgetOptions) {}

  /**
   * Runs `work` once `cost` bytes fit in the budget (at once, or after waiting its turn). Refused
   * with `busy` when the queue is full; answers `cancelled` when `signal` aborts while it waits.
   */
  async run<T>(kind: WorkKind, cost: number, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    // A request larger than the budget runs alone: its cost is counted as the whole budget.
    const held = Math.min(Math.max(0, cost), this.options.budgetBytes);
    await this.admit(kind, held, signal);
    try {
      return await work();
    } finally {
      this.used -= held;
      this.running--;
      this.startWaiting();
    }
  }

  stats(): WorkBudgetStats {
    return { running: this.running, usedBytes: this.used, waiting: this.queue.length, peakRunning: this.peakRunning, peakUsedBytes: this.peakUsed, refused: this.refused, budgetBytes: this.options.budgetBytes, maxWaiting: this.options.maxWaiting };
  }

  private fits(cost: number): boolean {
    return this.running === 0 || this.used + cost <= this.options.budgetBytes;
  }

  private take(cost: number): void {
    this.used += cost;
    this.running++;
    this.peakRunning = Math.max(this.peakRunning, this.running);
    this.peakUsed = Math.max(this.peakUsed, this.used);
  }

  private admit(kind: WorkKind, cost: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new ApiError('cancelled', String(signal.reason ?? 'cancelled')));
    // First come, first served: nothing overtakes a request already waiting.
    if (this.queue.length === 0 && this.fits(cost)) {
      this.take(cost);
      return Promise.resolve();
    }
    if (this.queue.length >= this.options.maxWaiting) {
      this.refused++;
      return Promise.reject(
        new ApiError(
          'busy',
          `busy: this ${kind} needs about ${inMb(cost)} of the host's ${inMb(this.options.budgetBytes)} memory budget; ${this.running} request(s) running hold ${inMb(this.used)} and ${this.queue.length} wait (the queue holds at most ${this.options.maxWaiting}). Try again when one finishes, or raise CTXSCOPE_WORK_BUDGET_MB / CTXSCOPE_WORK_QUEUE.`,
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        cost,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.take(cost);
          resolve();
        },
      };
      const onAbort = (): void => {
        const at = this.queue.indexOf(waiter);
        if (at < 0) return;
        this.queue.splice(at, 1);
        reject(new ApiError('cancelled', String(signal?.reason ?? 'cancelled')));
        // The one behind may fit now that this one left the head of the queue.
        this.startWaiting();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private startWaiting(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0]!.cost)) this.queue.shift()!.start();
  }
}
