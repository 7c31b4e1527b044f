/** Shared by the fleet tests: the bin as a user runs it, and a dataset read back with DuckDB directly. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

export const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');

export const run = (args: readonly string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 180_000, env: { ...process.env, ...env } });
/**
 * The CLI as one process (a signal reaches the process that writes): the built CLI through the bin,
 * or — unbuilt — the source through tsx's loader in this one process (the bin and tsx's own command each run it as a child the signal never reaches).
 */
export function start(args: readonly string[], env: Record<string, string> = {}): ChildProcess {
  const entry = existsSync(join(root, 'out', 'cli', 'index.js')) ? [bin] : ['--import', 'tsx', join(root, 'src', 'cli', 'index.ts')];
  return spawn(process.execPath, [...entry, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
}

export type Row = Record<string, unknown>;

/** Every row of a table of the dataset, read with DuckDB's own Parquet reader (hive partitions), as sorted JSON lines. */
export async function readTable(dir: string, table: 'sessions' | 'steps' | 'compressions'): Promise<string[]> {
  const folder = join(dir, table);
  if (!existsSync(folder) || !readdirSync(folder).some((p) => readdirSync(join(folder, p)).some((f) => f.endsWith('.parquet')))) return [];
  const rows = await sql(`SELECT * FROM read_parquet('${dir}/${table}/*/*.parquet', hive_partitioning = true)`);
  return rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))).sort();
}

export async function sql(query: string): Promise<Row[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    const reader = await c.runAndReadAll(query);
    return (await reader.getRowObjectsJson()) as Row[];
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}
