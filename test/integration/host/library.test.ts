/**
 * The session library through the host: what listSessions says about each session (title rules,
 * project, tokens, cost, compactions, size), subagents as sessions of their own under their parent
 * and the call that spawned them, and delete — rows and cached results gone, other sessions intact.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { importFileToStore, openStore } from '../../../src/main/store/index';
import { writersFinished } from '../../../src/main/store/import-file';

const fixtures = join(__dirname, '../../fixtures/import');
const claude = join(fixtures, 'claude-code-session.jsonl');
const openhands = join(fixtures, 'openhands-eval.jsonl');
const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-library-'));
  host = await createHost({
    dbPath: join(dir, 'l.db'),
    hostKind: 'serve',
    version: 't',
    initialFiles: [claude, openhands, sample],
    emit: () => {},
  });
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

const list = () => host.handlers.listSessions({});
const rowsOf = (table: string, ids: readonly string[]) =>
  ids.reduce(
    (n, id) => n + (host.store.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`).get(id) as { n: number }).n,
    0,
  );

describe('library', () => {
  it('lists each session with what the library shows, computed at import', async () => {
    const all = await list();
    const cc = all.find((s) => s.format === 'claude-code' && s.sourcePath === claude && s.parentId === null)!;
    expect(cc).toMatchObject({
      title: 'Blank city name crashes forecast',
      cwd: '/home/dev/weather-cli',
      agent: 'Claude Code',
      sourceCompactions: 1,
      fileSize: statSync(claude).size,
      reportedUsage: true,
    });
    expect(cc.promptTokens).toBeGreaterThan(10_000);
    expect(cc.outputTokens).toBeGreaterThan(0);
    expect(cc.cost).toBeGreaterThan(0);
    // The two instances of one OpenHands file are told apart by their instance ids.
    const oh = all.filter((s) => s.sourcePath === openhands);
    expect(oh.map((s) => s.title)).toEqual(['acme__invoices-311', 'acme__invoices-312']);
    expect(oh.map((s) => s.position)).toEqual([0, 1]);
    expect(oh.every((s) => s.agent === 'OpenHands')).toBe(true);
  });

  it('a subagent is a session of its own, under its parent and the Task call that spawned it', async () => {
    const all = await list();
    const parent = all.find((s) => s.sourcePath === claude && s.parentId === null)!;
    const kids = all.filter((s) => s.parentId === parent.id);
    expect(kids).toHaveLength(1);
    const kid = kids[0]!;
    expect(kid).toMatchObject({ spawnedBy: 'toolu_02T', title: expect.stringContaining('Find geocode callers'), steps: 2, messages: 4 });
    // Listed right after its parent.
    expect(all.indexOf(kid)).toBe(all.indexOf(parent) + 1);
    const detail = await host.handlers.getSession({ id: parent.id });
    expect(detail.subagents).toBe(1);
    expect(detail.subagentSessions.map((s) => s.id)).toEqual([kid.id]);
    // The call at spawnedAt is the Task call.
    const page = await host.handlers.getMessages({ sessionId: parent.id, offset: kid.spawnedAt!, limit: 1 });
    expect(page.messages[0]!.parts.some((p) => p.kind === 'tool_call' && p.id === 'toolu_02T' && p.name === 'Task')).toBe(true);
    // It opens and replays like any session.
    const sub = await host.handlers.getSession({ id: kid.id });
    expect(sub.summary.parentId).toBe(parent.id);
    expect(sub.steps).toHaveLength(2);
    const msgs = await host.handlers.getMessages({ sessionId: kid.id, offset: 0, limit: 10 });
    expect(msgs.messages[0]!.parts[0]).toMatchObject({
      kind: 'text',
      text: 'List every caller of geocode() in the repo with file and line.',
    });
    const replay = await host.handlers.runReplay({ sessionId: kid.id, policy: 's0', overrides: {}, needles: [] });
    expect(replay.steps.total).toHaveLength(2);
    // The parent's own window holds none of the subagent's messages.
    expect(detail.summary.messages).toBeGreaterThan(0);
    expect(
      (await host.handlers.getMessages({ sessionId: parent.id, offset: 0, limit: 2000 })).messages.some((m) =>
        m.parts.some((p) => p.kind === 'tool_call' && p.id === 'toolu_S1G'),
      ),
    ).toBe(false);
  });

  it('delete removes a session with its subagents, messages, counts, pins and replay runs; the others stay', async () => {
    const before = await list();
    const parent = before.find((s) => s.sourcePath === claude && s.parentId === null)!;
    const kid = before.find((s) => s.parentId === parent.id)!;
    // Cached results: counts (stored at import and when opened), a replay run, a pin.
    await host.handlers.getSession({ id: parent.id });
    host.store.recordReplay(parent.id, 's0', 'h', { cost: 1 });
    const firstMessage = (await host.handlers.getMessages({ sessionId: parent.id, offset: 0, limit: 1 })).messages[0]!;
    await host.handlers.setPinned({ sessionId: parent.id, messageId: firstMessage.id, pinned: true });
    const listed = (await list()).filter((s) => s.id === parent.id || s.id === kid.id);
    const cached = listed.reduce((n, s) => n + s.cachedResults, 0);
    expect(cached).toBe(rowsOf('token_counts', [parent.id, kid.id]) + rowsOf('replay_runs', [parent.id, kid.id]));
    expect(cached).toBeGreaterThanOrEqual(3);

    const r = await host.handlers.deleteSession({ id: parent.id });
    expect(r).toEqual({ sessions: 2, messages: parent.messages + kid.messages, calls: parent.steps + kid.steps, cachedResults: cached });
    for (const t of ['messages', 'usage', 'token_counts', 'replay_runs', 'pins']) expect(rowsOf(t, [parent.id, kid.id])).toBe(0);
    expect(host.store.db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE id IN (?, ?)').get(parent.id, kid.id)).toEqual({ n: 0 });
    expect(host.store.db.prepare('SELECT COUNT(*) AS n FROM sources WHERE path = ?').get(claude)).toEqual({ n: 0 });
    await expect(host.handlers.getSession({ id: parent.id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(host.handlers.deleteSession({ id: parent.id })).rejects.toMatchObject({ code: 'not_found' });
    // It was the start-up session: a reload must not try to open it.
    expect(host.initialSessionId).toBe(parent.id);
    expect((await host.handlers.getInfo({})).initialSessionId).toBeNull();

    const after = await list();
    expect(after.map((s) => s.id)).toEqual(before.filter((s) => s.id !== parent.id && s.id !== kid.id).map((s) => s.id));
    for (const s of after) expect((await host.handlers.getMessages({ sessionId: s.id, offset: 0, limit: 1 })).total).toBe(s.messages);
    expect(host.store.db.pragma('foreign_key_check')).toEqual([]);
    // Importing the file again brings it back (its stored copy was deleted, not remembered).
    const again = await host.handlers.importFiles({ paths: [claude] });
    expect(again.jobId).toBeTruthy();
    await expect.poll(async () => (await list()).filter((s) => s.sourcePath === claude).length).toBe(2);
  });

  it('delete drops the source lines a JSONL import stored, and only when nothing points at them', async () => {
    const store = openStore(join(dir, 'lines.db'));
    const a = (await importFileToStore(store, claude, { pipeline: true })).sessionIds[0]!;
    const b = (await importFileToStore(store, sample, { pipeline: true })).sessionIds[0]!;
    await writersFinished();
    const lines = () => (store.db.prepare('SELECT COUNT(*) AS n FROM source_lines').get() as { n: number }).n;
    const all = lines();
    expect(all).toBeGreaterThan(0);
    const rawB = store.rawOf(b, 0);
    expect(store.deleteSession(a)).toMatchObject({ sessions: 2 });
    expect(lines()).toBeLessThan(all);
    expect(lines()).toBeGreaterThan(0);
    // The other file's records are still there.
    expect(store.rawOf(b, 0)).toBe(rawB);
    store.deleteSession(b);
    expect(lines()).toBe(0);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM sources').get()).toEqual({ n: 0 });
    store.close();
  });

  it('a database from before the library (v5) opens: rows get title, cwd, tokens, compactions; subagents become rows', async () => {
    const { openDatabase } = await import('../../../src/main/store/db');
    const { SessionStore } = await import('../../../src/main/store/sessions');
    const path = join(dir, 'v5.db');
    const old = new SessionStore(openDatabase(path, { upTo: 5 }));
    const id = (await importFileToStore(old, claude)).sessionIds[0]!;
    old.db.prepare('UPDATE sessions SET title = NULL WHERE id = ?').run(id);
    old.close();
    const store = openStore(path);
    const [row] = store.listLibrary();
    expect(row).toMatchObject({ id, cwd: '/home/dev/weather-cli', compactions: 1, parentId: null, cost: null });
    expect(row!.title).toMatch(/^`weather forecast ""` crashes/);
    expect(row!.promptTokens).toBeGreaterThan(10_000);
    store.close();

    // Its subagent, kept inside the parent's metadata before v6, becomes a session of its own the
    // first time the parent opens (once: opening again adds nothing).
    const legacy = await createHost({ dbPath: path, hostKind: 'serve', version: 't', initialFiles: [], emit: () => {} });
    try {
      expect((await legacy.handlers.listSessions({})).map((s) => s.id)).toEqual([id]);
      const detail = await legacy.handlers.getSession({ id });
      expect(detail.subagents).toBe(1);
      expect(detail.subagentSessions).toHaveLength(1);
      const kid = detail.subagentSessions[0]!;
      expect(kid).toMatchObject({
        parentId: id,
        spawnedBy: 'toolu_02T',
        title: expect.stringContaining('Find geocode callers'),
        messages: 4,
      });
      expect((await legacy.handlers.getSession({ id: kid.id })).steps).toHaveLength(2);
      expect((await legacy.handlers.getSession({ id })).subagentSessions.map((s) => s.id)).toEqual([kid.id]);
      expect((await legacy.handlers.listSessions({})).map((s) => s.id)).toEqual([id, kid.id]);
    } finally {
      await legacy.close();
    }
  });
});
