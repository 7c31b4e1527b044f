/** The store: open a database and get the typed session API over it. */
import { openDatabaseChecked, StoreError, type OpenOptions } from './db';
import { importFileToStore as importFile, type ImportFileOptions, type StoredImport } from './import-file';
import { SessionStore } from './sessions';

export { StoreError, openDatabase, openDatabaseChecked, schemaVersion, type OpenOptions } from './db';
export { SessionStore, type SourceInfo, type StoredSessionRow } from './sessions';
export { hashFile, type StoredImport } from './import-file';
export { SCHEMA_VERSION } from './migrations/index';

export interface OpenedStore {
  readonly store: SessionStore;
  /** For the user: a corrupt database moved aside and replaced, a read-only one (see db.ts). */
  readonly notices: string[];
}

export function openStore(path: string, options: OpenOptions = {}): SessionStore {
  return openStoreChecked(path, options).store;
}

export function openStoreChecked(path: string, options: OpenOptions = {}): OpenedStore {
  const { db, notices } = openDatabaseChecked(path, options);
  return { store: namingErrors(new SessionStore(db), path), notices };
}

/** Whether a store was opened read-only (its file or folder not writable, or asked to). */
export function isReadOnly(store: SessionStore): boolean {
  return store.db.readonly;
}

/**
 * One file into the store, refused at once with a clear message when the store is read-only
 * (SQLite would only say "attempt to write a readonly database" at the first write).
 */
export function importFileToStore(store: SessionStore, path: string, options: ImportFileOptions = {}): Promise<StoredImport> {
  if (isReadOnly(store))
    return Promise.reject(
      new StoreError(
        `the database ${store.db.name} is open read-only: cannot import ${path} into it (make the file and its folder writable, or use another --db)`,
      ),
    );
  return importFile(store, path, options).catch((e: unknown) => {
    // A store failure (disk full, a file it cannot open) names the database already; the input too.
    if (e instanceof StoreError) throw new StoreError(`cannot import ${path}: ${e.message}`);
    if (e instanceof Error && e.name === 'SqliteError')
      throw new StoreError(`cannot import ${path}: ${(storeError(store.db.name, store.db.readonly, e) as Error).message}`);
    throw e;
  });
}

/** What SQLite said, with the database it said it about (its own messages name no file). */
function storeError(path: string, readonly: boolean, e: unknown): unknown {
  if (!(e instanceof Error) || e instanceof StoreError || e.name !== 'SqliteError') return e;
  const code = (e as { code?: unknown }).code;
  if (readonly && code === 'SQLITE_READONLY') return new StoreError(`the database ${path} is open read-only: ${e.message}`);
  return new StoreError(`the database ${path}: ${e.message}${typeof code === 'string' ? ` (${code})` : ''}`);
}

/**
 * The store with every method's SQLite errors rewritten to name the database file. A Proxy, so
 * the session API stays in one place (sessions.ts) and no method can be missed.
 */
function namingErrors(store: SessionStore, path: string): SessionStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || key === 'constructor') return value;
      return function (this: unknown, ...args: unknown[]): unknown {
        try {
          const out: unknown = (value as (...a: unknown[]) => unknown).apply(this === receiver ? target : this, args);
          if (out instanceof Promise) return out.catch((e: unknown) => Promise.reject(storeError(path, target.db.readonly, e)));
          return out;
        } catch (e) {
          throw storeError(path, target.db.readonly, e);
        }
      };
    },
  });
}
