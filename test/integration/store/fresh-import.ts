/**
 * The live tail's yardstick: what a first import of the file as it is now stores — every message,
 * its raw record, its usage rows, the session's metadata, its row and its estimates. A tailed session must hold
 * exactly this (store/tail.test.ts, store/tail-formats.test.ts).
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { importFileToStore, openStore, type SessionStore } from '../../../src/main/store/index';

export async function sameAsFreshImport(store: SessionStore, dir: string, file: string, id: string): Promise<void> {
  const other = openStore(join(dir, `fresh-${Math.random()}.db`));
  try {
    const freshId = (await importFileToStore(other, file, { pipeline: false })).sessionIds[0]!;
    const want = other.loadSession(freshId)!;
    const got = store.loadSession(id)!;
    expect(got.messages).toEqual(want.messages);
    // The metadata too (model, reported window, compactions, system prompt, subagents — none: they are rows).
    expect({ ...got, messages: [] }).toEqual({ ...want, messages: [] });
    expect(got.messages.map((_, i) => store.rawOf(id, i))).toEqual(want.messages.map((_, i) => other.rawOf(freshId, i)));
    // Row ids and the source's row id are keys of each database (a file imported twice has moved to a new source row), not content.
    const { importedAt: _a, id: _i, sourceId: _s, ...gotRow } = store.getRow(id)!;
    const { importedAt: _b, id: _j, sourceId: _t, ...wantRow } = other.getRow(freshId)!;
    expect(gotRow).toEqual(wantRow);
    // Every usage row as a first import stores it, the call's key and 1-hour cache writes included.
    const usage = (db: SessionStore, session: string): unknown[] =>
      db.db
        .prepare(
          'SELECT idx, convention, input, cache_read, cache_write, output, reasoning, call_key, cache_write_1h FROM usage WHERE session_id = ? ORDER BY idx',
        )
        .all(session);
    expect(usage(store, id)).toEqual(usage(other, freshId));
    expect(Array.from(store.loadCounts(id, 'chars4')!.perMessage)).toEqual(Array.from(other.loadCounts(freshId, 'chars4')!.perMessage));
    // Subagents: rows of their own under the session, with the same messages and row.
    const children = (db: SessionStore, parent: string): string[] =>
      db.db.prepare('SELECT id FROM sessions WHERE parent_id = ? ORDER BY rowid').pluck().all(parent) as string[];
    const gotChildren = children(store, id);
    const wantChildren = children(other, freshId);
    expect(gotChildren.length).toBe(wantChildren.length);
    gotChildren.forEach((c, k) => {
      expect(store.loadSession(c)!.messages).toEqual(other.loadSession(wantChildren[k]!)!.messages);
      const { importedAt: _c, id: _d, sourceId: _e, parentId: _f, ...gotChild } = store.getRow(c)!;
      const { importedAt: _g, id: _h, sourceId: _k, parentId: _l, ...wantChild } = other.getRow(wantChildren[k]!)!;
      expect(gotChild).toEqual(wantChild);
    });
  } finally {
    other.close();
  }
}
