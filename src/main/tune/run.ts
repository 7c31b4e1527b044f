/**
 * Runs a sweep (src/core/tune) on worker threads. A `TunePool` keeps its workers warm between
 * sweeps (the host holds one): each worker holds the last session it was sent, so a second sweep
 * on the same session sends it nothing but the settings. The session crosses to a worker once per
 * version (see protocol.ts); counts are the host's stored ones, or made ONCE by one worker and
 * sent to the others; facts are extracted ONCE per session version, by the first worker, and sent
 * with the session to the others (retention.ts provideFactIndex), so no thread extracts them twice. The grid is scrambled and handed out in shrinking slices, so the
 * workers finish together. Workers come from the project's pool (src/main/worker-pool.ts: a dead
 * worker is replaced and its slice tried again). An abort (a newer sweep, the user, Ctrl-C) ends
 * the workers at once; the next sweep starts new ones.
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, envOverrides, resolveConfig, type Overrides, type ReplayConfigInput } from '../../core/config';
import { configFields } from '../../core/config-fields';
import type { Session } from '../../core/model';
import { stepIndices } from '../../core/model';
import type { SessionCounts } from '../../core/tokens/index';
import { checkSweeps, expandGrid, parseSweep, SweepError, tuneResult, type TuneOutcome, type TuneResult } from '../../core/tune/index';
import { TaskPool, taskModule } from '../worker-pool';
import type { FactIndex } from '../../core/replay/retention';
import { countsKey, type CountsPayload, type TuneJob, type TunePrepareJob, type TuneReplayJob, type TuneReply } from './protocol';

export class TuneCancelled extends Error {
  constructor(why: string) {
    super(why);
    this.name = 'TuneCancelled';
  }
}

export interface TuneOptions {
  readonly session: Session;
  readonly policy: { readonly id: string; readonly config: ReplayConfigInput };
  /** Sweep specs: `key=from:to:step` or `key=a,b,c`. */
  readonly sweeps: readonly string[];
  /** The user's own overrides, under the swept keys. */
  readonly baseOverrides?: Overrides;
  readonly needles?: readonly string[];
  /** Ids of messages the user pinned. */
  readonly pins?: readonly string[];
  /** Stored counts for a tokenizer (the host's SQLite cache), used when they match the base config. */
  readonly storedCounts?: (tokenizer: string) => SessionCounts | undefined;
  /** Threads (default: every core, at most one per setting). */
  readonly threads?: number;
  readonly signal?: AbortSignal;
  /** The task module (tests, bench); default: tune-worker beside this file, built or from source. */
  readonly filename?: string;
}

export function tuneWorkerModule(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // Built: beside the bundle that holds this code (out/main, out/cli or its chunks/); else the source through tsx.
  return taskModule([join(here, 'tune-worker.js'), join(here, '..', 'tune-worker.js')], join(here, 'tune-worker.ts'));
}

/**
 * Grid positions in an order that spreads neighbours apart (a stride coprime with n): adjacent
 * settings cost alike (a low trigger compresses often), so any slice of this order costs about
 * its share, and a last sweep of two values does not put every `true` on one worker.
 */
export function scrambled(n: number): number[] {
  if (n <= 2) return Array.from({ length: n }, (_, i) => i);
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let stride = Math.max(1, Math.round(n * 0.618));
  while (gcd(stride, n) !== 1) stride++;
  return Array.from({ length: n }, (_, k) => (k * stride) % n);
}

/**
 * Slice sizes that shrink as the grid is used up (guided scheduling): each is the remainder over
 * twice the threads, at least 1 — few messages, and the last slices are single settings, so no
 * worker is left with a long slice while the other is idle.
 */
export function guidedSlices(n: number, threads: number): number[] {
  const out: number[] = [];
  for (let left = n; left > 0;) {
    const size = Math.max(1, Math.ceil(left / (2 * threads)));
    out.push(size);
    left -= size;
  }
  return out;
}

/** A stable id for stored counts: a reload of the same counts keeps it, new (exact) counts change it. */
const storedId = (sessionKey: string, c: SessionCounts): string =>
  `${sessionKey}\u0001stored\u0001${c.tokenizer}\u0001${c.perMessage.length}\u0001${c.prefix[c.prefix.length - 1]}\u0001${c.system}\u0001${c.tools}\u0001${c.unlogged}\u0001${c.approximate}`;

/**
 * Worker threads kept between sweeps. One sweep at a time uses the warm workers; a sweep that
 * starts while another runs (another channel) gets workers of its own for its duration.
 */
