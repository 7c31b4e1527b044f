/**
 * The one writer of a fleet run: batches from the workers are held as they came; when they hold
 * enough rows they are appended, all at once, to three in-memory DuckDB buffer tables, written
 * out as Parquet part files, one per table and policy, and dropped — so memory stays flat however
 * many sessions there are.
 *
 * A part file is written under a temporary name and renamed when complete. Within one flush the
 * `steps` and `compressions` parts are renamed before the `sessions` part of the same name: a
 * sessions part is the mark that its sessions are whole. A killed run leaves at worst steps or
 * compressions parts without their sessions part; the next run deletes those (`removeOrphans`)
 * and replays those sessions again.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { FleetBatch } from '../../core/fleet/rows';
import { STEP_NUMBER_COLUMNS } from '../../core/fleet/rows';
import {
  bufferName,
  COMPRESSION_BUFFER,
  copyPart,
  createBuffers,
  FLEET_TABLES,
  SESSION_BUFFER,
  STEP_BUFFER,
  type FleetTable,
} from '../../core/fleet/sql';
import type { RowCounts } from '../../core/fleet/manifest';
import { appendColumns, openDuck, type BufferType, type ColumnValues } from './duck';

/**
 * Rows held before a flush: ~23 MB of step columns (24 doubles a row), held once in JS and once in
 * DuckDB's buffer while the flush runs. About one Parquet row group (122,880 rows) a flush: fewer
 * rows made more, smaller part files; more rows held more memory for no speed.
 */
export const FLUSH_STEPS = 120_000;
export const FLUSH_SESSIONS = 2_000;

/** When the buffers are written out: whichever is reached first. */
export interface FlushLimits {
  readonly steps: number;
  readonly sessions: number;
}

const camel = (snake: string): string => snake.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

