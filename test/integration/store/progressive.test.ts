/**
 * Progressive import (store/progressive.ts): a file of lines is stored as a prefix first (visible
 * before the import ends), then grows chunk by chunk through the live tail's path; the end result
 * is what a whole import of the file stores. A file still being written is followed to its last
 * complete line. Cancel and a bad line mid-file leave nothing behind, the visible prefix included.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importProgressively } from '../../../src/main/store/progressive';
import { importFileToStore, openStore } from '../../../src/main/store/index';
import { appendToSession } from '../../../src/main/host/session-append';
import type { Session } from '../../../src/core/model';
import { ImportError } from '../../../src/core/import/types';
import { claudeCodeText } from '../../bench/corpus';
import { tempStoreEach } from '../../helpers/temp-store';
import { sameAsFreshImport } from './fresh-import';

const t = tempStoreEach('ctxscope-progressive-');
/** Small sizes so that a ~1 MB file takes a prefix and several chunks. */
const SMALL = { minBytes: 0, prefixBytes: 64 << 10, chunkBytes: 256 << 10 } as const;
// About 3 MB with several compactions (compact_boundary + summary lines) after the prefix.
const text = claudeCodeText({ calls: 900 });
const lines = text.split('\n').filter((l) => l !== '');

const count = (table: string): number => t.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

