/**
 * Store faults (docs/reliability.md): a database corrupted in the middle, one that cannot be
 * written, a WAL left by a killed writer, a full disk. Each is noticed on open or at the first
 * write, named by its path, and never leaves part of an import behind.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/index';
import { createHost } from '../../../src/main/host/handlers';
import { importFileToStore, isReadOnly, openDatabase, openStore, openStoreChecked, StoreError } from '../../../src/main/store/index';
import { runWriter, type WriterReply, type WriterRequest } from '../../../src/main/store/writer';

const root = join(__dirname, '..', '..', '..');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-faults-'));
});
afterEach(() => {
  // Undo a test's chmod so the folder can be removed.
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

const chatLine = (i: number): string => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `message number ${i} `.repeat(20) });
function transcript(name: string, lines: number): string {
  const file = join(dir, name);
  writeFileSync(file, Array.from({ length: lines }, (_, i) => chatLine(i)).join('\n') + '\n');
  return file;
}

/** A real database of a few hundred pages, with one page in the middle overwritten. */
async function corruptDatabase(): Promise<string> {
  const path = join(dir, 'sessions.db');
  const store = openStore(path);
  await importFileToStore(store, transcript('chat.jsonl', 3000), { pipeline: false });
  store.close();
  const pageSize = 16384;
  const pages = statSync(path).size / pageSize;
  expect(pages).toBeGreaterThan(50);
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, Math.floor(pages / 2) * pageSize);
  closeSync(fd);
  return path;
}

const asideFiles = (): string[] => readdirSync(dir).filter((f) => /^sessions\.db\.corrupt-/.test(f));

/** Runs the CLI in this process; its exit code and what it wrote on stderr. */
async function cli(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    stderr += String(s);
    return true;
  });
  try {
    return { code: await main(args), stderr };
  } finally {
    spy.mockRestore();
  }
}

describe('a database corrupted in the middle', () => {
  it('is refused on open with its path, and moved aside (not deleted)', async () => {
    const path = await corruptDatabase();
    expect(() => openStore(path, { check: true })).toThrow(StoreError);
    expect(existsSync(path)).toBe(false);
    expect(asideFiles()).toHaveLength(1);
    // The moved file is the damaged database itself, byte for byte the same size.
    expect(statSync(join(dir, asideFiles()[0]!)).size).toBeGreaterThan(50 * 16384);
  });

  it('`ctxscope sessions` and `import` fail naming the file instead of going on', async () => {
    const path = await corruptDatabase();
    const listed = await cli('sessions', '--db', path);
    expect(listed.code).not.toBe(0);
    expect(listed.stderr).toContain(`the database ${path} is corrupt`);
    expect(listed.stderr).toMatch(/moved to .*sessions\.db\.corrupt-/);
    // The next run starts a new database: an import goes into that one.
    const again = await cli('import', '--db', path, transcript('b.jsonl', 4));
    expect(again.code).toBe(0);
    expect(openStore(path, { check: true }).listSessions()).toHaveLength(1);
  });

  it('the app starts a fresh database and says so', async () => {
    const path = await corruptDatabase();
    const host = await createHost({ dbPath: path, hostKind: 'serve', version: 't', initialFiles: [], emit: () => {} });
    try {
      const info = await host.handlers.getInfo({});
      expect(info.notices).toHaveLength(1);
      expect(info.notices![0]).toContain(`the database ${path} is corrupt`);
      expect(info.notices![0]).toMatch(/a new, empty database was started/);
      expect(await host.handlers.listSessions({})).toEqual([]);
      expect(asideFiles()).toHaveLength(1);
    } finally {
      await host.close();
    }
  });

  it('a sound database opens without a notice', async () => {
    const path = join(dir, 'sessions.db');
    openStore(path).close();
    const { store, notices } = openStoreChecked(path, { check: true, recover: true });
    expect(notices).toEqual([]);
    store.close();
  });
});

