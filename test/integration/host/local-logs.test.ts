/**
 * listLocalLogs on a fixture tree shaped like the agents' own folders (the env variables point
 * at it): files grouped by project (Claude Code's cwd, Codex's cwd else its date folder, Gemini
 * CLI's project hash), newest first; only files under the roots; a link pointing outside a root
 * is neither listed nor importable; what is already stored says so, and a file that grew says
 * it changed.
 */
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalLogsView } from '../../../src/shared/api';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { agentLogRoots, ImportAllowList } from '../../../src/main/host/import-allow';
import { decodeClaudeProject, listLocalLogs, localLogRoots } from '../../../src/main/host/local-logs';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let home: string;
let host: Host;

/**
 * Writes a file and sets its mtime to `minutesAgo` before the run's start (not a fixed instant: a
 * test that appends to a fixture gives it the real time, which must not overtake the fixtures by date).
 */
const NOW = Math.floor(Date.now() / 1000);
function file(path: string, text: string, minutesAgo: number): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, NOW - minutesAgo * 60, NOW - minutesAgo * 60);
  return path;
}

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'ctxscope-locallogs-')));
  home = join(dir, 'home');
  const claude = join(dir, 'claude-config', 'projects');
  const codex = join(dir, 'codex-home', 'sessions');
  const gemini = join(home, '.gemini', 'tmp');
  // Claude Code: one project whose sessions write their cwd, one whose folder name is all there is.
  const cwdLine = JSON.stringify({ type: 'user', cwd: '/home/ana/web-app', uuid: 'u', message: { role: 'user', content: 'hi' } }) + '\n';
  file(join(claude, '-home-ana-web-app', 'old.jsonl'), cwdLine, 300);
  file(join(claude, '-home-ana-web-app', 'new.jsonl'), cwdLine, 10);
  file(join(claude, '-home-ana-web-app', 'new', 'subagents', 'agent-1.jsonl'), cwdLine, 5);
  file(join(claude, '-tmp-scratch', 'a.jsonl'), JSON.stringify({ type: 'summary', summary: 's' }) + '\n', 100);
  copyFileSync(sample, join(claude, '-tmp-scratch', 'sample.jsonl'));
  utimesSync(join(claude, '-tmp-scratch', 'sample.jsonl'), NOW - 120 * 60, NOW - 120 * 60);
  file(join(claude, '-tmp-scratch', 'notes.txt'), 'not a session', 1);
  // Links: one to a file outside every root (never listed), one to a file of the same root (listed once).
  file(join(dir, 'secret.jsonl'), '{"type":"user"}\n', 0);
  symlinkSync(join(dir, 'secret.jsonl'), join(claude, '-tmp-scratch', 'escape.jsonl'));
  symlinkSync(join(claude, '-tmp-scratch', 'a.jsonl'), join(claude, '-tmp-scratch', 'alias.jsonl'));
  symlinkSync(dir, join(claude, '-tmp-scratch', 'loop'));
  // Codex: the cwd is in the session_meta line; a session without one goes under its date folder.
  const meta = (cwd: string) =>
    JSON.stringify({ timestamp: '2026-11-20T10:00:00Z', type: 'session_meta', payload: { id: 'x', cwd, instructions: 'x'.repeat(200) } }) +
    '\n';
  file(join(codex, '2026', '11', '20', 'rollout-a.jsonl'), meta('/home/ana/api'), 200);
  file(join(codex, '2026', '11', '21', 'rollout-b.jsonl'), meta('/home/ana/api'), 20);
  file(join(codex, '2026', '11', '22', 'rollout-c.jsonl'), JSON.stringify({ type: 'response_item', payload: {} }) + '\n', 50);
  // Gemini CLI: chats under the project hash; logs.json is the prompt log, not a session.
  file(join(gemini, '3f2a9c', 'chats', 'session-2026-11-24.json'), '{"sessionId":"g","projectHash":"3f2a9c","messages":[]}', 30);
  file(join(gemini, '3f2a9c', 'logs.json'), '[]', 2);
  // Outside every root.
  file(join(home, 'elsewhere.jsonl'), cwdLine, 0);
  vi.stubEnv('CLAUDE_CONFIG_DIR', join(dir, 'claude-config'));
  vi.stubEnv('CODEX_HOME', join(dir, 'codex-home'));
  vi.stubEnv('HOME', home);
  host = await createHost({ dbPath: join(dir, 'h.db'), hostKind: 'serve', version: 't', initialFiles: [], emit: () => {} });
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = (v: LocalLogsView) => v.groups.map((g) => `${g.agent} ${g.project}: ${g.files.map((f) => f.name).join(', ')}`);

