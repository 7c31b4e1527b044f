/**
 * Progressive opening in the host, through the built import worker (skipped without a build): a
 * big file's session is visible (`importVisible`) before the import ends, grows (`sessionUpdated`),
 * and its chart carries `partial` (the contract's flag) until `importDone`; getInfo lists the
 * running import. The file is still being written while it is imported.
 */
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOf, type EventName, type EventPayload } from '../../../src/shared/api';
import type { ChartViewWire } from '../../../src/shared/marker-columns';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { claudeCodeText } from '../../bench/corpus';

const worker = join(__dirname, '../../../out/cli/import-worker.js');
const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;
const events: { event: EventName; payload: EventPayload<EventName> }[] = [];
const before = process.env['CTXSCOPE_PROGRESSIVE'];

const waitFor = async <T>(what: string, get: () => T | undefined, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};
const eventOf = <E extends EventName>(event: E, jobId: string) =>
  events.find((e) => e.event === event && (e.payload as { jobId: string }).jobId === jobId)?.payload as EventPayload<E> | undefined;

describe.skipIf(!existsSync(worker))('progressive opening through the host', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctxscope-progressive-host-'));
    host = await createHost({
      dbPath: join(dir, 'h.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [sample],
      importWorkerFile: worker,
      emit: (event, payload) => events.push({ event, payload }),
    });
    // Files from 64 KB on: a 32 KB prefix, then 64 KB chunks 150 ms apart (each import worker reads this as it starts).
    process.env['CTXSCOPE_PROGRESSIVE'] = '64,32,64,150';
  }, 120_000);
  afterAll(async () => {
    if (before === undefined) delete process.env['CTXSCOPE_PROGRESSIVE'];
    else process.env['CTXSCOPE_PROGRESSIVE'] = before;
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the session before the import ends, marks its chart partial, and grows it to the whole file', async () => {
    const lines = claudeCodeText({ calls: 600 })
      .split('\n')
      .filter((l) => l !== '');
    const file = join(dir, 'growing.jsonl');
    const half = Math.floor(lines.length / 2);
    writeFileSync(file, lines.slice(0, half).join('\n') + '\n');
    const { jobId } = await host.handlers.importFiles({ paths: [file] });
    const visible = await waitFor('importVisible', () => eventOf('importVisible', jobId));
    // The agent writes the rest while the import runs.
    appendFileSync(file, lines.slice(half).join('\n') + '\n');
    expect(eventOf('importDone', jobId)).toBeUndefined();
    const id = visible.sessionIds[0]!;
    expect((await host.handlers.getInfo({})).imports?.map((i) => i.jobId)).toEqual([jobId]);
    const chart = async (): Promise<ChartViewWire> =>
      answerOf(await host.handlers.getChartView({ sessionId: id, policy: 'claude-code', overrides: {}, needles: [], buckets: 64 }));
    const first = await chart();
    expect(eventOf('importDone', jobId)).toBeUndefined();
    expect(first.partial?.jobId).toBe(jobId);
    expect(first.partial!.bytes).toBeLessThan(first.partial!.totalBytes);
    expect(first.stepCount).toBeLessThan(600);
    // An export of the partial session holds what is stored when it is made, not a copy parsed at
    // an earlier chunk: after the session grew, a second preview holds more messages.
    const preview = async (): Promise<number> =>
      (await host.handlers.previewExport({ sessionId: id, to: 'jsonl', overrides: {}, at: 'end', redact: false, redactPatterns: [] }))
        .messages!;
    // `sessionUpdated` is paced (GrowthEvents), so an event may tell of a chunk stored before the
    // first preview: ask again until a preview made before the import ended holds more.
    const before = await preview();
    let grownBeforeDone = false;
    for (const end = Date.now() + 120_000; Date.now() < end;) {
      const importing = eventOf('importDone', jobId) === undefined;
      if ((await preview()) > before) {
        grownBeforeDone = importing;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(grownBeforeDone).toBe(true);

    await waitFor('importDone', () => eventOf('importDone', jobId) ?? eventOf('importFailed', jobId), 120_000);
    expect(eventOf('importDone', jobId)?.sessionIds).toEqual([id]);
    // It grew in between, under the same session id (the live tail's event).
    const grew = events.filter((e) => e.event === 'sessionUpdated' && (e.payload as EventPayload<'sessionUpdated'>).sessionId === id);
    expect(grew.length).toBeGreaterThan(0);
    const last = await chart();
    expect(last.partial).toBeUndefined();
    expect(last.stepCount).toBe(600);
    expect((await host.handlers.getInfo({})).imports).toBeUndefined();
  }, 180_000);
});
