/**
 * previewExport on a real host: the same file name and redaction count the save produces, the
 * messages of the compacted history at a call, bad user patterns named per line, and names from
 * the session's title with one extension.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { createHost, type Host } from '../../../src/main/host/handlers';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;
let id: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-export-'));
  host = await createHost({ dbPath: join(dir, 'h.db'), hostKind: 'serve', version: 't', initialFiles: [sample], emit: () => {} });
  id = host.initialSessionId!;
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

const base = { overrides: {}, at: 'end' as const, redact: true, redactPatterns: [] as string[] };

describe('previewExport', () => {
  it('promises what the save then holds: name, messages, redactions', async () => {
    const req = { ...base, sessionId: id, policy: 'claude-code', at: 12, to: 'openai' as const, redactPatterns: ['/ORD-\\d+/'] };
    const p = await host.handlers.previewExport(req);
    const e = await host.handlers.exportSession(req);
    expect(p.fileName).toBe(e.fileName);
    expect(p.fileName).toMatch(/\.claude-code\.call-12\.openai\.json$/);
    expect(p.redactions).toBe(e.redactions);
    expect(p.byKind.custom).toBeGreaterThan(0);
    expect(Object.values(p.byKind).reduce((a, b) => a + b, 0)).toBe(p.redactions);
    // The file imports back with the messages the preview counted (the summary travels as system).
    const back = await importSource(stringSource(e.fileName, e.text));
    expect(back.sessions[0]!.messages.length).toBe(p.messages);
  });

  it('counts every replacement the file holds, the title in its heading included', async () => {
    // The sample's title names the ticket (ORD-1187): the unredacted markdown holds every match, title and all.
    const req = { ...base, sessionId: id, to: 'markdown' as const, redactPatterns: ['/ORD-\\d+/'] };
    // Patterns imply redaction (docs/SECURITY.md): the plain file is the one written without them.
    const plain = await host.handlers.exportSession({ ...req, redact: false, redactPatterns: [] });
    const inFile = plain.text.match(/ORD-\d+/g)?.length ?? 0;
    expect(plain.text.split('\n')[0]).toMatch(/ORD-\d+/);
    const p = await host.handlers.previewExport(req);
    expect(p.byKind.custom).toBe(inFile);
    expect((await host.handlers.exportSession(req)).text).not.toMatch(/ORD-\d+/);
  });

  it('names bad patterns per line and counts with the good ones; the save refuses them', async () => {
    const req = { ...base, sessionId: id, to: 'markdown' as const, redactPatterns: ['ORD-1187', '/(?=x)/', '/[/'] };
    const p = await host.handlers.previewExport(req);
    expect(p.patternProblems[0]).toBeNull();
    expect(p.patternProblems[1]).toMatch(/lookahead/);
    expect(p.patternProblems[2]).toMatch(/not a valid regular expression/);
    expect(p.byKind.custom).toBeGreaterThan(0);
    await expect(host.handlers.exportSession(req)).rejects.toThrow(/redaction pattern/);
  });

  it('a report has no messages and no redactions; a file titled x.jsonl exports as x.jsonl', async () => {
    const r = await host.handlers.previewExport({ ...base, sessionId: id, policy: 's3', to: 'report-csv' });
    expect(r).toMatchObject({ messages: null, redactions: 0, extension: 'csv' });
    expect(r.fileName).toMatch(/\.s3\.report\.csv$/);
    const file = join(dir, 'run-41.jsonl');
    writeFileSync(file, '{"role":"user","content":"run-41.jsonl"}\n{"role":"assistant","content":"hello"}\n');
    const { jobId } = await host.handlers.importFiles({ paths: [file] });
    expect(jobId).toBeTruthy();
    // Top-level sessions only: the sample's subagents are listed too, under their parent.
    const topLevel = async () => (await host.handlers.listSessions({})).filter((s) => !s.parentId);
    await expect.poll(async () => (await topLevel()).length, { timeout: 10_000 }).toBe(2);
    const other = (await topLevel()).find((s) => s.id !== id)!;
    const j = await host.handlers.previewExport({ ...base, sessionId: other.id, to: 'jsonl', redact: false });
    expect(j.fileName).not.toMatch(/\.jsonl\.jsonl$/);
    // Its title is its first prompt, which ends in .jsonl: the name must not double the extension.
    expect(other.title).toBe('run-41.jsonl');
    expect(j.fileName).toBe('run-41.jsonl');
  });
});
