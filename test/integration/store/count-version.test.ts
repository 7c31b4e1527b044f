/**
 * Stored counts carry the estimator's version (src/core/tokens/version.ts): counts an older
 * estimator stored are never read as current, and the next save replaces them. The version is
 * bumped here the way a maintainer would, by changing ESTIMATOR_VERSION (a module mock), and the
 * store is loaded again under it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const root = join(__dirname, '..', '..', '..');
const sample = join(root, 'resources', 'sample', 'sample-session.jsonl');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-counts-'));
});
afterEach(() => {
  vi.doUnmock('../../../src/core/tokens/version');
  vi.resetModules();
  rmSync(dir, { recursive: true, force: true });
});

/** The store and the counter as a build with ESTIMATOR_VERSION = `version` has them. */
async function build(version: number) {
  vi.resetModules();
  vi.doMock('../../../src/core/tokens/version', () => ({
    ESTIMATOR_VERSION: version,
    countsKey: (t: string, v: number = version) => `${t}@v${v}`,
  }));
  const store = await import('../../../src/main/store/index');
  const tokens = await import('../../../src/core/tokens/index');
  return { openStore: store.openStore, importFileToStore: store.importFileToStore, countWith: tokens.countWith };
}

describe('count cache: the estimator version', () => {
  it('a bumped version ignores counts the older estimator stored, and a save replaces them', async () => {
    const v1 = await build(1);
    let store = v1.openStore(join(dir, 'a.db'));
    const id = (await v1.importFileToStore(store, sample)).sessionIds[0]!;
    const session = store.loadSession(id)!;
    const counts = v1.countWith(session, 'shannon');
    // What an older estimator stored: the same shape, other numbers (as if S3's floor had moved).
    store.saveCounts(id, { ...counts, perMessage: counts.perMessage.map((n) => n + 1), system: counts.system + 1 });
    expect(store.loadCounts(id, 'shannon')!.system).toBe(counts.system + 1);
    store.close();

    const v2 = await build(2);
    store = v2.openStore(join(dir, 'a.db'));
    // Version 2 does not read version 1's counts: the host counts again (countsOf / ReplayService).
    expect(store.loadCounts(id, 'shannon')).toBeUndefined();
    const fresh = v2.countWith(store.loadSession(id)!, 'shannon');
    store.saveCounts(id, fresh);
    const back = store.loadCounts(id, 'shannon')!;
    expect(back.system).toBe(counts.system);
    expect(Array.from(back.perMessage)).toEqual(Array.from(counts.perMessage));
    // The stale row is gone, not kept beside the new one; other tokenizers' rows are untouched.
    const rows = store.db.prepare('SELECT tokenizer FROM token_counts WHERE session_id = ? ORDER BY tokenizer').pluck().all(id) as string[];
    expect(rows.filter((t) => t.startsWith('shannon'))).toEqual(['shannon@v2']);
    store.close();
  });

  it('counts stored before versions existed (keyed by the bare tokenizer id) are ignored and replaced', async () => {
    const v1 = await build(1);
    const store = v1.openStore(join(dir, 'a.db'));
    const id = (await v1.importFileToStore(store, sample)).sessionIds[0]!;
    const counts = v1.countWith(store.loadSession(id)!, 'shannon');
    const blob = Buffer.from(counts.perMessage.buffer, counts.perMessage.byteOffset, counts.perMessage.byteLength);
    store.db
      .prepare(
        'INSERT INTO token_counts (session_id, tokenizer, counts, system, tools, unlogged, approximate) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, 'shannon', blob, 0, 0, 0, 1);
    expect(store.loadCounts(id, 'shannon')).toBeUndefined();
    store.saveCounts(id, counts);
    expect(
      store.db.prepare("SELECT tokenizer FROM token_counts WHERE session_id = ? AND tokenizer LIKE 'shannon%'").pluck().all(id),
    ).toEqual(['shannon@v1']);
    store.close();
  });
});