describe('progressive import', () => {
  it('shows a prefix first, grows by chunks on the fast path, and ends as a whole import', async () => {
    const file = join(t.dir, 'cc.jsonl');
    writeFileSync(file, text);
    const seen: { visible?: number; grown: number[]; fast: boolean[] } = { grown: [], fast: [] };
    const r = await importProgressively(t.store, file, {
      ...SMALL,
      onVisible: (v) => (seen.visible = t.store.getRow(v.sessionIds[0]!)!.messageCount),
      onGrown: (u) => {
        seen.grown.push(u.sessions[0]!.messages);
        seen.fast.push(u.fast);
      },
    });
    expect(r.progressive).toBe(true);
    const total = t.store.getRow(r.sessionIds[0]!)!.messageCount;
    // Visible with some messages, fewer than the whole; each chunk adds more, the last reaches the end.
    expect(seen.visible).toBeGreaterThan(0);
    expect(seen.visible).toBeLessThan(total);
    expect(seen.grown.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < seen.grown.length; i++) expect(seen.grown[i]).toBeGreaterThan(seen.grown[i - 1]!);
    expect(seen.grown.at(-1)).toBe(total);
    // Every chunk took the live tail's fast path, the ones with a compaction too.
    expect(seen.fast.every(Boolean)).toBe(true);
    expect(t.store.getRow(r.sessionIds[0]!)!.compactions).toBeGreaterThanOrEqual(2);
    await sameAsFreshImport(t.store, t.dir, file, r.sessionIds[0]!);
    // The source is the whole file: opening it again reuses what is stored.
    const stored = t.store.db.prepare('SELECT size, hash FROM sources').get() as { size: number; hash: string };
    expect(stored).toEqual({ size: Buffer.byteLength(text), hash: createHash('sha256').update(readFileSync(file)).digest('hex') });
    expect((await importProgressively(t.store, file, SMALL)).reused).toBe(true);
  });

  it('hands each chunk over: a session held since the prefix, patched chunk by chunk, is the stored one (compactions too)', async () => {
    const file = join(t.dir, 'cc.jsonl');
    writeFileSync(file, text);
    let held: Session | undefined;
    const r = await importProgressively(t.store, file, {
      ...SMALL,
      onVisible: (v) => (held = t.store.loadSession(v.sessionIds[0]!)),
      onGrown: (u) => {
        const s = u.sessions[0]!;
        const w = s.written!;
        held = appendToSession(held!, {
          from: s.changedFrom,
          previous: w.previous,
          messages: w.messages,
          ...(w.compactions ? { compactions: w.compactions } : {}),
        });
        expect(held).toBeDefined();
      },
    });
    const stored = t.store.loadSession(r.sessionIds[0]!)!;
    expect(stored.sourceCompactions.length).toBeGreaterThanOrEqual(2);
    expect(held!.sourceCompactions).toEqual(stored.sourceCompactions);
    expect(held!.messages).toEqual(stored.messages);
  });

  it('stores the chunks without a checkpoint each, then copies the WAL into the database once and puts the setting back', async () => {
    const file = join(t.dir, 'cc.jsonl');
    writeFileSync(file, text);
    const db = t.store.db;
    const every = db.pragma('wal_autocheckpoint', { simple: true }) as number;
    const during: number[] = [];
    await importProgressively(t.store, file, {
      ...SMALL,
      onGrown: () => during.push(db.pragma('wal_autocheckpoint', { simple: true }) as number),
    });
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(during.every((n) => n === 0)).toBe(true);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(every);
    // Every frame of the WAL is in the database already: a checkpoint now has nothing left to copy.
    const [c] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    expect(c!.log).toBeGreaterThan(0);
    expect(c!.checkpointed).toBe(c!.log);
  });

  it('leaves the checkpoint to the caller that asks for it (the import worker, after its reply)', async () => {
    const file = join(t.dir, 'cc.jsonl');
    writeFileSync(file, text);
    await importProgressively(t.store, file, { ...SMALL, checkpointLater: true });
    expect(t.store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    const [c] = t.store.db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    // The chunks' frames were still waiting (this checkpoint copied them).
    expect(c!.log).toBeGreaterThan(0);
  });

  it('follows a file that is still being written, to its last complete line', async () => {
    const file = join(t.dir, 'growing.jsonl');
    // The agent has written the first half; it writes more while the import runs, and leaves a line half-written.
    const half = Math.floor(lines.length / 2);
    writeFileSync(file, lines.slice(0, half).join('\n') + '\n');
    let next = half;
    const r = await importProgressively(t.store, file, {
      ...SMALL,
      onGrown: () => {
        if (next >= lines.length) return;
        const upTo = Math.min(lines.length, next + 40);
        appendFileSync(file, lines.slice(next, upTo).join('\n') + '\n');
        next = upTo;
      },
    });
    expect(next).toBe(lines.length);
    // Everything written before the import caught up is in, as a whole import of the file stores it.
    await sameAsFreshImport(t.store, t.dir, file, r.sessionIds[0]!);
    expect(t.store.db.prepare('SELECT size FROM sources').pluck().get()).toBe(Buffer.byteLength(text));
  });

  it('stops at the last complete line: a half-written last line waits for the live tail', async () => {
    const file = join(t.dir, 'half.jsonl');
    writeFileSync(file, text + '{"type":"user","uuid":"half');
    const r = await importProgressively(t.store, file, SMALL);
    expect(r.progressive).toBe(true);
    expect(t.store.db.prepare('SELECT size FROM sources').pluck().get()).toBe(Buffer.byteLength(text));
    // The messages of the complete lines, as a whole import of them stores them.
    writeFileSync(join(t.dir, 'whole.jsonl'), text);
    const other = openStore(join(t.dir, 'other.db'));
    try {
      const want = other.loadSession((await importFileToStore(other, join(t.dir, 'whole.jsonl'))).sessionIds[0]!)!;
      expect(t.store.loadSession(r.sessionIds[0]!)!.messages).toEqual(want.messages);
    } finally {
      other.close();
    }
  });

  it('cancelled after the prefix was shown: nothing is left, the prefix neither', async () => {
    const file = join(t.dir, 'cc.jsonl');
    writeFileSync(file, text);
    const controller = new AbortController();
    let visible: string[] = [];
    let chunks = 0;
    const run = importProgressively(t.store, file, {
      ...SMALL,
      signal: controller.signal,
      onVisible: (v) => (visible = v.sessionIds),
      onGrown: () => {
        if (++chunks === 2) controller.abort();
      },
    });
    await expect(run).rejects.toThrow(/cancelled/);
    expect(visible.length).toBe(1);
    expect(chunks).toBe(2);
    for (const table of ['sessions', 'sources', 'messages', 'usage', 'source_lines', 'token_counts'])
      expect([table, count(table)]).toEqual([table, 0]);
  });

  it('a bad line after the prefix fails the import with its line number and leaves nothing', async () => {
    const file = join(t.dir, 'bad.jsonl');
    const bad = Math.floor(lines.length * 0.8);
    writeFileSync(file, [...lines.slice(0, bad), '{"type":"assistant",', ...lines.slice(bad)].join('\n') + '\n');
    let shown = false;
    const run = importProgressively(t.store, file, { ...SMALL, onVisible: () => (shown = true) });
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(shown).toBe(true);
    expect(error).toBeInstanceOf(ImportError);
    // Line numbers count from 1: the bad line is the (bad + 1)-th.
    expect(String((error as Error).message)).toContain(`:${bad + 1}`);
    for (const table of ['sessions', 'sources', 'messages', 'source_lines']) expect([table, count(table)]).toEqual([table, 0]);
  });

  it('an append the fast path refuses (a fork) is decided by the whole file once, then the rest goes in one update', async () => {
    const file = join(t.dir, 'fork.jsonl');
    // A user line a third of the way in that answers an earlier line again (a rewind): the main chain changes.
    const at = Math.floor(lines.length / 3);
    const earlier = JSON.parse(lines[at - 40]!) as { uuid: string };
    const fork = JSON.stringify({
      ...(JSON.parse(lines[at]!) as Record<string, unknown>),
      type: 'user',
      uuid: 'f0f0f0f0-0000-4000-8000-000000000001',
      parentUuid: earlier.uuid,
      message: { role: 'user', content: 'try again from there' },
    });
    writeFileSync(file, [...lines.slice(0, at), fork, ...lines.slice(at)].join('\n') + '\n');
    const fast: boolean[] = [];
    const r = await importProgressively(t.store, file, { ...SMALL, onGrown: (u) => fast.push(u.fast) });
    const slow = fast.indexOf(false);
    expect(slow).toBeGreaterThanOrEqual(0);
    // At most one update after the first that left the fast path: the rest of the file at once.
    expect(fast.length - slow).toBeLessThanOrEqual(2);
    await sameAsFreshImport(t.store, t.dir, file, r.sessionIds[0]!);
  });

  it('small files and JSON documents are imported whole, as before', async () => {
    const file = join(t.dir, 'small.jsonl');
    writeFileSync(file, text);
    let shown = false;
    const r = await importProgressively(t.store, file, { onVisible: () => (shown = true) });
    expect(r.progressive).toBe(false);
    expect(shown).toBe(false);
    const doc = join(t.dir, 'doc.json');
    writeFileSync(
      doc,
      JSON.stringify({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
      }),
    );
    expect((await importProgressively(t.store, doc, SMALL)).progressive).toBe(false);
  });
});
