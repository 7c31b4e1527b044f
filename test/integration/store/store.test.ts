/** The store on a real database file in a temp folder. */
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { countWith } from '../../../src/core/tokens/index';
import { importFileToStore, openDatabase, openStore, schemaVersion, SCHEMA_VERSION } from '../../../src/main/store/index';
import { MIGRATIONS } from '../../../src/main/store/migrations/index';
import { writersFinished } from '../../../src/main/store/import-file';
import { WriterClient } from '../../../src/main/store/writer';
import { packText } from '../../../src/main/store/sessions';

const root = join(__dirname, '..', '..', '..');
const sample = join(root, 'resources', 'sample', 'sample-session.jsonl');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const chatLine = (i: number): string => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `message number ${i} `.repeat(5) });

describe('store', () => {
  it('opens in WAL mode at the current schema version', () => {
    const db = openDatabase(join(dir, 'a.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('imports a file, and importing it again reuses the stored session', async () => {
    const store = openStore(join(dir, 'a.db'));
    const first = await importFileToStore(store, sample);
    expect(first.reused).toBe(false);
    expect(first.sessionIds).toHaveLength(1);
    const again = await importFileToStore(store, sample);
    expect(again).toMatchObject({ reused: true, sessionIds: first.sessionIds });
    expect(store.listSessions()).toHaveLength(1);
    const s = store.loadSession(first.sessionIds[0]!)!;
    expect(s.format).toBe('claude-code');
    expect(s.messages.length).toBe(store.listSessions()[0]!.messageCount);
    expect(s.sourceCompactions).toHaveLength(1);
    // The raw source record is kept for export and display.
    expect(store.rawOf(first.sessionIds[0]!, 0)).toMatch(/"type":"user"/);
    store.close();
  });

  it('a file that grew gets only its new messages, not a second copy', async () => {
    const file = join(dir, 'live.jsonl');
    writeFileSync(file, [0, 1, 2, 3].map(chatLine).join('\n') + '\n');
    const store = openStore(join(dir, 'a.db'));
    const first = await importFileToStore(store, file);
    appendFileSync(file, [4, 5].map(chatLine).join('\n') + '\n');
    const second = await importFileToStore(store, file);
    expect(second.sessionIds).toEqual(first.sessionIds);
    expect(store.listSessions()).toHaveLength(1);
    expect(store.loadSession(first.sessionIds[0]!)!.messages).toHaveLength(6);
    store.close();
  });

  it('a file stored line by line that grew keeps every raw record', async () => {
    const file = join(dir, 'live-lines.jsonl');
    writeFileSync(file, [0, 1, 2, 3].map(chatLine).join('\n') + '\n');
    const store = openStore(join(dir, 'a.db'));
    const first = await importFileToStore(store, file, { pipeline: true });
    await writersFinished();
    appendFileSync(file, [4, 5].map(chatLine).join('\n') + '\n');
    const second = await importFileToStore(store, file, { pipeline: true });
    expect(second.sessionIds).toEqual(first.sessionIds);
    // The old rows still name the first import's lines (its source row is gone); the new ones carry theirs.
    for (let i = 0; i < 6; i++) expect(store.rawOf(first.sessionIds[0]!, i)).toBe(chatLine(i));
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM sources').get()).toEqual({ n: 1 });
    store.close();
  });

  it('a failed import leaves nothing behind', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, [chatLine(0), chatLine(1), '{"role": "user", "content": nope}', chatLine(3)].join('\n'));
    const store = openStore(join(dir, 'a.db'));
    await expect(importFileToStore(store, bad)).rejects.toThrow(/bad\.jsonl:3:\d+: valid JSON/);
    expect(store.listSessions()).toHaveLength(0);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM sources').get()).toEqual({ n: 0 });
    store.close();
  });

  it('a cancelled import leaves nothing behind', async () => {
    const big = join(dir, 'big.jsonl');
    writeFileSync(big, Array.from({ length: 40_000 }, (_, i) => chatLine(i)).join('\n'));
    const store = openStore(join(dir, 'a.db'));
    const controller = new AbortController();
    const p = importFileToStore(store, big, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(p).rejects.toThrow(/cancelled/);
    expect(store.listSessions()).toHaveLength(0);
    store.close();
  });

  it('stores counts per (session, tokenizer) and reads them back as numbers', async () => {
    const store = openStore(join(dir, 'a.db'));
    const { sessionIds } = await importFileToStore(store, sample);
    const id = sessionIds[0]!;
    const s = store.loadSession(id)!;
    const counts = countWith(s, 'chars4');
    store.saveCounts(id, counts);
    store.close();
    const reopened = openStore(join(dir, 'a.db'));
    const back = reopened.loadCounts(id, 'chars4')!;
    expect(Array.from(back.perMessage)).toEqual(Array.from(counts.perMessage));
    expect(back.prefix[back.prefix.length - 1]).toBe(counts.prefix[counts.prefix.length - 1]);
    expect(reopened.loadCounts(id, 'shannon')).toBeUndefined();
    // The import already stored chars/4 estimates.
    expect(reopened.loadCounts(id, 'chars4')).toBeDefined();
    // Loading counts reads numbers through the primary key, never the message text.
    const plan = reopened.db
      .prepare('EXPLAIN QUERY PLAN SELECT counts FROM token_counts WHERE session_id = ? AND tokenizer = ?')
      .all(id, 'chars4') as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING PRIMARY KEY/);
    reopened.close();
  });

  it('migrates forward from every earlier schema version', () => {
    for (let v = 0; v < SCHEMA_VERSION; v++) {
      const path = join(dir, `v${v}.db`);
      const old = openDatabase(path, { upTo: v });
      expect(schemaVersion(old)).toBe(v);
      old.close();
      const db = openDatabase(path);
      expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
      expect(tables).toEqual(
        expect.arrayContaining([
          'sources',
          'sessions',
          'messages',
          'token_counts',
          'usage',
          'policies',
          'replay_runs',
          'summaries',
          'needles',
          'pins',
          'source_lines',
          'probe_runs',
          'probe_consents',
        ]),
      );
      db.close();
    }
    expect(MIGRATIONS.map((m) => m.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('keeps stored sessions through the migration to v4 (messages in a rowid table)', async () => {
    const path = join(dir, 'v3.db');
    const old = openDatabase(path, { upTo: 3 });
    const { SessionStore } = await import('../../../src/main/store/sessions');
    const v3 = new SessionStore(old);
    const { sessionIds } = await importFileToStore(v3, sample);
    const before = v3.loadSession(sessionIds[0]!)!;
    // Read as v3 stored it (this code's rawOf knows v5's line references too).
    const raw0 = (old.prepare('SELECT raw FROM messages WHERE session_id = ? AND idx = 0').get(sessionIds[0]!) as { raw: string }).raw;
    expect(raw0).toMatch(/^\{/);
    v3.close();
    const store = openStore(path);
    expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    expect(store.loadSession(sessionIds[0]!)).toEqual(before);
    expect(store.rawOf(sessionIds[0]!, 0)).toBe(raw0);
    expect(store.loadCounts(sessionIds[0]!, 'chars4')).toBeDefined();
    const sql = (store.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'messages'").get() as { sql: string }).sql;
    expect(sql).not.toMatch(/WITHOUT ROWID/);
    expect(store.db.pragma('foreign_key_check')).toEqual([]);
    store.close();
  });

  it('new databases get 16 KB pages; existing ones keep theirs', () => {
    const db = openDatabase(join(dir, 'p.db'));
    expect(db.pragma('page_size', { simple: true })).toBe(16384);
    db.close();
    const raw = new Database(join(dir, 'q.db'));
    raw.exec('CREATE TABLE t (x)');
    raw.close();
    const q = openDatabase(join(dir, 'q.db'));
    expect(q.pragma('page_size', { simple: true })).toBe(4096);
    q.close();
  });

  it('reuses a stored copy of the same content under another path (hashed while parsed)', async () => {
    const store = openStore(join(dir, 'a.db'));
    const first = await importFileToStore(store, sample);
    const copy = join(dir, 'copy.jsonl');
    copyFileSync(sample, copy);
    // Same size: hashed first, the parse is skipped.
    expect(await importFileToStore(store, copy)).toMatchObject({ reused: true, sessionIds: first.sessionIds });
    // A different file of another size is parsed and hashed on the way, and stored once.
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, [0, 1, 2].map(chatLine).join('\n') + '\n');
    const a = await importFileToStore(store, other);
    expect(a.reused).toBe(false);
    const hash = (store.db.prepare('SELECT hash FROM sources WHERE path = ?').get(other) as { hash: string }).hash;
    const { hashFile } = await import('../../../src/main/store/import-file');
    expect(hash).toBe(await hashFile(other));
    expect(store.listSessions()).toHaveLength(2);
    store.close();
  });

  it('the writer thread stores exactly what the in-thread path stores', async () => {
    const a = openStore(join(dir, 'a.db'));
    const b = openStore(join(dir, 'b.db'));
    const viaThread = await importFileToStore(a, sample, { pipeline: false });
    const viaWriter = await importFileToStore(b, sample, { pipeline: true });
    // Text beyond ASCII: CJK, emoji, a lone surrogate escape.
    const intl = join(dir, 'intl.jsonl');
    const texts = ['日本語のテキスト', 'emoji 😀👩‍💻', 'lone \\ud800 surrogate', 'Ünïcödé'];
    writeFileSync(intl, texts.map((t, i) => `{"role":"${i % 2 ? 'assistant' : 'user'}","content":"${t}"}`).join('\n') + '\n');
    const ta = (await importFileToStore(a, intl, { pipeline: false })).sessionIds[0]!;
    const tb = (await importFileToStore(b, intl, { pipeline: true })).sessionIds[0]!;
    expect(b.loadSession(tb)).toEqual(a.loadSession(ta));
    for (let i = 0; i < texts.length; i++) expect(b.rawOf(tb, i)).toBe(a.rawOf(ta, i));
    await writersFinished();
    const [ia, ib] = [viaThread.sessionIds[0]!, viaWriter.sessionIds[0]!];
    expect(b.loadSession(ib)).toEqual(a.loadSession(ia));
    const n = a.getRow(ia)!.messageCount;
    expect(b.getRow(ib)).toMatchObject({ ...a.getRow(ia), id: ib, importedAt: expect.any(Number) });
    for (let i = 0; i < n; i++) expect(b.rawOf(ib, i)).toBe(a.rawOf(ia, i));
    expect(Array.from(b.loadCounts(ib, 'chars4')!.perMessage)).toEqual(Array.from(a.loadCounts(ia, 'chars4')!.perMessage));
    const usage = (s: typeof a, id: string) =>
      s.db
        .prepare('SELECT idx, convention, input, cache_read, cache_write, output, reasoning FROM usage WHERE session_id = ? ORDER BY idx')
        .all(id);
    expect(usage(b, ib)).toEqual(usage(a, ia));
    // The writer checkpointed the WAL into the database and let go of it.
    expect(b.db.pragma('integrity_check', { simple: true })).toBe('ok');
    b.setPinned(ib, 'x', true);
    a.close();
    b.close();
  });

  it('a writer dropped mid-transaction leaves nothing and releases the database', async () => {
    const path = join(dir, 'w.db');
    const store = openStore(path);
    const writer = WriterClient.start({ dbPath: path });
    writer.post({ type: 'begin', source: { path: 'p', size: 1, hash: 'h', format: 'jsonl' }, now: 1 });
    const session = {
      id: 's',
      position: 0,
      sourceSessionId: 's',
      format: 'jsonl' as const,
      title: null,
      model: null,
      meta: '{}',
      messageCount: 2,
      steps: 0,
      turns: 0,
      hasUsage: 0,
      startedAt: null,
      importedAt: 1,
    };
    const m0 = { from: 0, ids: ['m'], roles: ['user'], bodies: ['{}'], raws: [null], rawLines: new Int32Array(1), usage: [null] };
    const m1 = { from: 1, ids: ['n'], roles: ['user'], bodies: ['{}'], raws: ['{"x":1}'], rawLines: new Int32Array(1), usage: [null] };
    await writer.postBatch({ sessions: [session], segments: [{ sessionId: 's', ...m0 }], packed: packText([m0]), counts: [] });
    await writer.postBatch({ sessions: [], segments: [{ sessionId: 's', ...m1 }], packed: packText([m1]), counts: [] });
    await writer.abort();
    expect(store.listSessions()).toHaveLength(0);
    // The write lock went with it: this connection can write at once.
    store.db.pragma('busy_timeout = 0');
    store.summarySet('k', 'v');
    expect(store.summaryGet('k')).toBe('v');
    store.close();
  }, 30_000);

  it('a JSONL import through the writer stores the lines once and names them from the message rows', async () => {
    const a = openStore(join(dir, 'a.db'));
    const b = openStore(join(dir, 'b.db'));
    // CRLF, a byte-order mark, blank lines, text beyond ASCII, and a line longer than one read.
    const odd = join(dir, 'odd.jsonl');
    const long = 'x'.repeat(1_500_000);
    const text = [
      '\uFEFF{"role":"user","content":"héllo 日本"}',
      '',
      '{"role":"assistant","content":"' + long + '"}',
      '   ',
      '{"role":"user","content":"last"}',
    ].join('\r\n');
    writeFileSync(odd, text);
    for (const file of [odd, join(root, 'test/fixtures/import/claude-code-session.jsonl'), sample]) {
      const ia = (await importFileToStore(a, file, { pipeline: false })).sessionIds[0]!;
      const ib = (await importFileToStore(b, file, { pipeline: true })).sessionIds[0]!;
      await writersFinished();
      expect(b.loadSession(ib)).toEqual(a.loadSession(ia));
      const n = a.getRow(ia)!.messageCount;
      for (let i = 0; i < n; i++) expect(b.rawOf(ib, i)).toBe(a.rawOf(ia, i));
      // The writer's rows carry no copy: each names its line; the in-thread rows keep the text.
      const copies = (s: typeof a, id: string) =>
        s.db.prepare('SELECT COUNT(raw) AS raw, COUNT(raw_line) AS line FROM messages WHERE session_id = ?').get(id);
      expect(copies(b, ib)).toEqual({ raw: 0, line: n });
      expect(copies(a, ia)).toEqual({ raw: n, line: 0 });
    }
    // The writer skips the foreign-key lookups; what it wrote still satisfies every key.
    expect(b.db.pragma('foreign_key_check')).toEqual([]);
    // Every non-empty line of the file is kept, with its hash on the source.
    const src = b.db.prepare('SELECT id, hash FROM sources WHERE path = ?').get(odd) as { id: number; hash: string };
    const { hashFile } = await import('../../../src/main/store/import-file');
    expect(src.hash).toBe(await hashFile(odd));
    const stored = b.db
      .prepare('SELECT id - ? AS line, text FROM source_lines WHERE id BETWEEN ? AND ? ORDER BY id')
      .all(src.id * 2 ** 32, src.id * 2 ** 32, (src.id + 1) * 2 ** 32 - 1);
    expect(stored).toEqual([
      { line: 1, text: '{"role":"user","content":"héllo 日本"}' },
      { line: 3, text: '{"role":"assistant","content":"' + long + '"}' },
      { line: 4, text: '   ' },
      { line: 5, text: '{"role":"user","content":"last"}' },
    ]);
    a.close();
    b.close();
  }, 60_000);

  it('batches for the writer stay near 1 MB of text when records are named by line', async () => {
    // 600 messages of 20 KB: without raw text to go by, the batches are sized by the bodies.
    const file = join(dir, 'wide.jsonl');
    writeFileSync(
      file,
      Array.from({ length: 600 }, (_, i) =>
        JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `${i} ${'y'.repeat(20_000)}` }),
      ).join('\n') + '\n',
    );
    const sizes: number[] = [];
    const original = WriterClient.prototype.postBatch;
    const spy = vi.spyOn(WriterClient.prototype, 'postBatch').mockImplementation(function (this: WriterClient, batch) {
      sizes.push(batch.packed.text.byteLength);
      return original.call(this, batch);
    });
    const store = openStore(join(dir, 'a.db'));
    try {
      const { sessionIds } = await importFileToStore(store, file, { pipeline: true });
      expect(store.rawOf(sessionIds[0]!, 599)).toContain('"599 y');
    } finally {
      spy.mockRestore();
      store.close();
    }
    expect(sizes.length).toBeGreaterThan(5);
    expect(Math.max(...sizes)).toBeLessThan(2_000_000);
  }, 60_000);

  it('a failed or cancelled import through the writer thread leaves nothing behind', async () => {
    const store = openStore(join(dir, 'a.db'));
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, [chatLine(0), chatLine(1), '{"role": "user", "content": nope}', chatLine(3)].join('\n'));
    await expect(importFileToStore(store, bad, { pipeline: true })).rejects.toThrow(/valid JSON/);
    const big = join(dir, 'big.jsonl');
    writeFileSync(big, Array.from({ length: 40_000 }, (_, i) => chatLine(i)).join('\n'));
    const controller = new AbortController();
    await expect(
      importFileToStore(store, big, { pipeline: true, signal: controller.signal, onProgress: () => controller.abort() }),
    ).rejects.toThrow(/cancelled/);
    expect(store.listSessions()).toHaveLength(0);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM sources').get()).toEqual({ n: 0 });
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM source_lines').get()).toEqual({ n: 0 });
    // Then a real import goes through.
    expect((await importFileToStore(store, big, { pipeline: true })).sessionIds).toHaveLength(1);
    await writersFinished();
    expect(store.loadSession(store.listSessions()[0]!.id)!.messages).toHaveLength(40_000);
    store.close();
  }, 60_000);

  it('refuses a database from a newer version without touching it', () => {
    const path = join(dir, 'new.db');
    const raw = new Database(path);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => openDatabase(path)).toThrow(/schema version 99, newer than this app knows/);
  });

  it('survives SIGKILL in the middle of a large import: integrity ok, no partial session', async () => {
    const big = join(dir, 'huge.jsonl');
    writeFileSync(big, Array.from({ length: 150_000 }, (_, i) => chatLine(i)).join('\n'));
    const dbPath = join(dir, 'kill.db');
    openStore(dbPath).close();
    const script = `
      import { openStore, importFileToStore } from ${JSON.stringify(join(root, 'src/main/store/index.ts'))};
      const store = openStore(${JSON.stringify(dbPath)});
      let told = false;
      await importFileToStore(store, ${JSON.stringify(big)}, { onProgress: (p) => { if (!told && p.bytes > 1_000_000) { told = true; process.stdout.write('importing\\n'); } } });
      process.stdout.write('done\\n');
    `;
    writeFileSync(join(dir, 'kill.mts'), script);
    const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(dir, 'kill.mts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('importing')) {
          child.kill('SIGKILL');
          resolve();
        }
        if (d.toString().includes('done')) reject(new Error('the import finished before it could be killed'));
      });
      child.on('error', reject);
    });
    await new Promise((r) => child.on('exit', r));
    const db = openDatabase(dbPath);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.prepare('SELECT COUNT(*) AS n FROM sessions').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM messages').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM source_lines').get()).toEqual({ n: 0 });
    db.close();
  }, 60_000);

  it('keeps pins, summaries and saved policies', async () => {
    const store = openStore(join(dir, 'a.db'));
    const { sessionIds } = await importFileToStore(store, sample);
    const id = sessionIds[0]!;
    const mid = store.loadSession(id)!.messages[3]!.id;
    store.setPinned(id, mid, true);
    expect(store.pins(id).has(mid)).toBe(true);
    store.setPinned(id, mid, false);
    expect(store.pins(id).size).toBe(0);
    store.summarySet('k', 'v');
    expect(store.summaryGet('k')).toBe('v');
    store.savePolicy('mine', 'My policy', { trigger: 0.6 });
    expect(store.savedPolicies()).toEqual([{ id: 'mine', label: 'My policy', config: { trigger: 0.6 } }]);
    store.close();
  });
});

void copyFileSync;
void readFileSync;
