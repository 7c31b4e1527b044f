/**
 * `POST /api/upload?name=…` as `serve` wires it: the token is required, the name is sanitised
 * (never a path), the body is streamed to disk while it arrives, a body over the limit answers
 * 413 with the limit and leaves nothing behind, and a stored upload is imported (jobId) — its
 * events name the file as the user chose it, never where the server put it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName } from '../../../src/shared/api';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { ImportAllowList } from '../../../src/main/host/import-allow';
import { sanitiseUploadName, Uploads, uploadLimit, DEFAULT_UPLOAD_LIMIT } from '../../../src/main/host/uploads';
import { startHttpHost, type HttpHost } from '../../../src/main/transport/http';
import { uploadRoute } from '../../../src/main/transport/upload';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
const LIMIT = 1024 * 1024;
let dir: string;
let uploads: string;
let host: Host;
let http: HttpHost;
const events: { event: EventName; payload: Record<string, unknown> }[] = [];

interface Answer {
  status: number;
  json: { ok: boolean; value?: { jobId: string; name: string }; error?: { code: string; message: string } };
}

/** Sends `chunks` one after the other (no Content-Length when `chunked`); `between` runs after the first. */
function upload(
  query: string,
  chunks: Buffer[],
  opts: { token?: string | null; chunked?: boolean; between?: () => Promise<void> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const total = chunks.reduce((n, c) => n + c.length, 0);
    const headers: Record<string, string> = { host: `127.0.0.1:${http.port}`, 'content-type': 'application/octet-stream' };
    if (opts.token !== null) headers['authorization'] = `Bearer ${opts.token ?? http.token}`;
    if (!opts.chunked) headers['content-length'] = String(total);
    const req = request({ host: '127.0.0.1', port: http.port, path: `/api/upload${query}`, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Answer['json'] }));
    });
    req.on('error', reject);
    void (async () => {
      for (let i = 0; i < chunks.length; i++) {
        req.write(chunks[i]);
        if (i === 0 && opts.between) await opts.between();
      }
      req.end();
    })();
  });
}

