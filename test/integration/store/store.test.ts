/** The store on a real database file in a temp folder. */
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countWith } from '../../../src/core/tokens/index';
import { importFileToStore, openDatabase, openStore, schemaVersion, SCHEMA_VERSION } from '../../../src/main/store/index';
import { MIGRATIONS } from '../../../src/main/store/migrations/index';

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
    const plan = reopened.db.prepare("EXPLAIN QUERY PLAN SELECT counts FROM token_counts WHERE session_id = ? AND tokenizer = ?").all(id, 'chars4') as { detail: string }[];
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
      expect(tables).toEqual(expect.arrayContaining(['sources', 'sessions', 'messages', 'token_counts', 'usage', 'policies', 'replay_runs', 'summaries', 'needles', 'pins']));
      db.close();
    }
    expect(MIGRATIONS.map((m) => m.version)).toEqual([1, 2, 3]);
  });

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
    const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(dir, 'kill.mts')], { stdio: ['ignore', 'pipe', 'inherit'] });
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
