/**
 * The HTTP transport of `ctxscope serve`, against a fake handler table: bound to 127.0.0.1,
 * token on every API call, Host and Origin checked, payloads validated by the contract's
 * schemas, static files served without escaping the renderer folder.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, toJsonText, type Handlers } from '../../../src/shared/api';
import type { ChartViewWire } from '../../../src/shared/marker-columns';
import { startHttpHost, type HttpHost } from '../../../src/main/transport/http';

const calls: string[] = [];
const unsupported = async (): Promise<never> => {
  throw new ApiError('unsupported', 'not here');
};
// An answer written ahead (the replay worker's chart view): the transport never looks inside it.
const chartWritten = {
  key: 'k1',
  stepCount: 3,
  markers: { texts: ['compression'], label: [0] },
  note: 'quote " and \u2028 kept',
} as unknown as ChartViewWire;
const handlers: Handlers = {
  getInfo: async () => ({ version: '0.0.0', host: 'serve', dbPath: ':memory:', initialSessionId: null }),
  listSessions: async () => {
    calls.push('listSessions');
    return [];
  },
  getSession: async ({ id }) => {
    throw new ApiError('not_found', `no session with id "${id}"`);
  },
  getMessages: async ({ offset, limit }) => {
    calls.push(`getMessages ${offset} ${limit}`);
    return { total: 0, messages: [] };
  },
  listPolicies: async () => [],
  runReplay: unsupported,
  getChartView: async () => toJsonText(chartWritten),
  getStepDetail: unsupported,
  getConfigFields: unsupported,
  getAccuracy: unsupported,
  compare: unsupported,
  importFiles: unsupported,
  pickAndImport: unsupported,
  cancelImport: async () => ({ cancelled: false }),
  exportSession: unsupported,
  setPinned: unsupported,
  // A record that happens to look like text written ahead: sent as the object it is.
  getRawRecord: async () => ({ jsonText: '"raw"' }) as unknown as { record: string | null; line: number | null },
  savePolicy: unsupported,
  deletePolicy: unsupported,
  deleteSession: unsupported,
  listLocalLogs: unsupported,
  runTune: unsupported,
  cancelTune: unsupported,
  exportPolicy: unsupported,
  previewExport: unsupported,
  watchSession: unsupported,
  startFleet: unsupported,
  cancelFleet: unsupported,
  listFleetRuns: unsupported,
  getFleetResults: unsupported,
  openFleetSession: unsupported,
  planProbe: unsupported,
  runProbe: unsupported,
  listProbes: unsupported,
};

let host: HttpHost;
let staticDir: string;

beforeAll(async () => {
  staticDir = mkdtempSync(join(tmpdir(), 'ctxscope-static-'));
  mkdirSync(join(staticDir, 'assets'));
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  host = await startHttpHost({ handlers, staticDir, port: 0 });
});
afterAll(async () => host.close());

function call(
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, method: init.method ?? 'POST', headers: init.headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
const auth = (): Record<string, string> => ({ Authorization: `Bearer ${host.token}` });

describe('serve transport', () => {
  it('listens on 127.0.0.1 and prints a URL carrying the token', () => {
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/?token=${encodeURIComponent(host.token)}`);
    expect(host.token.length).toBeGreaterThanOrEqual(32);
    const address = host.server.address();
    expect(typeof address === 'object' && address?.address).toBe('127.0.0.1');
  });

  it('refuses API calls without the token or with a wrong one (401), and runs the handler with it', async () => {
    calls.length = 0;
    expect((await call('/api/listSessions', { body: '{}' })).status).toBe(401);
    // Same length, first character changed to one it is not (a fixed 'x' equals the token 1 run in 64).
    const wrong = (host.token[0] === 'x' ? 'y' : 'x') + host.token.slice(1);
    expect(wrong).not.toBe(host.token);
    expect((await call('/api/listSessions', { body: '{}', headers: { Authorization: `Bearer ${wrong}` } })).status).toBe(401);
    expect(calls).toEqual([]);
    const ok = await call('/api/listSessions', { body: '{}', headers: auth() });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ ok: true, value: [] });
    expect(calls).toEqual(['listSessions']);
  });

  it('refuses a foreign Host header (DNS rebinding) and a foreign Origin', async () => {
    expect((await call('/api/listSessions', { body: '{}', headers: { ...auth(), Host: 'evil.example' } })).status).toBe(403);
    expect((await call('/', { method: 'GET', headers: { Host: `attacker.test:${host.port}` } })).status).toBe(403);
    expect((await call('/api/listSessions', { body: '{}', headers: { ...auth(), Origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('validates payloads against the contract and names the bad field', async () => {
    const bad = await call('/api/getMessages', { body: JSON.stringify({ sessionId: 's', offset: -1, limit: 10 }), headers: auth() });
    expect(bad.status).toBe(400);
    const body = JSON.parse(bad.body) as { ok: boolean; error: { code: string; message: string } };
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe('bad_input');
    expect(body.error.message).toMatch(/offset/);
    const extra = await call('/api/listSessions', { body: JSON.stringify({ sneaky: 1 }), headers: auth() });
    expect(extra.status).toBe(400);
    const notJson = await call('/api/listSessions', { body: '{nope', headers: auth() });
    expect(notJson.status).toBe(400);
    const unknown = await call('/api/dropTables', { body: '{}', headers: auth() });
    expect(unknown.status).toBe(400);
    expect((JSON.parse(unknown.body) as { error: { message: string } }).error.message).toBe('unknown method "dropTables"');
  });

  it('sends an answer written ahead (JsonText) as the envelope of its value, the text as it is', async () => {
    const res = await call('/api/getChartView', { body: JSON.stringify({ sessionId: 's', policy: 's0', buckets: 64 }), headers: auth() });
    expect(res.status).toBe(200);
    expect(res.body).toBe(`{"ok":true,"value":${JSON.stringify(chartWritten)}}`);
    expect(JSON.parse(res.body)).toEqual({ ok: true, value: chartWritten });
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    // Only a WrittenAhead method's answer is taken as text: any other is written as JSON.
    const other = await call('/api/getRawRecord', { body: JSON.stringify({ sessionId: 's', index: 0 }), headers: auth() });
    expect(JSON.parse(other.body)).toEqual({ ok: true, value: { jsonText: '"raw"' } });
  });

  it('carries handler errors with their code', async () => {
    const res = await call('/api/getSession', { body: JSON.stringify({ id: 'nope' }), headers: auth() });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: { code: 'not_found', message: 'no session with id "nope"' } });
  });

  it('serves the renderer with a strict CSP and never a file outside its folder', async () => {
    const index = await call('/', { method: 'GET' });
    expect(index.status).toBe(200);
    expect(String(index.headers['content-security-policy'])).toContain("default-src 'none'");
    expect((await call('/assets/app.js', { method: 'GET' })).status).toBe(200);
    expect((await call('/../../etc/passwd', { method: 'GET' })).status).not.toBe(200);
    expect((await call('/assets/%2e%2e/%2e%2e/%2e%2e/etc/passwd', { method: 'GET' })).status).not.toBe(200);
  });
});