describe('a database that cannot be written', () => {
  async function stored(): Promise<string> {
    const path = join(dir, 'sessions.db');
    const store = openStore(path);
    await importFileToStore(store, transcript('a.jsonl', 6), { pipeline: false });
    store.close();
    return path;
  }

  // As root, chmod does not stop a write; the `readonly: true` open below covers that case.
  it.skipIf(process.getuid?.() === 0)('a read-only folder opens for browsing; imports are refused clearly', async () => {
    const path = await stored();
    chmodSync(dir, 0o555);
    const { store, notices } = openStoreChecked(path, { check: true });
    expect(notices[0]).toMatch(/folder is read-only; opened read-only for browsing/);
    expect(store.listSessions()).toHaveLength(1);
    await expect(importFileToStore(store, join(dir, 'a.jsonl'))).rejects.toThrow(/is open read-only: cannot import/);
    store.close();
  });

  it('opened read-only: browsing works, an import is refused, a write names the database', async () => {
    const path = await stored();
    const store = openStore(path, { readonly: true, check: true });
    expect(isReadOnly(store)).toBe(true);
    expect(store.listSessions()).toHaveLength(1);
    await expect(importFileToStore(store, transcript('b.jsonl', 4))).rejects.toThrow(
      `the database ${path} is open read-only: cannot import`,
    );
    // SQLite's own message names no file; the store's does.
    expect(() => store.summarySet('k', 'v')).toThrow(`the database ${path} is open read-only: attempt to write a readonly database`);
    store.close();
  });
});

describe('a WAL left by a killed writer', () => {
  it('is checkpointed into the database on the next open', () => {
    const path = join(dir, 'sessions.db');
    openStore(path).close();
    // A writer that commits 2,000 rows with automatic checkpoints off, then dies without closing.
    const script = `
      const Database = require(${JSON.stringify(join(root, 'node_modules/better-sqlite3'))});
      const db = new Database(${JSON.stringify(path)});
      db.pragma('wal_autocheckpoint = 0');
      const put = db.prepare('INSERT INTO summaries (key, summary, created_at) VALUES (?, ?, 0)');
      db.transaction(() => { for (let i = 0; i < 2000; i++) put.run('k' + i, 'v'.repeat(500)); })();
      process.kill(process.pid, 'SIGKILL');
    `;
    const r = spawnSync(process.execPath, ['-e', script]);
    expect(r.signal).toBe('SIGKILL');
    const wal = `${path}-wal`;
    expect(statSync(wal).size).toBeGreaterThan(1_000_000);
    const store = openStore(path, { check: true });
    // TRUNCATE: the frames are in the database file and the WAL is back to nothing.
    expect(statSync(wal).size).toBe(0);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM summaries').get()).toEqual({ n: 2000 });
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    store.close();
  });
});

describe('a full disk', () => {
  it('fails the import with a clear error naming the database, and stores nothing of it', async () => {
    const path = join(dir, 'sessions.db');
    const store = openStore(path);
    // The file may grow by 20 pages (320 KB): far less than the 3 MB transcript needs.
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages + 20}`);
    const big = transcript('big.jsonl', 6000);
    // The input and the database, both named.
    await expect(importFileToStore(store, big, { pipeline: false })).rejects.toThrow(
      `cannot import ${big}: the database ${path}: database or disk is full (SQLITE_FULL)`,
    );
    expect(store.listSessions()).toHaveLength(0);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM sources').get()).toEqual({ n: 0 });
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM messages').get()).toEqual({ n: 0 });
    // A small import still fits afterwards: the failed one released its pages.
    await importFileToStore(store, transcript('small.jsonl', 4), { pipeline: false });
    expect(store.listSessions()).toHaveLength(1);
    store.close();
    const db = openDatabase(path, { check: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
});

describe('the writer thread', () => {
  it('names the database in what SQLite says (its own messages name no file)', () => {
    const path = join(dir, 'sessions.db');
    openStore(path).close();
    const replies: WriterReply[] = [];
    let send: ((m: WriterRequest) => void) | undefined;
    runWriter(
      { on: (_e, listener) => (send = listener), postMessage: (m) => replies.push(m), close: () => {} },
      { role: 'writer', dbPath: path },
    );
    const begin: WriterRequest = { type: 'begin', source: { path: join(dir, 'in.jsonl'), size: 1, hash: 'h', format: 'jsonl' }, now: 0 };
    send!(begin);
    // A second BEGIN inside the transaction: SQLite refuses it.
    send!(begin);
    const error = replies.find((r) => r.type === 'error');
    expect(error).toMatchObject({
      type: 'error',
      message: expect.stringContaining(`the database ${path}: cannot start a transaction within a transaction (SQLITE_ERROR)`) as unknown,
    });
  });
});
