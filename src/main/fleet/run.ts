/**
 * A fleet run: the transcripts of one shard replayed under every policy on worker threads, the
 * rows written by one FleetWriter, the manifest kept up to date. Used by `ctxscope fleet run` and
 * by the app's Fleet view (src/main/host/fleet.ts). docs/fleet.md says what each step guarantees.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  MANIFEST_VERSION,
  parseManifest,
  sameSettings,
  shardName,
  withShard,
  type FleetManifest,
  type FleetPolicy,
  type RowCounts,
  type ShardRecord,
} from '../../core/fleet/manifest';
import { errorRow, StepColumnsBuilder } from '../../core/fleet/rows';
import { inShard, UNSHARDED, type Shard } from '../../core/fleet/shard';
import { FLEET_TABLES } from '../../core/fleet/sql';
import { TaskPool, taskModule } from '../worker-pool';
import { manifestPath, readManifest, withDataset } from './dataset';
import type { FleetJob, FleetPolicyJob, FleetReply } from './protocol';
import { FLUSH_SESSIONS, FLUSH_STEPS, FleetWriter, removeOrphans } from './writer';

export class FleetRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FleetRefusal';
  }
}

export interface FleetRunOptions {
  /** Transcript files (already expanded from folders and globs), in a stable order. */
  readonly files: readonly string[];
  /** The arguments as given, for the manifest. */
  readonly inputs: readonly string[];
  readonly policies: readonly (FleetPolicy & Pick<FleetPolicyJob, 'config'>)[];
  readonly needles: readonly string[];
  readonly out: string;
  readonly version: string;
  readonly format?: string;
  readonly threads?: number;
  readonly shard?: Shard;
  readonly overwrite?: boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: FleetProgress) => void;
  /** Session rows buffered before part files are written (default FLUSH_SESSIONS; tests make it small). */
  readonly flushSessions?: number;
  /** The worker's task module (default: the built fleet-worker.js, else its source through tsx). */
  readonly workerModule?: string;
}

export interface FleetProgress {
  /** Transcripts of this shard handled (replayed, failed or already written). */
  readonly done: number;
  readonly total: number;
  readonly skipped: number;
  readonly errors: number;
  readonly sessionsWritten: number;
  readonly elapsedMs: number;
  /** Transcripts per second so far, and the time left at that rate (null before the first). */
  readonly rate: number | null;
  readonly etaMs: number | null;
  readonly file?: string;
}

export interface FleetRunResult extends FleetProgress {
  readonly out: string;
  readonly shard: Shard;
  readonly rows: RowCounts;
  /** Files whose bytes differ from what the dataset holds rows for: not replayed (docs/fleet.md §Reruns). */
  readonly changed: readonly string[];
  readonly cancelled: boolean;
  readonly manifest: FleetManifest;
}

const OWN_DIRS = [...FLEET_TABLES, 'manifests'];

function writeJSONAtomic(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
  renameSync(tmp, file);
}

/** The manifest.json of DIR: the run's settings and every shard record written so far. */
function rebuildManifest(dir: string, base: FleetManifest): FleetManifest {
  let m: FleetManifest = { ...base, shards: [], rows: { sessions: 0, steps: 0, compressions: 0 } };
  const folder = join(dir, 'manifests');
  if (existsSync(folder)) {
    for (const f of readdirSync(folder)
      .filter((f) => /^shard-\d+-of-\d+\.json$/.test(f))
      .sort()) {
      m = withShard(m, JSON.parse(readFileSync(join(folder, f), 'utf8')) as ShardRecord);
    }
  }
  writeJSONAtomic(manifestPath(dir), m);
  return m;
}