export class FleetWriter {
  private nextKey = 0;
  private seq = 0;
  private buffered: Record<string, RowCounts> = {};
  private held: { readonly base: number; readonly batch: FleetBatch }[] = [];
  readonly written: RowCounts = { sessions: 0, steps: 0, compressions: 0 };

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly db: DuckDBConnection,
    private readonly dir: string,
    private readonly prefix: string,
    private readonly limits: FlushLimits,
  ) {}

  /** `prefix` names this run's part files (shard and run id), so reruns and shards never collide. */
  static async open(
    dir: string,
    prefix: string,
    limits: FlushLimits = { steps: FLUSH_STEPS, sessions: FLUSH_SESSIONS },
  ): Promise<FleetWriter> {
    const { instance, connection } = await openDuck();
    await connection.run(createBuffers());
    return new FleetWriter(instance, connection, dir, prefix, limits);
  }

  get pendingSteps(): number {
    return Object.values(this.buffered).reduce((a, c) => a + c.steps, 0);
  }
  get pendingSessions(): number {
    return Object.values(this.buffered).reduce((a, c) => a + c.sessions, 0);
  }

  /**
   * Takes a worker's batch: held as it came (step columns are the typed arrays the worker
   * transferred) until the flush appends every held batch at once. Appending batch by batch cost
   * a DuckDB appender flush each (milliseconds apiece for a transcript of a few calls).
   */
  add(batch: FleetBatch): void {
    const base = this.nextKey;
    this.nextKey += batch.sessions.length;
    const policyOf: string[] = [];
    for (const s of batch.sessions) {
      policyOf[s.key] = s.policy;
      const c = (this.buffered[s.policy] ??= { sessions: 0, steps: 0, compressions: 0 });
      c.sessions++;
    }
    const keys = batch.steps.columns.key;
    for (let i = 0; i < batch.steps.count; i++) this.buffered[policyOf[keys[i]!]!]!.steps++;
    for (const c of batch.compressions) this.buffered[policyOf[c.key]!]!.compressions++;
    this.held.push({ base, batch });
  }

  /** Every held batch into the DuckDB buffer tables: one appender per table, full chunks. */
  private async appendHeld(): Promise<void> {
    const held = this.held;
    this.held = [];
    const sessions = held.flatMap(({ base, batch }) => batch.sessions.map((s) => ({ ...s, key: base + s.key })));
    await this.append(
      'sessions',
      SESSION_BUFFER.map(([, t]) => t),
      SESSION_BUFFER.map(([name]) => {
        const field = camel(name) as keyof (typeof sessions)[number];
        return sessions.map((s) => s[field] as string | number | null);
      }),
      sessions.length,
    );
    const stepCount = held.reduce((a, h) => a + h.batch.steps.count, 0);
    if (stepCount > 0) {
      const cols = STEP_NUMBER_COLUMNS.map(() => new Float64Array(stepCount));
      const callKeys: (string | null)[] = [];
      let at = 0;
      for (const { base, batch } of held) {
        const st = batch.steps;
        for (let i = 0; i < st.count; i++) callKeys.push(st.callKeys[i] ?? null);
        STEP_NUMBER_COLUMNS.forEach((c, j) => cols[j]!.set(st.columns[c].subarray(0, st.count), at));
        const keys = cols[0]!;
        for (let i = at; i < at + st.count; i++) keys[i] = keys[i]! + base;
        at += st.count;
      }
      await this.append(
        'steps',
        STEP_BUFFER.map(([, t]) => t),
        [...cols, callKeys],
        stepCount,
      );
    }
    const compressions = held.flatMap(({ base, batch }) => batch.compressions.map((c) => ({ ...c, key: base + c.key })));
    if (compressions.length > 0) {
      await this.append(
        'compressions',
        COMPRESSION_BUFFER.map(([, t]) => t),
        COMPRESSION_BUFFER.map(([name]) =>
          compressions.map((c) => c[camel(name) as keyof (typeof compressions)[number]] as string | number | null),
        ),
        compressions.length,
      );
    }
  }

  private async append(table: FleetTable, types: readonly BufferType[], cols: readonly ColumnValues[], count: number): Promise<void> {
    const appender = await this.db.createAppender(bufferName(table));
    try {
      appendColumns(appender, types, cols, count);
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  /** Writes the buffers out as part files (steps and compressions first, sessions last) and empties them. */
  async flush(): Promise<void> {
    const policies = Object.keys(this.buffered).filter((p) => this.buffered[p]!.sessions > 0);
    if (policies.length === 0) return;
    await this.appendHeld();
    const name = `part-${this.prefix}-${String(this.seq++).padStart(5, '0')}.parquet`;
    for (const table of ['steps', 'compressions', 'sessions'] as const) {
      for (const policy of policies) {
        const counts = this.buffered[policy]!;
        if (counts[table] === 0) continue;
        const folder = join(this.dir, table, `policy=${policy}`);
        mkdirSync(folder, { recursive: true });
        const tmp = join(folder, `.${name}.tmp`);
        await this.db.run(copyPart(table, policy, tmp));
        renameSync(tmp, join(folder, name));
        this.written[table] += counts[table];
      }
    }
    // Dropped and made again rather than emptied: DuckDB keeps a deleted table's blocks for reuse.
    await this.db.run(createBuffers());
    this.buffered = {};
  }

  async flushIfFull(): Promise<boolean> {
    if (this.pendingSteps < this.limits.steps && this.pendingSessions < this.limits.sessions) return false;
    await this.flush();
    return true;
  }

  close(): void {
    this.db.closeSync();
    this.instance.closeSync();
  }
}

/**
 * Before a rerun: unfinished temporary files go, and so do steps and compressions parts whose
 * sessions part never got written (their sessions are not counted as done and will be replayed).
 */
export function removeOrphans(dir: string): number {
  let removed = 0;
  const sessionsParts = new Set<string>();
  const policyDirs = (table: FleetTable): string[] => {
    const root = join(dir, table);
    return existsSync(root)
      ? readdirSync(root)
          .filter((d) => d.startsWith('policy='))
          .map((d) => join(root, d))
      : [];
  };
  for (const d of policyDirs('sessions'))
    for (const f of readdirSync(d)) if (f.endsWith('.parquet')) sessionsParts.add(`${d.slice(d.lastIndexOf('policy='))}/${f}`);
  for (const table of FLEET_TABLES) {
    for (const d of policyDirs(table)) {
      for (const f of readdirSync(d)) {
        const orphan =
          f.endsWith('.tmp') ||
          (table !== 'sessions' && f.endsWith('.parquet') && !sessionsParts.has(`${d.slice(d.lastIndexOf('policy='))}/${f}`));
        if (orphan) {
          rmSync(join(d, f), { force: true });
          removed++;
        }
      }
    }
  }
  return removed;
}
