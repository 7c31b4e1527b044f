/**
 * `serve`'s host over real HTTP: importFiles reads only the files it was started with, uploads and
 * the agent-log roots, answering one sentence for every refused path (existing or not); a
 * malformed %-escape and an unknown `custom:` strategy are the client's errors (400), and a
 * policy saved in the app that names a stranger's summarizer is refused by name.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { agentLogRoots, ImportAllowList, REFUSED_IMPORT } from '../../../src/main/host/import-allow';
import { startHttpHost, type HttpHost } from '../../../src/main/transport/http';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;
let http: HttpHost;
let logs: string;
let named: string;

function call(path: string, body: unknown): Promise<{ status: number; json: { ok: boolean; error?: { code: string; message: string } } }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port: http.port,
        path,
        method: 'POST',
        headers: { host: `127.0.0.1:${http.port}`, authorization: `Bearer ${http.token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as never }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-serve-sec-'));
  logs = join(dir, 'claude', 'projects');
  mkdirSync(join(logs, 'p1'), { recursive: true });
  copyFileSync(sample, join(logs, 'p1', 'log.jsonl'));
  symlinkSync('/etc/hostname', join(logs, 'p1', 'escape.jsonl'));
  named = join(dir, 'named.jsonl');
  copyFileSync(sample, named);
  const allow = new ImportAllowList();
  allow.allowFile(named);
  allow.allowRoot(logs);
  host = await createHost({
    dbPath: join(dir, 'h.db'),
    hostKind: 'serve',
    version: 't',
    initialFiles: [named],
    emit: () => {},
    importAllow: allow,
  });
  http = await startHttpHost({ handlers: host.handlers, staticDir: dir, port: 0 });
});
afterAll(async () => {
  await http.close();
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('serve: what importFiles may read', () => {
  it('refuses every path outside its files and roots with the same answer, existing or not', async () => {
    const answers = [];
    for (const p of [
      '/etc/shadow',
      '/etc/passwd',
      '/no/such/file',
      join(logs, 'p1', 'escape.jsonl'),
      join(logs, 'p1', 'missing.jsonl'),
      logs,
      join(logs, '..', '..', 'named.jsonl.bak'),
    ]) {
      const r = await call('/api/importFiles', { paths: [p] });
      answers.push(JSON.stringify([r.status, r.json]));
    }
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0]!)).toEqual([400, { ok: false, error: { code: 'bad_input', message: REFUSED_IMPORT } }]);
  });

  it('imports a file named at start-up and one under an agent-log root', async () => {
    for (const p of [named, join(logs, 'p1', 'log.jsonl')]) {
      const r = await call('/api/importFiles', { paths: [p] });
      expect(r.status, p).toBe(200);
    }
  });

  it('an upload is importable once the uploads hook allows it', () => {
    const allow = new ImportAllowList();
    const upload = join(dir, 'upload.jsonl');
    writeFileSync(upload, '{}\n');
    expect(allow.allows(upload)).toBe(false);
    allow.allowFile(upload);
    expect(allow.allows(upload)).toBe(true);
  });

  it('the agent-log roots follow CLAUDE_CONFIG_DIR and CODEX_HOME', () => {
    expect(agentLogRoots({ CLAUDE_CONFIG_DIR: '/c', CODEX_HOME: '/x' }, '/h')).toEqual(['/c/projects', '/x/sessions', '/h/.gemini/tmp']);
    expect(agentLogRoots({}, '/h')).toEqual(['/h/.claude/projects', '/h/.codex/sessions', '/h/.gemini/tmp']);
  });
});

describe('serve: client errors are 400, not 500', () => {
  it('a malformed %-escape in the method name', async () => {
    const r = await call('/api/list%E0%A4%ASessions', {});
    expect(r.status).toBe(400);
    expect(r.json.error?.code).toBe('bad_input');
  });

  it('a pipeline naming a custom: strategy the app does not have', async () => {
    const r = await call('/api/runReplay', { sessionId: host.initialSessionId, policy: 's0', overrides: { pipeline: 'custom:x' } });
    expect(r.status).toBe(400);
    expect(r.json.error?.message).toMatch(/custom:x|strategy "x"/);
  });

  it("a saved policy that names a stranger's summarizer is refused, naming the host and how to allow it", async () => {
    const exported = await host.handlers.exportPolicy({ id: 'letta' });
    const p = JSON.parse(exported.text) as { id: string; config: Record<string, unknown> };
    p.id = 'shared-one';
    Object.assign(p.config, { summarizer: 'openai', summarizerModel: 'm', summarizerUrl: 'http://anyone.example/v1' });
    await host.handlers.savePolicy({ json: JSON.stringify(p) });
    const r = await call('/api/runReplay', { sessionId: host.initialSessionId, policy: 'shared-one', overrides: {} });
    expect(r.status).toBe(400);
    expect(r.json.error?.message).toMatch(/anyone\.example.*allow/);
  });
});
