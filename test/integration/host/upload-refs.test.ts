/**
 * serve's page never sees where uploads are kept: with a file in the uploads folder imported and
 * stored, no answer of any method the page uses (nor an error, nor an event) names the uploads
 * folder; the file is `upload:<name>`, which importFiles takes back; a reference that tries to
 * leave the folder is refused.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { UploadRefs, withUploadRefs } from '../../../src/main/host/upload-refs';
import { uploadsDirFor } from '../../../src/main/host/uploads';
import type { EventName, EventPayload, Handlers } from '../../../src/shared/api';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let uploadsDir: string;
let host: Host;
let page: Handlers;
let refs: UploadRefs;
const events: { event: EventName; payload: unknown }[] = [];
const saved: Record<string, string | undefined> = {};

const waitFor = async (jobId: string): Promise<EventPayload<'importDone'>> => {
  for (let i = 0; i < 400; i++) {
    const e = events.find(
      (x) => (x.event === 'importDone' || x.event === 'importFailed') && (x.payload as { jobId: string }).jobId === jobId,
    );
    if (e) {
      if (e.event === 'importFailed') throw new Error(JSON.stringify(e.payload));
      return e.payload as EventPayload<'importDone'>;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} did not end`);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-uprefs-'));
  // The agent-log roots point into the temp folder (nothing of the machine's own logs is walked).
  for (const k of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME']) {
    saved[k] = process.env[k];
    process.env[k] = join(dir, k);
  }
  const db = join(dir, 'h.db');
  uploadsDir = uploadsDirFor(db)!;
  mkdirSync(uploadsDir, { recursive: true });
  copyFileSync(sample, join(uploadsDir, '0f8e2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b-my-session.jsonl'));
  host = await createHost({
    dbPath: db,
    hostKind: 'serve',
    version: 't',
    initialFiles: [],
    emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void events.push({ event, payload: refs.scrubDeep(payload) }),
  });
  refs = new UploadRefs(uploadsDir);
  page = withUploadRefs(host.handlers, refs);
});
afterAll(async () => {
  await host.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('serve: upload references', () => {
  it('lists the upload as upload:<name>, imports it by that reference, and no answer names the uploads folder', async () => {
    const logs = await page.listLocalLogs({});
    const file = logs.groups.find((g) => g.agent === 'upload')?.files[0];
    expect(file?.path).toBe('upload:0f8e2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b-my-session.jsonl');
    const { jobId } = await page.importFiles({ paths: [file!.path] });
    const done = await waitFor(jobId);
    const id = done.sessionIds[0]!;

    const answers: unknown[] = [
      await page.getInfo({}),
      await page.listSessions({}),
      await page.getSession({ id }),
      await page.getMessages({ sessionId: id, offset: 0, limit: 50 }),
      await page.getRawRecord({ sessionId: id, index: 0 }),
      await page.listLocalLogs({}),
      await page.exportSession({ sessionId: id, overrides: {}, at: 'end', to: 'markdown', redact: false, redactPatterns: [] }),
      await page.runReplay({ sessionId: id, policy: 'claude-code', overrides: {}, needles: [] }),
      events,
    ];
    // Errors too: one naming the file's session, one a refused path inside the folder.
    for (const bad of [
      () => page.getRawRecord({ sessionId: id, index: 1e6 }),
      () => page.importFiles({ paths: [join(uploadsDir, 'nope.jsonl')] }),
    ]) {
      await bad().then(
        () => answers.push('no error'),
        (e: Error) => answers.push(e.message),
      );
    }
    for (const a of answers) expect(JSON.stringify(a)).not.toContain(uploadsDir);
    const summary = (await page.listSessions({})).find((s) => s.id === id)!;
    expect(summary.sourcePath).toBe(file!.path);
    // The server itself still knows the real path (the library's "imported" mark works).
    expect((await host.handlers.listSessions({})).find((s) => s.id === id)!.sourcePath).toBe(
      join(uploadsDir, '0f8e2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b-my-session.jsonl'),
    );
    expect((await page.listLocalLogs({})).groups.find((g) => g.agent === 'upload')?.files[0]?.sessionIds).toEqual([id]);
  });

  it('refuses a reference that leaves the uploads folder', async () => {
    for (const p of ['upload:../h.db', 'upload:', 'upload:a/b', 'upload:.hidden']) {
      await expect(page.importFiles({ paths: [p] })).rejects.toThrow(/expected upload:<name>/);
    }
  });
});
