/**
 * Opens the session database: better-sqlite3 (Node's build, or Electron's via `nativeBinding`),
 * WAL, foreign keys, and forward migrations up to SCHEMA_VERSION, each in its own transaction,
 * the version kept in `user_version`. A database from a newer app version is refused, not touched.
 *
 * The first opener (the app, a CLI command: `check`) also makes sure the file is sound before
 * anything is written into it (docs/reliability.md):
 * - `PRAGMA quick_check`, or the full `integrity_check` when a WAL was left behind (the last
 *   writer did not close: killed, crashed, power lost);
 * - a corrupt file is moved aside (renamed, never deleted) and reported with both paths; with
 *   `recover` a fresh database is started in its place and the notice returned for the user;
 * - a leftover WAL (a killed import can leave hundreds of MB) is checkpointed into the file;
 * - a database that cannot be written (read-only file or folder) opens read-only for browsing.
 */
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations/index';

export type Db = Database.Database;

/** Page size of new databases (existing ones keep theirs). */
export const PAGE_SIZE = 16384;

export interface OpenOptions {
  readonly nativeBinding?: string;
  /** Migrate only up to this version (tests of older schemas). */
  readonly upTo?: number;
  /** Open for reading only (also chosen by itself when the file or its folder is not writable). */
  readonly readonly?: boolean;
  /** Check the file's integrity first (the first opener; workers it starts skip this). */
  readonly check?: boolean;
  /** A corrupt file is moved aside and a fresh database started (the app); else an error. */
  readonly recover?: boolean;
}

export interface OpenedDatabase {
  readonly db: Db;
  /** What the user should be told: a database moved aside, opened read-only. */
  readonly notices: string[];
}

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  return openDatabaseChecked(path, options).db;
}

/** SQLite's codes for a file that is damaged or not a database at all. */
function isCorruption(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Why a database cannot be written, or undefined when it can. */
function notWritable(path: string): string | undefined {
  try {
    if (existsSync(path)) accessSync(path, constants.W_OK);
  } catch {
    return 'the file is read-only';
  }
  try {
    // WAL mode writes two files beside the database (-wal, -shm).
    accessSync(dirname(path), constants.W_OK);
  } catch {
    return 'its folder is read-only';
  }
  return undefined;
}

/** Renames the database (and its -wal/-shm) to `<path>.corrupt-<time>`; returns the new path. */
function moveAside(path: string): string {
  const aside = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(path, aside);
  for (const suffix of ['-wal', '-shm']) if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  return aside;
}

/** Problems `quick_check`/`integrity_check` found (nothing when the file is sound). */
function integrityProblems(db: Db, full: boolean): string[] {
  const rows = db.pragma(full ? 'integrity_check(20)' : 'quick_check(20)', { simple: false }) as Record<string, string>[];
  return rows.map((r) => (Object.values(r)[0] ?? '').replace(/\s*\n\s*/g, ' ')).filter((m) => m !== 'ok');
}

export function openDatabaseChecked(path: string, options: OpenOptions = {}): OpenedDatabase {
  const notices: string[] = [];
  if (path === ':memory:')
    return {
      db: configure(new Database(path, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}), path, false, options),
      notices,
    };
  if (!existsSync(dirname(path))) {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (e) {
      throw new StoreError(`cannot create the folder of the database ${path}: ${messageOf(e)}`);
    }
  }
  const exists = existsSync(path);
  // A WAL that outlived its writer: the last connection did not close (killed or crashed). Only
  // the first opener asks: for a worker, the WAL is its opener's, in use.
  const leftoverWal = options.check === true && exists && existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0;
  let readonly = options.readonly ?? false;
  if (!readonly) {
    const why = notWritable(path);
    if (why && exists) {
      readonly = true;
      notices.push(`${path}: ${why}; opened read-only for browsing (imports are refused)`);
    } else if (why) throw new StoreError(`cannot create the database ${path}: ${why}`);
  }

  let db: Db | undefined;
  try {
    db = new Database(path, {
      readonly,
      fileMustExist: readonly,
      ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
    });
    // The check reads every page: a header, a b-tree or a WAL frame that is damaged shows here,
    // before an import writes into the file, not in a later read.
    const problems = options.check && exists ? integrityProblems(db, leftoverWal) : [];
    if (problems.length > 0) return corrupt(path, db, problems.join('; '), options, notices);
    // The WAL of a killed import goes into the file now, not at some later write.
    if (leftoverWal && !readonly) db.pragma('wal_checkpoint(TRUNCATE)');
    return { db: configure(db, path, readonly, options), notices };
  } catch (e) {
    // Only the first opener moves a file aside: a worker it started just reports.
    if (isCorruption(e) && options.check) return corrupt(path, db, messageOf(e), options, notices);
    db?.close();
    if (isCorruption(e)) throw new StoreError(`the database ${path} is corrupt: ${messageOf(e)}`);
    if (e instanceof StoreError) throw e;
    throw new StoreError(`cannot open the database ${path}: ${messageOf(e)}`);
  }
}

function corrupt(path: string, db: Db | undefined, detail: string, options: OpenOptions, notices: string[]): OpenedDatabase {
  try {
    db?.close();
  } catch {
    // Closing a damaged file can fail too; it is moved aside either way.
  }
  let aside: string;
  try {
    aside = moveAside(path);
  } catch (e) {
    throw new StoreError(`the database ${path} is corrupt (${detail}) and could not be moved aside: ${messageOf(e)}`);
  }
  const what = `the database ${path} is corrupt (${detail}); it was moved to ${aside}`;
  if (!options.recover) throw new StoreError(`${what}; the next start begins a new, empty one (import the transcripts again)`);
  notices.push(`${what} and a new, empty database was started (import the transcripts again)`);
  const fresh = openDatabaseChecked(path, { ...options, check: false, recover: false });
  return { db: fresh.db, notices: [...notices, ...fresh.notices] };
}

/** Pragmas and migrations of an open database (none of them write when read-only). */
function configure(db: Db, path: string, readonly: boolean, options: OpenOptions): Db {
  try {
    // First: the pragmas below may have to wait for another connection's lock.
    db.pragma('busy_timeout = 5000');
    if (!readonly) {
      // A new database gets 16 KB pages (set before anything is written): message rows are ~1 KB
      // and bigger, and a bulk import writes (and checkpoints) fewer, fuller pages.
      if (path !== ':memory:' && (db.pragma('page_count', { simple: true }) as number) === 0) db.pragma(`page_size = ${PAGE_SIZE}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
  } catch (e) {
    db.close();
    throw e;
  }
  if (readonly) {
    const current = schemaVersion(db);
    if (current !== (options.upTo ?? SCHEMA_VERSION)) {
      db.close();
      throw new StoreError(
        `the database ${path} is read-only and at schema version ${current}; this app reads version ${SCHEMA_VERSION} (open it once where it can be written to upgrade it)`,
      );
    }
    return db;
  }
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
    throw new StoreError(
      `${path} has schema version ${current}, newer than this app knows (${SCHEMA_VERSION}); update Context Scope or use another --db`,
    );
  }
  for (const m of MIGRATIONS) {
    if (m.version <= current || m.version > upTo) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}
