/**
 * The progressive import's two threads (store/chunk-writer.ts): the import worker plans chunk k + 1
 * from what it knows while the writer thread stores chunk k. What they store must be what one
 * thread parsing and storing each chunk in turn stores, row for row — no row lost, doubled,
 * reordered or written with a stale count — and a failure in any chunk leaves nothing.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importProgressively, nextChunkBytes, type ProgressiveOptions } from '../../../src/main/store/progressive';
import { importFileToStore, openStore, type SessionStore } from '../../../src/main/store/index';
import { sourceLineId } from '../../../src/main/store/sessions';
import { ImportError } from '../../../src/core/import/types';
import { claudeCodeText } from '../../bench/corpus';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-pipeline-');

type Row = Record<string, unknown>;
/** Rows of one session after another, each session's in order of `by`. */
const inOrder = (rs: Row[], by: string): Row[] =>
  rs.sort(
    (a, b) => Number(a['session_id']) - Number(b['session_id']) || String(a[by]).localeCompare(String(b[by]), 'en', { numeric: true }),
  );

/** Every row an import stores, without the keys that differ between two databases (row ids, times). */
function rows(store: SessionStore): Record<string, unknown[]> {
  const db = store.db;
  const all = (sql: string): Row[] => db.prepare(sql).all() as Row[];
  const sources = all('SELECT id, path, size, hash, format FROM sources ORDER BY id');
  const base = sourceLineId(Number(sources[0]!['id']), 0);
  const sessions = all('SELECT * FROM sessions ORDER BY source_id, position, rowid');
  const order = new Map(sessions.map((s, k) => [s['id'] as string, k]));
  const key = (id: unknown): number => order.get(id as string) ?? -1;
  return {
    sources: sources.map(({ id: _id, ...rest }) => rest),
    sessions: sessions.map(({ id: _id, source_id: _s, imported_at: _i, parent_id: parent, ...rest }) => ({ ...rest, parent: key(parent) })),
    messages: inOrder(
      all('SELECT session_id, idx, message_id, role, body, raw, raw_line FROM messages').map((m) => ({
        ...m,
        session_id: key(m['session_id']),
        raw_line: m['raw_line'] === null ? null : Number(m['raw_line']) - base,
      })),
      'idx',
    ),
    sourceLines: all('SELECT id, text FROM source_lines ORDER BY id').map((l) => ({ ...l, id: Number(l['id']) - base })),
    usage: inOrder(
      all('SELECT * FROM usage').map((u) => ({ ...u, session_id: key(u['session_id']) })),
      'idx',
    ),
    counts: inOrder(
      all('SELECT * FROM token_counts').map((c) => ({
        ...c,
        session_id: key(c['session_id']),
        counts: Buffer.from(c['counts'] as Buffer).toString('hex'),
      })),
      'tokenizer',
    ),
  };
}

/** The file imported progressively with the writer thread and with one thread, each into a fresh database. */
async function both(
  file: string,
  options: ProgressiveOptions,
): Promise<{ piped: number; two: Record<string, unknown[]>; one: Record<string, unknown[]> }> {
  const r = await importProgressively(t.store, file, options);
  const single = openStore(join(t.dir, `one-${Math.random()}.db`));
  try {
    const s = await importProgressively(single, file, { ...options, pipeline: false });
    expect(s.pipelined ?? 0).toBe(0);
    return { piped: r.pipelined ?? 0, two: rows(t.store), one: rows(single) };
  } finally {
    single.close();
  }
}

