/**
 * Opens the session database: better-sqlite3 (Node's build, or Electron's via `nativeBinding`),
 * WAL, foreign keys, and forward migrations up to SCHEMA_VERSION, each in its own transaction,
 * the version kept in `user_version`. A database from a newer app version is refused, not touched.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations/index';

export type Db = Database.Database;

/** Page size of new databases (existing ones keep theirs). */
export const PAGE_SIZE = 16384;

export interface OpenOptions {
  readonly nativeBinding?: string;
  /** Migrate only up to this version (tests of older schemas). */
  readonly upTo?: number;
}

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let db: Db;
  try {
    db = new Database(path, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  } catch (e) {
    throw new StoreError(`cannot open the database ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  // A new database gets 16 KB pages (set before anything is written): message rows are ~1 KB
  // and bigger, and a bulk import writes (and checkpoints) fewer, fuller pages.
  if (path !== ':memory:' && (db.pragma('page_count', { simple: true }) as number) === 0) db.pragma(`page_size = ${PAGE_SIZE}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, options.upTo ?? SCHEMA_VERSION, path);
  return db;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function migrate(db: Db, upTo: number, path = 'database'): void {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    db.close();
    throw new StoreError(`${path} has schema version ${current}, newer than this app knows (${SCHEMA_VERSION}); update Context Scope or use another --db`);
  }
  for (const m of MIGRATIONS) {
    if (m.version <= current || m.version > upTo) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}
