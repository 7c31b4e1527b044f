/**
 * A fresh temp folder and SQLite store for each test of a file (closed and removed after it):
 * the set-up every tail and store integration test repeats.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openStore, type SessionStore } from '../../src/main/store/index';

export interface TempStore {
  readonly dir: string;
  readonly store: SessionStore;
}

export function tempStoreEach(prefix: string, dbName = 'sessions.db'): TempStore {
  const t = { dir: '', store: null as unknown as SessionStore };
  beforeEach(() => {
    t.dir = mkdtempSync(join(tmpdir(), prefix));
    t.store = openStore(join(t.dir, dbName));
  });
  afterEach(() => {
    t.store.close();
    rmSync(t.dir, { recursive: true, force: true });
  });
  return t;
}