/** Refuses a DIR written with other settings (or not by a fleet run) unless `overwrite`, which clears what a run writes. */
function prepareDir(dir: string, wanted: FleetManifest, overwrite: boolean): void {
  if (existsSync(dir)) {
    let existing: FleetManifest | null = null;
    try {
      existing = readManifest(dir);
    } catch (e) {
      if (!overwrite) throw new FleetRefusal(`${e instanceof Error ? e.message : String(e)}; rerun with --overwrite to replace it`);
    }
    const entries = readdirSync(dir);
    if (!overwrite) {
      if (!existing && entries.some((e) => OWN_DIRS.includes(e)))
        throw new FleetRefusal(`${dir}: holds fleet tables but no manifest.json; rerun with --overwrite to replace them`);
      const problem = existing ? sameSettings(existing, wanted) : null;
      if (problem)
        throw new FleetRefusal(
          `${dir} was written with other settings: ${problem}; rerun with --overwrite to replace it, or choose another --out`,
        );
    } else {
      for (const d of OWN_DIRS) rmSync(join(dir, d), { recursive: true, force: true });
      rmSync(manifestPath(dir), { force: true });
    }
  }
  mkdirSync(dir, { recursive: true });
}

/** What DIR already holds, per path: the file's hash and the policies written. */
async function doneSoFar(dir: string): Promise<Map<string, { hash: string; policies: string[] }>> {
  const done = new Map<string, { hash: string; policies: string[] }>();
  if (!readManifest(dir)) return done;
  await withDataset(dir, async (d) => {
    const r = await d.query(
      `SELECT source_path, any_value(file_hash) AS hash, string_agg(DISTINCT policy, '\u0001') AS policies FROM sessions GROUP BY source_path`,
    );
    for (const row of r.rows)
      done.set(String(row['source_path']), { hash: String(row['hash']), policies: String(row['policies'] ?? '').split('\u0001') });
  });
  return done;
}

/** Rows (and error rows) in the part files this shard wrote, over all its runs. */
async function shardRows(dir: string, shard: Shard): Promise<{ rows: RowCounts; errors: number }> {
  const rows: RowCounts = { sessions: 0, steps: 0, compressions: 0 };
  let errors = 0;
  const mine = `'%/part-${shardName(shard)}-%'`;
  await withDataset(dir, async (d) => {
    for (const t of FLEET_TABLES) {
      if (!existsSync(join(dir, t))) continue;
      const glob = `${join(dir, t).replace(/'/g, "''")}/*/*.parquet`;
      const r = await d.query(
        `SELECT count(*) AS n${t === 'sessions' ? ", count(*) FILTER (WHERE status = 'error') AS e" : ''} FROM read_parquet('${glob}', filename = true) WHERE replace(filename, '\\', '/') LIKE ${mine}`,
      );
      rows[t] = Number(r.rows[0]?.['n'] ?? 0);
      if (t === 'sessions') errors = Number(r.rows[0]?.['e'] ?? 0);
    }
  }).catch(() => undefined);
  return { rows, errors };
}