describe('listLocalLogs', () => {
  it('groups by project, newest group and file first, from the env roots only', async () => {
    const view = await host.handlers.listLocalLogs({});
    expect(names(view)).toEqual([
      'claude-code /home/ana/web-app: new.jsonl, old.jsonl',
      'codex /home/ana/api: 2026/11/21/rollout-b.jsonl, 2026/11/20/rollout-a.jsonl',
      'gemini-cli 3f2a9c: chats/session-2026-11-24.json',
      'codex 2026/11/22: 2026/11/22/rollout-c.jsonl',
      // The newest session has no cwd in its head: the folder name, decoded.
      'claude-code /tmp/scratch: a.jsonl, sample.jsonl',
    ]);
    expect(view.truncated).toBe(0);
    const all = view.groups.flatMap((g) => g.files.map((f) => f.path));
    for (const p of all)
      expect(p.startsWith(dir + '/claude-config/') || p.startsWith(dir + '/codex-home/') || p.startsWith(home + '/.gemini/tmp/')).toBe(
        true,
      );
    expect(all.some((p) => p.includes('secret') || p.includes('elsewhere') || p.includes('escape'))).toBe(false);
    expect(view.roots.map((r) => [r.agent, r.exists])).toEqual([
      ['claude-code', true],
      ['codex', true],
      ['gemini-cli', true],
      ['upload', false],
    ]);
  });

  it("a link pointing outside a root is neither listed nor importable through serve's allow-list", () => {
    const allow = new ImportAllowList();
    for (const r of agentLogRoots()) allow.allowRoot(r);
    expect(allow.allows(join(dir, 'claude-config', 'projects', '-tmp-scratch', 'escape.jsonl'))).toBe(false);
    expect(allow.allows(join(dir, 'claude-config', 'projects', '-tmp-scratch', 'sample.jsonl'))).toBe(true);
  });

  it('a root created after serve started becomes importable then (the agent was installed later)', () => {
    const allow = new ImportAllowList();
    const later = join(dir, 'later-home', '.gemini', 'tmp');
    allow.allowRoot(later);
    const f = file(join(later, 'abc', 'chats', 's.json'), '{}', 0);
    expect(allow.allows(f)).toBe(true);
    expect(allow.allows(join(dir, 'secret.jsonl'))).toBe(false);
  });

  it('says which files are stored, and which changed since', async () => {
    const path = join(dir, 'claude-config', 'projects', '-tmp-scratch', 'sample.jsonl');
    const { jobId } = await host.handlers.importFiles({ paths: [path] });
    expect(jobId).toBeTruthy();
    let entry;
    for (let i = 0; i < 200 && !entry?.sessionIds.length; i++) {
      await new Promise((r) => setTimeout(r, 20));
      entry = (await host.handlers.listLocalLogs({})).groups.flatMap((g) => g.files).find((f) => f.path === path);
    }
    expect(entry?.sessionIds).toHaveLength(1);
    expect(entry?.changed).toBe(false);
    expect((await host.handlers.listSessions({})).map((s) => s.id)).toContain(entry!.sessionIds[0]);
    appendFileSync(path, readFileSync(sample, 'utf8').split('\n')[0] + '\n');
    const after = (await host.handlers.listLocalLogs({})).groups.flatMap((g) => g.files).find((f) => f.path === path);
    expect(after?.changed).toBe(true);
  });

  it('stops at its cap and says how many it left out', async () => {
    const view = await listLocalLogs(localLogRoots(agentLogRoots(), null), { imported: () => undefined, maxFiles: 3 });
    expect(view.groups.flatMap((g) => g.files)).toHaveLength(3);
    expect(view.truncated).toBeGreaterThan(0);
  });

  it('lists uploads as their own group, by the name the user gave', async () => {
    const uploads = join(dir, 'uploads');
    // Newer than every agent log, including one an earlier test appended to (dated the real now).
    file(join(uploads, '0b7c3c1e-8a51-4a3e-9a43-0e8f3c1f2a11-mine.jsonl'), '{}\n', -60);
    file(join(uploads, '1c7c3c1e-8a51-4a3e-9a43-0e8f3c1f2a11-arriving.jsonl.part'), '{}\n', 0);
    const view = await listLocalLogs(localLogRoots(agentLogRoots(), uploads), { imported: () => undefined });
    expect(names(view)[0]).toBe('upload Uploaded files: mine.jsonl');
  });

  it('decodes a Claude Code project folder to its cwd', () => {
    expect(decodeClaudeProject('-home-ana-web')).toBe('/home/ana/web');
    expect(decodeClaudeProject('plain')).toBe('plain');
  });
});