const waitFor = async (what: string, ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-upload-'));
  uploads = join(dir, 'uploads');
  mkdirSync(uploads);
  uploads = realpathSync(uploads);
  const allow = new ImportAllowList();
  // Wired as serve wires it (src/cli/commands/serve.ts).
  const tracker = new Uploads(allow, (paths) => host.handlers.importFiles({ paths }));
  host = await createHost({
    dbPath: join(dir, 'h.db'),
    hostKind: 'serve',
    version: 't',
    initialFiles: [],
    importAllow: allow,
    emit: (event, payload) => events.push({ event, payload: tracker.event(event, payload) as Record<string, unknown> }),
  });
  http = await startHttpHost({
    handlers: host.handlers,
    staticDir: dir,
    routes: {
      '/api/upload': uploadRoute({
        dir: uploads,
        maxBytes: LIMIT,
        accept: (stored, name) => tracker.accept(stored, name),
      }),
    },
  });
});
afterAll(async () => {
  await http.close();
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('upload route', () => {
  it('refuses a request without the token, or with a wrong one, and stores nothing', async () => {
    for (const token of [null, 'wrong']) {
      const r = await upload('?name=a.jsonl', [Buffer.from('{}\n')], { token });
      expect(r.status).toBe(401);
    }
    expect(readdirSync(uploads)).toEqual([]);
  });

  it('answers 413 with the limit for a declared size over it, and keeps nothing', async () => {
    const r = await upload('?name=big.jsonl', [Buffer.alloc(LIMIT + 1, 0x61)]);
    expect(r.status).toBe(413);
    expect(r.json.error?.message).toMatch(
      /^big\.jsonl: 1\.0 MiB is over this server's upload limit of 1\.0 MiB \(start serve with CTXSCOPE_UPLOAD_LIMIT_MB=N/,
    );
    expect(readdirSync(uploads)).toEqual([]);
  });

  it('answers 413 when a body without a length grows past the limit, and removes what it wrote', async () => {
    const r = await upload('?name=stream.jsonl', [Buffer.alloc(LIMIT / 2, 0x61), Buffer.alloc(LIMIT, 0x61)], { chunked: true });
    expect(r.status).toBe(413);
    expect(r.json.error?.message).toMatch(/more than .* upload limit/);
    expect(readdirSync(uploads)).toEqual([]);
  });

  it('writes the body to disk while it still arrives, then imports it under a sanitised name', async () => {
    const body = readFileSync(sample);
    const cut = 4096;
    let partSeen = 0;
    const r = await upload('?name=' + encodeURIComponent('../../etc/pass wd<script>.jsonl'), [body.subarray(0, cut), body.subarray(cut)], {
      chunked: true,
      // Streamed: the first bytes are on disk before the rest of the request has been sent.
      between: () =>
        waitFor('the first chunk on disk', () => {
          const part = readdirSync(uploads).find((f) => f.endsWith('.part'));
          partSeen = part ? statSync(join(uploads, part)).size : 0;
          return partSeen >= cut;
        }),
    });
    expect(partSeen).toBe(cut);
    expect(r.status).toBe(200);
    expect(r.json.value?.name).toBe('pass_wd_script_.jsonl');
    expect(JSON.stringify(r.json)).not.toContain(uploads);
    const stored = readdirSync(uploads);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(/^[0-9a-f-]{36}-pass_wd_script_\.jsonl$/);
    expect(readFileSync(join(uploads, stored[0]!)).equals(body)).toBe(true);
    const jobId = r.json.value!.jobId;
    await waitFor('the import', () => events.some((e) => e.event === 'importDone' && e.payload['jobId'] === jobId));
    const done = events.find((e) => e.event === 'importDone' && e.payload['jobId'] === jobId)!;
    expect((done.payload['sessionIds'] as string[]).length).toBeGreaterThan(0);
    const sessions = await host.handlers.listSessions({});
    expect(sessions.some((s) => s.sourcePath === join(uploads, stored[0]!))).toBe(true);
    // Events about the upload name it as the user chose it.
    const progress = events.filter((e) => e.event === 'importProgress' && e.payload['jobId'] === jobId);
    for (const p of progress) expect(p.payload['file']).toBe('pass_wd_script_.jsonl');
  });

  it("a bad upload fails with the importer's file:line message, naming the upload, not its path", async () => {
    const lines = readFileSync(sample, 'utf8').split('\n');
    const broken = [...lines.slice(0, 5), '{"type":"assistant", broken', ...lines.slice(5, 8)].join('\n');
    const r = await upload('?name=broken.jsonl', [Buffer.from(broken)]);
    expect(r.status).toBe(200);
    const jobId = r.json.value!.jobId;
    await waitFor('the failure', () => events.some((e) => e.event === 'importFailed' && e.payload['jobId'] === jobId));
    const failed = events.find((e) => e.event === 'importFailed' && e.payload['jobId'] === jobId)!;
    expect(failed.payload['error']).not.toContain(uploads);
    expect(failed.payload['error']).toMatch(/^broken\.jsonl:6:\d+: valid JSON/);
    // Not kept as a session, so not kept on disk.
    await waitFor('the failed upload removed', () => !readdirSync(uploads).some((f) => f.endsWith('-broken.jsonl')));
  });

  it('a copy of a file already stored opens that session and is not kept twice', async () => {
    const before = readdirSync(uploads).length;
    const r = await upload('?name=again.jsonl', [readFileSync(sample)]);
    expect(r.status).toBe(200);
    const jobId = r.json.value!.jobId;
    await waitFor('the import', () => events.some((e) => e.event === 'importDone' && e.payload['jobId'] === jobId));
    expect(events.find((e) => e.event === 'importDone' && e.payload['jobId'] === jobId)!.payload['reused']).toBe(true);
    await waitFor('the copy removed', () => readdirSync(uploads).length === before);
  });

  it('refuses an upload without a name, and an empty one', async () => {
    expect((await upload('', [Buffer.from('x')])).status).toBe(400);
    const empty = await upload('?name=e.jsonl', [Buffer.alloc(0)]);
    expect(empty.status).toBe(400);
    expect(empty.json.error?.message).toMatch(/empty/);
    expect(readdirSync(uploads).filter((f) => f.includes('e.jsonl'))).toEqual([]);
  });
});

describe('upload names and limit', () => {
  it('keeps only the last path segment, safe characters, never a dot file or an empty name', () => {
    expect(sanitiseUploadName('C:\\Users\\x\\s.jsonl')).toBe('s.jsonl');
    expect(sanitiseUploadName('/a/b/../.hidden')).toBe('hidden');
    expect(sanitiseUploadName('..')).toBe('upload');
    expect(sanitiseUploadName('ü ñ.jsonl')).toBe('___.jsonl');
    expect(sanitiseUploadName('a'.repeat(300) + '.jsonl')).toHaveLength(120);
    expect(sanitiseUploadName('x'.repeat(300) + '.jsonl').endsWith('.jsonl')).toBe(true);
  });

  it('reads CTXSCOPE_UPLOAD_LIMIT_MB, ignoring nonsense', () => {
    expect(uploadLimit({ CTXSCOPE_UPLOAD_LIMIT_MB: '5' })).toBe(5 * 1024 * 1024);
    expect(uploadLimit({ CTXSCOPE_UPLOAD_LIMIT_MB: '-1' })).toBe(DEFAULT_UPLOAD_LIMIT);
    expect(uploadLimit({})).toBe(DEFAULT_UPLOAD_LIMIT);
  });
});

describe('upload route: the client leaves before the answer', () => {
  it('cancels the import it started when the job id cannot reach the client (Cancel as the upload finished)', async () => {
    const abandoned: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let accepted = false;
    const own = await startHttpHost({
      handlers: host.handlers,
      staticDir: dir,
      routes: {
        '/api/upload': uploadRoute({
          dir: uploads,
          maxBytes: LIMIT,
          // The import "starts" but its answer is held until the client is gone.
          accept: async () => {
            accepted = true;
            await gate;
            return { jobId: 'j-late' };
          },
          abandon: (jobId) => void abandoned.push(jobId),
        }),
      },
    });
    try {
      const body = Buffer.from('{"role":"user","content":"hi"}\n');
      const req = request({
        host: '127.0.0.1',
        port: own.port,
        path: '/api/upload?name=late.jsonl',
        method: 'POST',
        headers: { host: `127.0.0.1:${own.port}`, authorization: `Bearer ${own.token}`, 'content-length': String(body.length) },
      });
      req.on('error', () => {});
      req.end(body);
      await waitFor('the body stored', () => accepted);
      req.destroy();
      await new Promise((r) => setTimeout(r, 50));
      release();
      await waitFor('the abandon', () => abandoned.length > 0);
      expect(abandoned).toEqual(['j-late']);
    } finally {
      await own.close();
    }
  });
});
