/**
 * Cancel, as the progress panel's button does it on `serve`: the import runs in the built worker
 * (out/cli/import-worker.js; the test is skipped without a build), cancelImport stops it mid-file,
 * and afterwards nothing of it is stored — no session, no source, no message row — and the next
 * import goes through (the cancelled worker left no lock behind).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src/shared/api';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { writeClaudeCodeJsonl } from '../../bench/corpus';

const worker = join(__dirname, '../../../out/cli/import-worker.js');
const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;
const events: { event: EventName; payload: EventPayload<EventName> }[] = [];

const waitFor = async <T>(what: string, get: () => T | undefined, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe.skipIf(!existsSync(worker))('cancelling an import in the worker', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctxscope-cancel-'));
    await writeClaudeCodeJsonl(join(dir, 'big.jsonl'), 30);
    host = await createHost({
      dbPath: join(dir, 'h.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [sample],
      importWorkerFile: worker,
      emit: (event, payload) => events.push({ event, payload }),
    });
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves no session, source or message row, and the next import works', async () => {
    const count = (table: string) => (host.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const before = {
      sessions: (await host.handlers.listSessions({})).map((s) => s.id),
      sources: count('sources'),
      messages: count('messages'),
    };
    const { jobId } = await host.handlers.importFiles({ paths: [join(dir, 'big.jsonl')] });
    await waitFor('progress', () =>
      events.find(
        (e) =>
          e.event === 'importProgress' &&
          (e.payload as EventPayload<'importProgress'>).jobId === jobId &&
          (e.payload as EventPayload<'importProgress'>).bytes > 0,
      ),
    );
    expect((await host.handlers.cancelImport({ jobId })).cancelled).toBe(true);
    const end = await waitFor('the end of the job', () =>
      events.find((e) => (e.event === 'importFailed' || e.event === 'importDone') && (e.payload as { jobId: string }).jobId === jobId),
    );
    expect(end.event).toBe('importFailed');
    expect((end.payload as EventPayload<'importFailed'>).cancelled).toBe(true);
    expect((await host.handlers.listSessions({})).map((s) => s.id)).toEqual(before.sessions);
    expect(count('sources')).toBe(before.sources);
    expect(count('messages')).toBe(before.messages);

    const small = join(dir, 'small.jsonl');
    writeFileSync(small, readFileSync(sample, 'utf8').split('\n').slice(0, 30).join('\n') + '\n');
    const next = await host.handlers.importFiles({ paths: [small] });
    const done = await waitFor(
      'the next import',
      () =>
        events.find(
          (e) => (e.event === 'importDone' || e.event === 'importFailed') && (e.payload as { jobId: string }).jobId === next.jobId,
        ),
      30_000,
    );
    expect(done.event).toBe('importDone');
  }, 120_000);
});