export class TunePool {
  private pool: TaskPool | undefined;
  private poolSize = 0;
  private busy = false;
  /** Session versions: a new Session object (a tail append, a reload) is a new version. */
  private readonly versions = new WeakMap<Session, number>();
  private nextVersion = 1;
  /** What a worker made for a session version (its facts; counts when none were stored), kept to send to the other workers and later sweeps. */
  private prepared: { sessionKey: string; facts: FactIndex; counts: CountsPayload | undefined } | undefined;
  /** Workers the pools dropped so far had started. */
  private spawnedBefore = 0;
  private idle: ReturnType<typeof setTimeout> | undefined;

  /**
   * `idleMs`: after this long with no sweep the workers end and their sessions' memory is given
   * back (default 10 minutes; the next sweep is then a first sweep again).
   */
  constructor(private readonly options: { readonly threads?: number; readonly filename?: string; readonly idleMs?: number } = {}) {}

  /** Workers started over the pool's life (tests: a warm sweep starts none). */
  get spawned(): number {
    return this.spawnedBefore + (this.pool?.spawned ?? 0);
  }

  /** The key a session travels under: its id and the version of the host's copy. */
  sessionKey(session: Session): string {
    let v = this.versions.get(session);
    if (v === undefined) this.versions.set(session, (v = this.nextVersion++));
    return `${session.id}\u0000${v}`;
  }

  /**
   * Parses and checks the sweeps against the policy's settings, expands the grid and replays it.
   * Throws SweepError for a bad sweep (naming the key and what was expected), TuneCancelled when
   * aborted.
   */
  async sweep(o: TuneOptions): Promise<TuneResult> {
    if (this.busy) {
      const own = new TunePool({ ...this.options, ...(o.filename ? { filename: o.filename } : {}) });
      try {
        return await own.sweep(o);
      } finally {
        await own.close();
      }
    }
    this.busy = true;
    clearTimeout(this.idle);
    try {
      return await this.sweepWarm(o);
    } finally {
      this.busy = false;
      if (this.pool) {
        this.idle = setTimeout(() => void this.dropWorkers(), this.options.idleMs ?? 10 * 60_000);
        // A waiting timer never keeps a CLI or a test process alive.
        this.idle.unref?.();
      }
    }
  }

