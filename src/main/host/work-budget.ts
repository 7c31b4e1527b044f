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
  /**
   * At most this many requests of a kind at once, memory allowing. A sweep already runs on every
   * core (one worker thread each): a second beside it only doubles the memory and takes the CPU
   * the request thread needs to answer (16 sweeps at once held a static GET for 24 s on 2 cores).
   */
  readonly maxRunning?: Readonly<Partial<Record<WorkKind, number>>>;
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
/**
 * What a worker holds of a session, per byte of its source (the parsed session, its counts and
 * facts, the replay's arrays): 16 sweeps of a 33.75 MB, 10,000-call session on 2 threads each,
 * 7 at once, peaked at 2.8 GB, ~345 MB a sweep, ~4 bytes a source byte per thread once the 32 MB
 * of each thread is taken off (`npm run bench -- tune-concurrent`).
 */
const HEAP_PER_SOURCE_BYTE = 4;
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
 * 2 GB, one sweep at a time; `CTXSCOPE_WORK_BUDGET_MB`, `CTXSCOPE_WORK_QUEUE` and
 * `CTXSCOPE_SWEEPS_AT_ONCE` override the budget, the queue and the sweeps at once.
 */
export function defaultWorkBudget(env: NodeJS.ProcessEnv = process.env, memory = totalmem()): WorkBudgetOptions {
  const mb = Number(env['CTXSCOPE_WORK_BUDGET_MB']);
  const queue = Number(env['CTXSCOPE_WORK_QUEUE']);
  const sweeps = Number(env['CTXSCOPE_SWEEPS_AT_ONCE']);
  return {
    budgetBytes: Number.isFinite(mb) && mb > 0 ? Math.round(mb * MB) : Math.min(2048 * MB, Math.max(512 * MB, Math.floor(memory / 4))),
    maxWaiting: Number.isInteger(queue) && queue >= 0 ? queue : 16,
    maxRunning: { sweep: Number.isInteger(sweeps) && sweeps > 0 ? sweeps : 1 },
  };
}

const inMb = (bytes: number): string => `${Math.ceil(bytes / MB)} MB`;

interface Waiter {
  readonly kind: WorkKind;
  readonly cost: number;
  readonly start: () => void;
}

export class WorkBudget {
  private used = 0;
  private running = 0;
  private readonly runningOf: Record<WorkKind, number> = { sweep: 0, export: 0, replay: 0 };
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
      this.runningOf[kind]--;
      this.startWaiting();
    }
  }

  stats(): WorkBudgetStats {
    return {
      running: this.running,
      usedBytes: this.used,
      waiting: this.queue.length,
      peakRunning: this.peakRunning,
      peakUsedBytes: this.peakUsed,
      refused: this.refused,
      budgetBytes: this.options.budgetBytes,
      maxWaiting: this.options.maxWaiting,
    };
  }

  /** Whether the memory allows `cost` now (anything runs when nothing else does). */
  private fits(cost: number): boolean {
    return this.running === 0 || this.used + cost <= this.options.budgetBytes;
  }

  /** Whether another request of `kind` may run beside those of its kind. */
  private slotFor(kind: WorkKind): boolean {
    return this.runningOf[kind] < (this.options.maxRunning?.[kind] ?? Number.POSITIVE_INFINITY);
  }

  private take(kind: WorkKind, cost: number): void {
    this.used += cost;
    this.running++;
    this.runningOf[kind]++;
    this.peakRunning = Math.max(this.peakRunning, this.running);
    this.peakUsed = Math.max(this.peakUsed, this.used);
  }

  private admit(kind: WorkKind, cost: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new ApiError('cancelled', String(signal.reason ?? 'cancelled')));
    // First come, first served for memory: nothing overtakes a request waiting for room (one
    // waiting only for a slot of its kind may be passed by requests of other kinds).
    if (!this.queue.some((w) => this.slotFor(w.kind)) && this.fits(cost) && this.slotFor(kind)) {
      this.take(kind, cost);
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
        kind,
        cost,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.take(kind, cost);
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

  /** Starts waiting requests in order: one that lacks room stops the rest; one that lacks a slot of its kind is passed. */
  private startWaiting(): void {
    for (let i = 0; i < this.queue.length;) {
      const w = this.queue[i]!;
      if (!this.slotFor(w.kind)) {
        i++;
        continue;
      }
      if (!this.fits(w.cost)) return;
      this.queue.splice(i, 1);
      w.start();
    }
  }
}
