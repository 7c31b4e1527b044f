/**
 * Reading a fleet dataset: an in-memory DuckDB with the views `sessions`, `steps` and
 * `compressions` over DIR's part files. `fleet report`, `fleet query` and the app's Fleet view all
 * read through here, with the SQL of src/core/fleet/sql.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StatementType, type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import { parseManifest, type FleetManifest } from '../../core/fleet/manifest';
import { createView, FLEET_TABLES, QUERY_REFUSAL, reportQueries, VIEW_QUERIES, type FleetTable } from '../../core/fleet/sql';
import { openDuck } from './duck';

export type Cell = string | number | boolean | null;
export interface QueryResult {
  readonly columns: readonly string[];
  readonly rows: readonly Record<string, Cell>[];
}

export class FleetDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FleetDataError';
  }
}

export function manifestPath(dir: string): string {
  return join(dir, 'manifest.json');
}

export function readManifest(dir: string): FleetManifest | null {
  const file = manifestPath(dir);
  if (!existsSync(file)) return null;
  return parseManifest(readFileSync(file, 'utf8'), file);
}

function hasParts(dir: string, table: FleetTable): boolean {
  const root = join(dir, table);
  if (!existsSync(root)) return false;
  return readdirSync(root).some((d) => d.startsWith('policy=') && readdirSync(join(root, d)).some((f) => f.endsWith('.parquet')));
}

/** A JS value from DuckDB as a plain JSON cell: big integers as numbers, timestamps as ISO text. */
function cell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

export class FleetDataset {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly db: DuckDBConnection,
    readonly dir: string,
    readonly manifest: FleetManifest,
  ) {}

  static async open(dir: string): Promise<FleetDataset> {
    if (!existsSync(dir)) throw new FleetDataError(`${dir}: no such folder`);
    const manifest = readManifest(dir);
    if (!manifest) throw new FleetDataError(`${dir}: no manifest.json; expected the --out folder of \`ctxscope fleet run\``);
    const { instance, connection } = await openDuck();
    for (const t of FLEET_TABLES) await connection.run(createView(t, dir, hasParts(dir, t)));
    // A query may read what the views read, and change nothing of the engine's settings.
    await connection.run('SET lock_configuration = true');
    return new FleetDataset(instance, connection, dir, manifest);
  }

  private async rows(sql: string): Promise<QueryResult> {
    const reader = await this.db.runAndReadAll(sql);
    const columns = reader.columnNames();
    const rows = (await reader.getRowObjectsJS()).map((r) => Object.fromEntries(columns.map((c) => [c, cell(r[c])])));
    return { columns, rows };
  }

  /** A user's query: exactly one statement, a SELECT; anything else is refused before it runs. */
  async query(sql: string): Promise<QueryResult> {
    let extracted;
    try {
      extracted = await this.db.extractStatements(sql);
    } catch (e) {
      throw new FleetDataError(`query: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (extracted.count !== 1) throw new FleetDataError(`query: got ${extracted.count} statements; ${QUERY_REFUSAL}`);
    let prepared;
    try {
      prepared = await extracted.prepare(0);
    } catch (e) {
      throw new FleetDataError(`query: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (prepared.statementType !== StatementType.SELECT)
      throw new FleetDataError(`query: refused a ${StatementType[prepared.statementType] ?? 'non-SELECT'} statement; ${QUERY_REFUSAL}`);
    try {
      const reader = await prepared.runAndReadAll();
      const columns = reader.columnNames();
      const rows = (await reader.getRowObjectsJS()).map((r) => Object.fromEntries(columns.map((c) => [c, cell(r[c])])));
      return { columns, rows };
    } catch (e) {
      throw new FleetDataError(`query: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** `fleet report`: per policy, the sessions that stopped, the ten that differ most, the errors. */
  async report(baseline?: string): Promise<FleetReport> {
    const policies = this.manifest.policies.map((p) => p.id);
    if (baseline !== undefined && !policies.includes(baseline))
      throw new FleetDataError(`--baseline: expected one of the dataset's policies (${policies.join(', ')}), got "${baseline}"`);
    const q = reportQueries({ policies, ...(baseline !== undefined ? { policy: baseline } : {}) });
    const [perPolicy, stopped, differ, errors] = [
      await this.rows(q.perPolicy),
      await this.rows(q.stopped),
      await this.rows(q.differ),
      await this.rows(q.errors),
    ];
    return { dir: this.dir, baseline: baseline ?? null, policies, perPolicy, stopped, differ, errors };
  }

  /** The app's table and histograms. */
  async view(): Promise<FleetViewData> {
    return {
      sessions: await this.rows(VIEW_QUERIES.sessions),
      compressions: await this.rows(VIEW_QUERIES.compressionsHistogram),
      lostFacts: await this.rows(VIEW_QUERIES.lostFactsHistogram),
    };
  }

  close(): void {
    this.db.closeSync();
    this.instance.closeSync();
  }
}

export interface FleetReport {
  readonly dir: string;
  /** `--baseline`, or null: each session against its agent's own policy where run, else the first. */
  readonly baseline: string | null;
  readonly policies: readonly string[];
  readonly perPolicy: QueryResult;
  readonly stopped: QueryResult;
  readonly differ: QueryResult;
  readonly errors: QueryResult;
}

export interface FleetViewData {
  readonly sessions: QueryResult;
  readonly compressions: QueryResult;
  readonly lostFacts: QueryResult;
}

/** Runs `fn` on the dataset at `dir` and closes it. */
export async function withDataset<T>(dir: string, fn: (d: FleetDataset) => Promise<T>): Promise<T> {
  const d = await FleetDataset.open(dir);
  try {
    return await fn(d);
  } finally {
    d.close();
  }
}