describe('progressive import on two threads', () => {
  it('stores what one thread stores, row for row, on a generated session of many chunks with compactions', async () => {
    const file = join(t.dir, 'cc.jsonl');
    writeFileSync(file, claudeCodeText({ calls: 900 }));
    const { piped, two, one } = await both(file, { minBytes: 0, prefixBytes: 64 << 10, chunkBytes: 48 << 10 });
    // Most chunks went through the writer (the first after the prefix may be stored in turn).
    expect(piped).toBeGreaterThanOrEqual(20);
    expect(two['messages']!.length).toBeGreaterThan(1000);
    expect((two['sessions']![0] as { compactions: number }).compactions).toBeGreaterThanOrEqual(2);
    expect(two).toEqual(one);
  });

  // Real transcripts: multi-line responses (one message.id over several lines, merged across a chunk boundary), sidechains, metadata lines.
  const corpus = join(__dirname, '../../../../shared/corpus/claude-code');
  const fixtures = [
    ...(existsSync(corpus) ? readdirSync(corpus).map((f) => join(corpus, f)) : []),
    join(__dirname, '../../fixtures/claude-code-v2/7d3f0c2e-5a41-4b6e-9c8d-2f1e0a9b8c7d.jsonl'),
  ].filter((f) => f.endsWith('.jsonl'));
  it.each(fixtures)('stores what one thread stores, row for row: %s', async (file) => {
    const { two, one } = await both(file, { minBytes: 0, prefixBytes: 1 << 10, chunkBytes: 4 << 10 });
    expect(two).toEqual(one);
  });

  // The yardstick of both: a one-shot import of the whole file (one transaction, no chunks). Every
  // row holds the same bytes — each message's body text as written, not only its parsed value —
  // and every message the same raw record; only where that record is kept may differ (the
  // prefix, imported on its own, keeps it inline; a big file's one-shot import and the chunks, by
  // source line).
  it.each([...fixtures, 'generated'])('stores what a one-shot import stores, byte for byte: %s', async (fixture) => {
    let file = fixture;
    if (fixture === 'generated') {
      file = join(t.dir, 'cc.jsonl');
      writeFileSync(file, claudeCodeText({ calls: 900 }));
    }
    const small = fixture === 'generated' ? { prefixBytes: 64 << 10, chunkBytes: 48 << 10 } : { prefixBytes: 1 << 10, chunkBytes: 4 << 10 };
    const r = await importProgressively(t.store, file, { minBytes: 0, ...small });
    // (A fixture with subagent files is imported whole by both.)
    if (fixture === 'generated') expect(r.pipelined).toBeGreaterThanOrEqual(20);
    const whole = openStore(join(t.dir, `whole-${Math.random()}.db`));
    try {
      // On the writer thread, as a file from 4 MB on is imported.
      await importFileToStore(whole, file, { pipeline: true });
      const content = (store: SessionStore): Record<string, unknown[]> => {
        const { sourceLines: _lines, ...rest } = rows(store);
        return { ...rest, messages: rest['messages']!.map((m) => ({ ...(m as Row), raw: undefined, raw_line: undefined })) };
      };
      expect(content(t.store)).toEqual(content(whole));
      const records = (store: SessionStore): (string | null)[][] =>
        store.listSessions().map((s) => Array.from({ length: s.messageCount }, (_, i) => store.rawOf(s.id, i)));
      expect(records(t.store)).toEqual(records(whole));
    } finally {
      whole.close();
    }
  });

  it('halves the last chunks down to a sixteenth of a chunk, so the writer has little left to store once the parse is done', async () => {
    const MB = 1 << 20;
    // Whole chunks while two or more are left; then half of what is left, never under 1 MB.
    expect(nextChunkBytes(16 * MB, 100 * MB)).toBe(16 * MB);
    expect(nextChunkBytes(16 * MB, 32 * MB)).toBe(16 * MB);
    expect(nextChunkBytes(16 * MB, 20 * MB)).toBe(10 * MB);
    expect(nextChunkBytes(16 * MB, 3 * MB)).toBe(1.5 * MB);
    expect(nextChunkBytes(16 * MB, 0.25 * MB)).toBe(MB);
    const file = join(t.dir, 'cc.jsonl');
    const text = claudeCodeText({ calls: 900 });
    writeFileSync(file, text);
    const chunk = 256 << 10;
    const sizes: number[] = [];
    const r = await importProgressively(t.store, file, {
      minBytes: 0,
      prefixBytes: 64 << 10,
      chunkBytes: chunk,
      onGrown: (u) => sizes.push(u.size),
    });
    expect(r.pipelined).toBeGreaterThanOrEqual(8);
    const steps = sizes.map((size, k) => size - (sizes[k - 1] ?? 0)).slice(1);
    const longest = Math.max(...text.split('\n').map((l) => Buffer.byteLength(l) + 1));
    // The chunks end short: the last one a sixteenth of a chunk (up to the line that crosses its end), the ones before it growing back.
    expect(steps.at(-1)).toBeLessThanOrEqual(chunk / 16 + longest);
    expect(steps.at(-2)).toBeLessThan(chunk / 2 + longest);
    expect(Math.max(...steps)).toBeGreaterThan(chunk - longest);
    expect(sizes.at(-1)).toBe(Buffer.byteLength(text));
  });

  it('a last line longer than the halved chunk is taken by a whole chunk, not left out', async () => {
    const lines = claudeCodeText({ calls: 900 })
      .split('\n')
      .filter((l) => l !== '');
    // The last line's text made ~200 KB: longer than the last halved chunks, shorter than a chunk.
    const last = JSON.parse(lines.at(-1)!) as { message: { content: unknown } };
    last.message.content = [{ type: 'text', text: 'a long answer '.repeat(15_000) }];
    const file = join(t.dir, 'long-last.jsonl');
    writeFileSync(file, [...lines.slice(0, -1), JSON.stringify(last)].join('\n') + '\n');
    const r = await importProgressively(t.store, file, { minBytes: 0, prefixBytes: 64 << 10, chunkBytes: 256 << 10 });
    expect(r.pipelined).toBeGreaterThanOrEqual(8);
    const whole = openStore(join(t.dir, `whole-${Math.random()}.db`));
    try {
      await importFileToStore(whole, file, { pipeline: true });
      const count = (s: SessionStore): number => s.listSessions()[0]!.messageCount;
      expect(count(t.store)).toBe(count(whole));
      expect(t.store.db.prepare('SELECT size FROM sources').pluck().get()).toBe(Buffer.byteLength(readFileSync(file)));
    } finally {
      whole.close();
    }
  });

  it('a bad line in a later chunk fails the import with its line and leaves nothing, the chunks the writer stored neither', async () => {
    const lines = claudeCodeText({ calls: 900 })
      .split('\n')
      .filter((l) => l !== '');
    const bad = Math.floor(lines.length * 0.7);
    const file = join(t.dir, 'bad.jsonl');
    writeFileSync(file, [...lines.slice(0, bad), '{"type":"assistant",', ...lines.slice(bad)].join('\n') + '\n');
    let grown = 0;
    const error = await importProgressively(t.store, file, {
      minBytes: 0,
      prefixBytes: 64 << 10,
      chunkBytes: 128 << 10,
      onGrown: () => grown++,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Several chunks were stored (and reported) before the bad one.
    expect(grown).toBeGreaterThanOrEqual(3);
    expect(error).toBeInstanceOf(ImportError);
    expect(String((error as Error).message)).toContain(`bad.jsonl:${bad + 1}`);
    for (const table of ['sessions', 'sources', 'messages', 'usage', 'source_lines', 'token_counts'])
      expect([table, t.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()]).toEqual([table, 0]);
  });
});
