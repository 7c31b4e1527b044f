/**
 * The summarizer key, bound to a local server that fails in every way it can (500, malformed
 * JSON, a dropped socket, 429 with Retry-After) and sometimes answers: it is sent to that server
 * and appears nowhere else — not in the host's replay results, its errors, any export target,
 * the database file or its WAL; not in what the CLI prints on stdout or stderr. A successful
 * summary's text is found in the database (the check can see what was stored).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { EXPORT_TARGETS } from '../../../src/shared/api';
import { startTestServer, summaryAnswer, type Handler, type TestServer } from '../../helpers/http-server';

const KEY = 'sk-leak-check-9f8e7d6c5b4a39281706';
const SUMMARY = 'Summary from the flaky local server.';
const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');

/** Request n gets the n-th of these, round and round: four faults, then an answer. */
const cycle: Handler[] = [
  (_req, _body, res) => {
    res.writeHead(500);
    res.end();
  },
  (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"choices": [');
  },
  (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '300' });
    res.write('{"choices"');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  (_req, _body, res) => {
    res.writeHead(429, { 'retry-after': '0' });
    res.end();
  },
  summaryAnswer(SUMMARY),
];

let dir: string;
let file: string;
let server: TestServer;
const saved = { key: process.env['OPENAI_API_KEY'], url: process.env['CTXSCOPE_SUMMARIZER_URL'] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-leak-'));
  file = join(dir, 'chat.jsonl');
  const filler = (tag: string): string => `${tag} `.repeat(200).slice(0, 400);
  const lines: string[] = [];
  for (let t = 0; t < 20; t++)
    lines.push(JSON.stringify({ role: 'user', content: filler(`u${t}`) }), JSON.stringify({ role: 'assistant', content: filler(`a${t}`) }));
  writeFileSync(file, lines.join('\n') + '\n');
  server = await startTestServer((req, body, res, n) => cycle[n % cycle.length]!(req, body, res, n));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const overrides = (url: string) => ({
  tokenizer: 'chars4',
  window: 2000,
  summarizer: 'openai',
  summarizerModel: 'local',
  summarizerUrl: url,
});

describe('the summarizer key stays with its endpoint through faults', () => {
  it('host: not in results, errors, exports of any target, the database or its WAL', async () => {
    // The environment key, bound to the local server (the host reads it when it builds the summarizer).
    process.env['OPENAI_API_KEY'] = KEY;
    process.env['CTXSCOPE_SUMMARIZER_URL'] = server.url;
    const dbPath = join(dir, 'host.db');
    let host: Host | undefined;
    const bytes = (): Buffer =>
      Buffer.concat([readFileSync(dbPath), ...(existsSync(`${dbPath}-wal`) ? [readFileSync(`${dbPath}-wal`)] : [])]);
    try {
      host = await createHost({ dbPath, hostKind: 'serve', version: 't', initialFiles: [file], emit: () => {} });
      const sessionId = host.initialSessionId!;
      const before = server.requests.length;
      const result = await host.handlers.runReplay({ sessionId, policy: 'letta', overrides: overrides(server.url), needles: [] });
      const sent = server.requests.slice(before);
      expect(sent.length).toBeGreaterThan(1);
      for (const q of sent) expect(q.headers.authorization).toBe(`Bearer ${KEY}`);
      const failures = result.events.filter((e) => e.kind === 'summarizer-failure');
      expect(failures.length).toBeGreaterThan(0);
      // The view leaves summary texts to the step detail: the remote summary is in a compression's.
      const details = await Promise.all(
        result.events
          .filter((e) => e.kind === 'compression')
          .map((e) =>
            host!.handlers.getStepDetail({ sessionId, policy: 'letta', overrides: overrides(server.url), needles: [], step: e.step }),
          ),
      );
      expect(details.some((d) => d.compression?.summary === SUMMARY)).toBe(true);
      expect(JSON.stringify(details)).not.toContain(KEY);
      expect(JSON.stringify(result)).not.toContain(KEY);

      for (const to of EXPORT_TARGETS) {
        const e = await host.handlers.exportSession({
          sessionId,
          policy: 'letta',
          overrides: overrides(server.url),
          at: 'end',
          to,
          redact: false,
          redactPatterns: [],
        });
        expect(e.text.length, to).toBeGreaterThan(0);
        expect(e.text, to).not.toContain(KEY);
      }
      // An error the host answers with (a bad override beside the summarizer settings) does not carry it either.
      const bad = await host.handlers
        .runReplay({ sessionId, policy: 'letta', overrides: { ...overrides(server.url), trigger: 'lots' }, needles: [] })
        .catch((e: unknown) => e);
      expect(String(bad)).toMatch(/trigger/);
      expect(String(bad)).not.toContain(KEY);
      expect(JSON.stringify(bad)).not.toContain(KEY);

      // While open (the WAL holds the latest writes) and after closing (checkpointed into the file).
      expect(bytes().includes(SUMMARY)).toBe(true);
      expect(bytes().includes(KEY)).toBe(false);
      await host.close();
      host = undefined;
      expect(bytes().includes(SUMMARY)).toBe(true);
      expect(bytes().includes(KEY)).toBe(false);
    } finally {
      await host?.close();
      for (const [k, v] of [
        ['OPENAI_API_KEY', saved.key],
        ['CTXSCOPE_SUMMARIZER_URL', saved.url],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }, 120_000);

  it('CLI: not on stdout or stderr of replay (text and JSON) or export to any target', async () => {
    const env = {
      ...process.env,
      OPENAI_API_KEY: KEY,
      CTXSCOPE_SUMMARIZER_URL: server.url,
      ANTHROPIC_API_KEY: '',
      CTXSCOPE_SUMMARIZER_KEY: '',
      CTXSCOPE_DB: join(dir, 'cli.db'),
    };
    const sets = Object.entries(overrides(server.url)).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
    const run = (args: string[]): Promise<{ status: number | null; out: string }> =>
      new Promise((resolve) => {
        // Async: the server in this process must answer the child.
        const child = spawn(process.execPath, [bin, ...args], { cwd: root, env });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (status) => resolve({ status, out }));
      });
    const before = server.requests.length;
    const text = await run(['replay', file, '--policy', 'letta', ...sets]);
    expect(text.status, text.out).toBe(0);
    const json = await run(['replay', file, '--policy', 'letta', ...sets, '--json']);
    expect(json.status, json.out).toBe(0);
    expect(json.out).toContain('"summarizer-failure"');
    const sent = server.requests.slice(before);
    expect(sent.length).toBeGreaterThan(1);
    for (const q of sent) expect(q.headers.authorization).toBe(`Bearer ${KEY}`);
    for (const out of [text.out, json.out]) expect(out).not.toContain(KEY);
    for (const to of EXPORT_TARGETS) {
      const e = await run(['export', file, '--policy', 'letta', ...sets, '--to', to]);
      expect(e.status, e.out).toBe(0);
      expect(e.out, to).not.toContain(KEY);
    }
  }, 180_000);
});
