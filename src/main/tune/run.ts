/**
 * Runs a sweep (src/core/tune) on worker threads: the grid is cut into slices, each worker
 * replays the session it was started with under every setting of the slices it gets (the session
 * and its counts cross to each worker once, in workerData — never loaded or counted per setting),
 * and the outcomes come back to be weighed in this thread. Workers come from the project's pool
 * (src/main/count/pool.ts: a dead worker is replaced and its slice tried again). An abort signal
 * (a newer sweep, the user, Ctrl-C) ends the workers at once.
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { ConfigError, envOverrides, resolveConfig, type Overrides, type ReplayConfigInput } from '../../core/config';
import { configFields } from '../../core/config-fields';
import type { Session } from '../../core/model';
import { stepIndices } from '../../core/model';
import type { SessionCounts } from '../../core/tokens/index';
import { checkSweeps, expandGrid, parseSweep, SweepError, tuneResult, type TuneOutcome, type TuneResult } from '../../core/tune/index';
import { WorkerPool } from '../count/pool';
import { startWorker } from '../workers';
import { countsKey, type TuneJob, type TuneReply, type TuneWorkerData } from './protocol';

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
  /** Threads (default: every core, at most one per slice). */
  readonly threads?: number;
  readonly signal?: AbortSignal;
  /** Starts a worker (tests); default: tune-worker beside this file, built or from source. */
  readonly spawn?: (data: TuneWorkerData) => Worker;
}

/** Slices per thread: small enough to balance uneven replays, few enough to keep messages rare. */
const SLICES_PER_THREAD = 4;

function defaultSpawn(data: TuneWorkerData): Worker {
  const here = dirname(fileURLToPath(import.meta.url));
  // Built: beside the bundle that holds this code (out/main, out/cli or its chunks/); else the source through tsx.
  return startWorker([join(here, 'tune-worker.js'), join(here, '..', 'tune-worker.js')], join(here, 'tune-worker.ts'), { workerData: data });
}

/**
 * Parses and checks the sweeps against the policy's settings, expands the grid and replays it.
 * Throws SweepError for a bad sweep (naming the key and what was expected), TuneCancelled when
 * aborted.
 */
export async function runTune(o: TuneOptions): Promise<TuneResult> {
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
  const { key, tokenizer } = countsKey(o.session, config);
  const stored = config.mediaTokens === undefined && config.schemaScale === 1 ? o.storedCounts?.(tokenizer) : undefined;
  const counts = stored && stored.perMessage.length === o.session.messages.length ? { key, counts: stored } : undefined;
  const data: TuneWorkerData = { session: o.session, ...(counts ? { counts } : {}), policyConfig: o.policy.config, env, needles: o.needles ?? [], pins: o.pins ?? [] };

  const threads = Math.max(1, Math.min(o.threads ?? availableParallelism(), settings.length));
  const sliceSize = Math.max(1, Math.ceil(settings.length / (threads * SLICES_PER_THREAD)));
  if (o.signal?.aborted) throw new TuneCancelled(String(o.signal.reason ?? 'cancelled'));
  const spawn = o.spawn ?? defaultSpawn;
  const pool = new WorkerPool<TuneJob, TuneReply>({ name: 'tuner', size: threads, spawn: () => spawn(data) });
  const outcomes = new Array<TuneOutcome>(settings.length);
  let onAbort: (() => void) | undefined;
  try {
    const work = Promise.all(
      Array.from({ length: Math.ceil(settings.length / sliceSize) }, (_, i) =>
        pool.run({ first: i * sliceSize, settings: settings.slice(i * sliceSize, (i + 1) * sliceSize) }).then((r) => {
          for (const out of r.outcomes) outcomes[out.index] = out;
        }),
      ),
    );
    // A running slice's promise never settles once its worker is ended: the abort wins the race instead.
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new TuneCancelled(String(o.signal?.reason ?? 'cancelled')));
      o.signal?.addEventListener('abort', onAbort, { once: true });
    });
    await Promise.race([work, aborted]);
  } finally {
    if (onAbort) o.signal?.removeEventListener('abort', onAbort);
    await pool.close();
  }
  return tuneResult({ policy: o.policy.id, sweeps, baseOverrides: base, needles: o.needles ?? [], calls: stepIndices(o.session.messages).length, elapsedMs: performance.now() - started, threads }, outcomes);
}