export async function runFleet(o: FleetRunOptions): Promise<FleetRunResult> {
  const started = Date.now();
  const shard = o.shard ?? UNSHARDED;
  const wanted: FleetManifest = {
    manifestVersion: MANIFEST_VERSION,
    program: { name: 'ctxscope', version: o.version },
    policies: o.policies.map(({ id, settings, settingsHash }) => ({ id, settings, settingsHash })),
    needles: [...o.needles],
    inputs: [...o.inputs],
    shards: [],
    rows: { sessions: 0, steps: 0, compressions: 0 },
  };
  prepareDir(o.out, wanted, o.overwrite ?? false);
  removeOrphans(o.out);
  const recordFile = join(o.out, 'manifests', `shard-${shardName(shard)}.json`);
  // Written at once, so a killed run's folder is known as this fleet's and a rerun resumes it.
  rebuildManifest(o.out, wanted);
  const done = await doneSoFar(o.out);

  const files = o.files.filter((f) => inShard(f, shard));
  const threads = Math.max(1, Math.min(o.threads ?? availableParallelism(), files.length || 1));
  const here = dirname(fileURLToPath(import.meta.url));
  const filename =
    o.workerModule ?? taskModule([join(here, 'fleet-worker.js'), join(here, '..', 'fleet-worker.js')], join(here, 'fleet-worker.ts'));
  // The project's one pool (src/main/worker-pool.ts): a file whose worker dies runs again once on a fresh one.
  const pool = new TaskPool({ name: 'fleet', filename, threads });
  const writer = await FleetWriter.open(o.out, `${shardName(shard)}-${Date.now().toString(36)}${randomBytes(3).toString('hex')}`, {
    steps: FLUSH_STEPS,
    sessions: o.flushSessions ?? FLUSH_SESSIONS,
  });

  let handled = 0,
    skipped = 0,
    errors = 0,
    sessionsWritten = 0;
  const changed: string[] = [];
  const progress = (file?: string): FleetProgress => {
    const elapsedMs = Date.now() - started;
    const fresh = handled - skipped;
    const rate = fresh > 0 ? (fresh / elapsedMs) * 1000 : null;
    return {
      done: handled,
      total: files.length,
      skipped,
      errors,
      sessionsWritten,
      elapsedMs,
      rate,
      etaMs: rate ? ((files.length - handled) / rate) * 1000 : null,
      ...(file ? { file } : {}),
    };
  };

  let chain: Promise<void> = Promise.resolve();
  const write = (reply: FleetReply): Promise<void> =>
    (chain = chain.then(async () => {
      handled++;
      if (reply.changed) changed.push(reply.file);
      else if (!reply.batch) skipped++;
      else {
        errors += reply.errors;
        sessionsWritten += reply.batch.sessions.length;
        writer.add(reply.batch);
        await writer.flushIfFull();
      }
      o.onProgress?.(progress(reply.file));
    }));

  const inflight = new Set<Promise<void>>();
  let next = 0;
  let cancelled = false;
  try {
    while (next < files.length) {
      if (o.signal?.aborted) {
        cancelled = true;
        break;
      }
      if (inflight.size >= threads * 2) {
        await Promise.race(inflight);
        continue;
      }
      const file = files[next++]!;
      const prior = done.get(file);
      const job: FleetJob = {
        file,
        policies: o.policies.map(({ id, config, settingsHash }) => ({ id, config, settingsHash })),
        needles: o.needles,
        ...(o.format ? { format: o.format } : {}),
        ...(prior ? { done: prior } : {}),
      };
      const p: Promise<void> = pool.run<FleetReply>(job).then(write, (e: unknown) => {
        // The worker died on this file twice (src/main/worker-pool.ts): its rows say so.
        const message = e instanceof Error ? e.message : String(e);
        const policies = job.policies.filter((x) => !prior?.policies.includes(x.id));
        return write({
          file,
          hash: prior?.hash ?? '',
          changed: false,
          errors: policies.length,
          bytes: 0,
          batch: {
            sessions: policies.map((x, i) => errorRow(i, x.id, { sourcePath: file, fileHash: prior?.hash ?? '' }, x.settingsHash, message)),
            steps: new StepColumnsBuilder().finish(),
            compressions: [],
          },
        });
      });
      const tracked = p.finally(() => inflight.delete(tracked));
      inflight.add(tracked);
    }
    await Promise.all(inflight);
    await chain;
    await writer.flush();
  } finally {
    await pool.close();
    writer.close();
  }
  // Counted from the part files: rows an earlier, killed run of this shard wrote count too.
  const { rows, errors: errorRows } = await shardRows(o.out, shard);
  const record: ShardRecord = {
    index: shard.index,
    count: shard.count,
    files: files.length,
    rows,
    errors: errorRows,
    finishedAt: cancelled ? null : new Date().toISOString(),
  };
  writeJSONAtomic(recordFile, record);
  const manifest = rebuildManifest(o.out, wanted);
  return { ...progress(), out: o.out, shard, rows: writer.written, changed, cancelled, manifest };
}

export { parseManifest };
