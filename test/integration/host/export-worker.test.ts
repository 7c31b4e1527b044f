/**
 * exportSession and previewExport off the host's request thread: while the
 * redaction preview of a long session runs, a request that arrives after it (`getInfo`, from the
 * next turn of the event loop, as an HTTP request would) is answered first; a newer preview on the
 * same channel makes the older answer `cancelled`; and what the worker builds is what the same
 * builder makes in this thread.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accuracyOf } from '../../../src/main/host/accuracy';
import { importSource, stringSource } from '../../../src/core/import/index';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { exportFor } from '../../../src/main/host/exports';
import { previewFor } from '../../../src/main/host/export-preview';
import { ApiError } from '../../../src/shared/api';
import { writeClaudeCodeJsonl } from '../../bench/corpus';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let file: string;
let host: Host;
let id: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-export-worker-'));
  file = join(dir, 'long.jsonl');
  await writeClaudeCodeJsonl(file, 0, { calls: 3000 });
  host = await createHost({ dbPath: join(dir, 'h.db'), hostKind: 'serve', version: 't', initialFiles: [file], emit: () => {} });
  id = host.initialSessionId!;
}, 60_000);
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

const big = () => ({
  sessionId: id,
  overrides: {},
  at: 'end' as const,
  to: 'openai' as const,
  redact: true,
  redactPatterns: ['/module\\d+/'],
});
const errorOf = async (p: Promise<unknown>): Promise<ApiError | 'resolved'> =>
  p.then(
    () => 'resolved' as const,
    (e: unknown) => (e instanceof ApiError ? e : new ApiError('internal', String(e))),
  );

describe('export off the request thread', () => {
  it('answers getInfo, asked after a big preview started, before that preview', async () => {
    const order: string[] = [];
    const preview = host.handlers.previewExport({ ...big(), channel: 'order' }).then((p) => (order.push('preview'), p));
    // The next request arrives on a later turn of the event loop, as one from the network does.
    const info = new Promise<void>((resolve, reject) =>
      setImmediate(() => host.handlers.getInfo({}).then(() => (order.push('getInfo'), resolve()), reject)),
    );
    const [p] = await Promise.all([preview, info]);
    expect(order).toEqual(['getInfo', 'preview']);
    expect(p.redactions).toBeGreaterThan(0);
  }, 60_000);

  it('a newer preview on the same channel cancels the older; another channel is left alone', async () => {
    const older = errorOf(host.handlers.previewExport({ ...big(), channel: 'dialog' }));
    const other = host.handlers.previewExport({ ...big(), channel: 'other-tab' });
    const newer = host.handlers.previewExport({ ...big(), redactPatterns: ['/module\\d+/', 'order total'], channel: 'dialog' });
    const e = await older;
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe('cancelled');
    expect((e as ApiError).message).toMatch(/superseded/);
    const [n, o] = await Promise.all([newer, other]);
    expect(n.patternProblems).toEqual([null, null]);
    expect(o.redactions).toBeGreaterThan(0);
    // The preview without a channel shares the default one: the dialog's.
    const a = errorOf(host.handlers.previewExport(big()));
    const b = host.handlers.previewExport(big());
    expect(((await a) as ApiError).code).toBe('cancelled');
    expect((await b).redactions).toBe(o.redactions);
  }, 60_000);

  it('builds exactly what the same builder makes in this thread: text, name, counts', async () => {
    const session = (await importSource(stringSource(file, readFileSync(file, 'utf8')))).sessions[0]!;
    const stored = (await host.handlers.listSessions({})).find((s) => s.id === id)!;
    const row = { id, title: stored.title, sourcePath: file };
    const local = { ...session, id };
    const noReplay = () => Promise.reject(new Error('no replay for a whole-session export'));
    for (const to of ['openai', 'anthropic', 'jsonl', 'markdown'] as const) {
      const args = { ...big(), to, builtins: ['keys', 'bearer', 'email'] as ('keys' | 'bearer' | 'email')[] };
      const viaWorker = await host.handlers.exportSession(args);
      const inThread = await exportFor(local, row, args, noReplay);
      expect(viaWorker.fileName).toBe(inThread.fileName);
      expect(viaWorker.redactions).toBe(inThread.redactions);
      expect(viaWorker.text).toBe(inThread.text);
    }
    const preview = await host.handlers.previewExport({ ...big(), redactPatterns: ['/module\\d+/', '/(unclosed/'] });
    const localPreview = await previewFor(local, row, { ...big(), redactPatterns: ['/module\\d+/', '/(unclosed/'] }, noReplay);
    expect(preview).toEqual(localPreview);
    expect(preview.patternProblems[1]).not.toBeNull();
  }, 120_000);

  it('answers getInfo, asked after a big getAccuracy started, before it; and the same view as in this thread', async () => {
    const order: string[] = [];
    const accuracy = host.handlers.getAccuracy({ sessionId: id }).then((a) => (order.push('accuracy'), a));
    const info = new Promise<void>((resolve, reject) =>
      setImmediate(() => host.handlers.getInfo({}).then(() => (order.push('getInfo'), resolve()), reject)),
    );
    const [a] = await Promise.all([accuracy, info]);
    expect(order).toEqual(['getInfo', 'accuracy']);
    expect(a).toEqual(accuracyOf(host.store.loadSession(id)!));
    // A tokenizer the worker does not know is still the caller's mistake, with its code.
    const e = await errorOf(host.handlers.getAccuracy({ sessionId: id, tokenizer: 'no-such-tokenizer' }));
    expect((e as ApiError).code).toBe('bad_input');
  }, 60_000);

  it('never parses the session on the host thread to export or to measure accuracy', async () => {
    // A host of its own: this one has parsed nothing yet (the shared one may hold the session).
    const fresh = await createHost({
      dbPath: join(dir, 'fresh.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [sample],
      emit: () => {},
    });
    const sid = fresh.initialSessionId!;
    const load = vi.spyOn(fresh.store, 'loadSession');
    try {
      const p = await fresh.handlers.previewExport({ ...big(), sessionId: sid, channel: 'parse' });
      const x = await fresh.handlers.exportSession({ ...big(), sessionId: sid, to: 'markdown' });
      const a = await fresh.handlers.getAccuracy({ sessionId: sid });
      expect(p.messages).toBeGreaterThan(0);
      expect(x.text.length).toBeGreaterThan(0);
      expect(a.calls.length).toBeGreaterThan(0);
      expect(load).not.toHaveBeenCalled();
    } finally {
      load.mockRestore();
      await fresh.close();
    }
  }, 60_000);
});
