/** The store: open a database and get the typed session API over it. */
import { openDatabase, type OpenOptions } from './db';
import { SessionStore } from './sessions';

export { StoreError, openDatabase, schemaVersion } from './db';
export { SessionStore, type SourceInfo, type StoredSessionRow } from './sessions';
export { importFileToStore, hashFile, type StoredImport } from './import-file';
export { SCHEMA_VERSION } from './migrations/index';

export function openStore(path: string, options: OpenOptions = {}): SessionStore {
  return new SessionStore(openDatabase(path, options));
}