  private async sweepWarm(o: TuneOptions): Promise<TuneResult> {
    const started = performance.now();
    const env = envOverrides(process.env);
    const base = o.baseOverrides ?? {};
    const sweeps = o.sweeps.map(parseSweep);
    let fields;
    try {
      fields = configFields(o.policy.config, base, { env });
    } catch (e) {
      if (e instanceof ConfigError) throw new SweepError(e.message);
      throw e;
    }
    checkSweeps(sweeps, fields);
    const settings = expandGrid(sweeps, base);
    // The first setting resolved here: a value the schema refuses in combination fails at once, not once per setting.
    let config;
    try {
      config = resolveConfig(o.policy.config, settings[0]!, env);
    } catch (e) {
      if (e instanceof ConfigError) throw new SweepError(`--sweep: ${e.message}`);
      throw e;
    }
    if (o.signal?.aborted) throw new TuneCancelled(String(o.signal.reason ?? 'cancelled'));
    const threads = Math.max(1, Math.min(o.threads ?? this.options.threads ?? availableParallelism(), settings.length));
    const pool = this.workers(threads, o.filename);
    const session = o.session;
    const sessionKey = this.sessionKey(session);
    const ck = countsKey(session, config);

    const outcomes = new Array<TuneOutcome>(settings.length);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new TuneCancelled(String(o.signal?.reason ?? 'cancelled')));
      o.signal?.addEventListener('abort', onAbort, { once: true });
    });
    aborted.catch(() => {});
    let cancelled = false;
    try {
      const work = async (): Promise<void> => {
        const { facts, payload } = await this.prepare(pool, o, session, sessionKey, config, ck);
        const order = scrambled(settings.length);
        const slices: number[][] = [];
        let at = 0;
        for (const size of guidedSlices(settings.length, threads)) slices.push(order.slice(at, (at += size)));
        const job = (indices: number[]): TuneReplayJob => ({
          kind: 'replay',
          sessionKey,
          ...(payload ? { countsId: payload.id } : {}),
          policyConfig: o.policy.config,
          env,
          needles: o.needles ?? [],
          pins: o.pins ?? [],
          indices,
          settings: indices.map((i) => settings[i]!),
        });
        // One runner per thread, each pulling the next slice when its last is done.
        let next = 0;
        const runner = async (): Promise<void> => {
          while (next < slices.length && !cancelled) {
            const j = job(slices[next++]!);
            let r = await pool.run<TuneReply>(j);
            // A worker new to this session (or these counts) asks for them. The pool may hand the
            // job sent again to another worker than the one that asked, so it carries both: any
            // worker can answer it.
            if ('missing' in r) r = await pool.run<TuneReply>({ ...j, session, facts, ...(payload ? { counts: payload } : {}) });
            if (!('outcomes' in r))
              throw new Error(`tuner: a worker answered a replay job without outcomes (${JSON.stringify(r).slice(0, 120)})`);
            for (const out of r.outcomes) outcomes[out.index] = out;
          }
        };
        await Promise.all(Array.from({ length: threads }, runner));
      };
      const running = work();
      // Once aborted, the runners' pending jobs fail as the pool closes: nobody awaits them then.
      running.catch(() => {});
      await Promise.race([running, aborted]);
    } catch (e) {
      cancelled = true;
      // Cancelled (or a pool failure): the workers end at once; the next sweep starts warm ones again.
      await this.dropWorkers();
      throw e;
    } finally {
      if (onAbort) o.signal?.removeEventListener('abort', onAbort);
    }
    return tuneResult(
      {
        policy: o.policy.id,
        sweeps,
        baseOverrides: base,
        needles: o.needles ?? [],
        calls: stepIndices(session.messages).length,
        elapsedMs: performance.now() - started,
        threads,
      },
      outcomes,
    );
  }

  /**
   * The session's facts, extracted by ONE worker per session version, and the counts every worker
   * replays the base tokenizer with: the host's stored ones when they match, else the ones a worker
   * made for this session version, else made now by that one worker beside the facts. Both are
   * kept for the other workers (sent with the session) and later sweeps.
   */
  private async prepare(
    pool: TaskPool,
    o: TuneOptions,
    session: Session,
    sessionKey: string,
    config: { mediaTokens?: number | undefined; schemaScale: number },
    ck: { key: string; tokenizer: string; mediaTokens: number },
  ): Promise<{ facts: FactIndex; payload: CountsPayload }> {
    const usable = config.mediaTokens === undefined && config.schemaScale === 1 ? o.storedCounts?.(ck.tokenizer) : undefined;
    const stored =
      usable && usable.perMessage.length === session.messages.length
        ? { id: storedId(sessionKey, usable), key: ck.key, counts: usable }
        : undefined;
    const had = this.prepared?.sessionKey === sessionKey ? this.prepared : undefined;
    const made = had?.counts?.key === ck.key ? had.counts : undefined;
    if (had && (stored ?? made)) return { facts: had.facts, payload: (stored ?? made)! };
    const countsId = `${sessionKey}\u0001worker\u0001${ck.key}`;
    const job: TunePrepareJob = {
      kind: 'prepare',
      sessionKey,
      ...((stored ?? made)
        ? {}
        : { count: { countsId, key: ck.key, tokenizer: ck.tokenizer, mediaTokens: ck.mediaTokens, schemaScale: config.schemaScale } }),
    };
    let r = await pool.run<TuneReply>(job);
    if ('missing' in r) r = await pool.run<TuneReply>({ ...job, session });
    if (!('prepared' in r)) throw new Error('tuner: the worker asked to prepare the session answered without its facts');
    const counted = r.prepared.counts ? { id: countsId, key: ck.key, counts: r.prepared.counts } : made;
    const payload = stored ?? counted;
    if (!payload) throw new Error('tuner: the worker asked to count the session answered without counts');
    this.prepared = { sessionKey, facts: r.prepared.facts, counts: counted ?? had?.counts };
    return { facts: r.prepared.facts, payload };
  }

  private workers(threads: number, filename?: string): TaskPool {
    if (this.pool && this.poolSize === threads) return this.pool;
    void this.dropWorkers();
    this.pool = new TaskPool({
      name: 'tuner',
      filename: filename ?? this.options.filename ?? tuneWorkerModule(),
      threads,
      // Every thread starts now and stays warm between sweeps (until idleMs or close()).
      minThreads: threads,
    });
    this.poolSize = threads;
    return this.pool;
  }

  private async dropWorkers(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    this.spawnedBefore += p?.spawned ?? 0;
    await p?.close();
  }

  /**
   * A session changed or went away (tail append, delete): its counts made here are dropped, and
   * the workers' copies too when the pool is idle (a running sweep keeps its own until it ends;
   * the next sweep's new version key evicts them anyway).
   */
  forget(sessionId: string): void {
    if (this.prepared?.sessionKey.startsWith(`${sessionId}\u0000`)) this.prepared = undefined;
    if (this.pool && !this.busy) void this.pool.each({ kind: 'forget' } satisfies TuneJob).catch(() => {});
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    this.prepared = undefined;
    await this.dropWorkers();
  }
}

/** One sweep on workers of its own, ended after it (the CLI: one sweep per process). */
export async function runTune(o: TuneOptions): Promise<TuneResult> {
  const pool = new TunePool();
  try {
    return await pool.sweep(o);
  } finally {
    await pool.close();
  }
}
