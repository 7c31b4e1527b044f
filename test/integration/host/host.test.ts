/** The host's handler table end to end (in-process), on a real database in a temp folder. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countWorkerBoot } from '../../helpers/count-worker-boot';
import { importSource, stringSource } from '../../../src/core/import/index';
import { createHost, type Host } from '../../../src/main/host/handlers';
import type { EventName, EventPayload } from '../../../src/shared/api';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;
let id: string;
const events: { event: EventName; payload: unknown }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-host-'));
  host = await createHost({
    dbPath: join(dir, 'h.db'),
    hostKind: 'serve',
    version: 't',
    initialFiles: [sample],
    emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void events.push({ event, payload }),
  });
  id = host.initialSessionId!;
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('host', () => {
  it('opens the sample and lists its messages with token counts', async () => {
    const [summary] = await host.handlers.listSessions({});
    expect(summary).toMatchObject({ id, format: 'claude-code', reportedUsage: true });
    const detail = await host.handlers.getSession({ id });
    expect(detail.tokenizer).toBe('calibrated');
    expect(detail.counts.unlogged).toBeGreaterThan(10_000);
    expect(detail.modelInfo).toMatchObject({ window: 200_000, known: true });
    const page = await host.handlers.getMessages({ sessionId: id, offset: 0, limit: 5 });
    expect(page.total).toBe(summary!.messages);
    expect(page.messages.map((m) => m.index)).toEqual([0, 1, 2, 3, 4]);
  });

  it("gives a message's raw record as the file had it, and names an index that does not exist", async () => {
    const lines = readFileSync(sample, 'utf8').split('\n');
    const first = await host.handlers.getRawRecord({ sessionId: id, index: 0 });
    expect(first.line).toBeGreaterThan(0);
    expect(first.record).toBe(lines[first.line! - 1]);
    const { total } = await host.handlers.getMessages({ sessionId: id, offset: 0, limit: 1 });
    await expect(host.handlers.getRawRecord({ sessionId: id, index: total })).rejects.toThrow(/no message #\d+ in session/);
  });

  it('replays under a policy, compares two, and names a bad override', async () => {
    const r = await host.handlers.runReplay({ sessionId: id, policy: 'claude-code', overrides: {}, needles: ['ORD-1187'] });
    expect(r.steps.status).toContain('compress');
    expect(r.events.some((e) => e.kind === 'source-compaction')).toBe(true);
    const c = await host.handlers.compare({
      sessionId: id,
      a: { policy: 's2', overrides: {} },
      b: { policy: 's3', overrides: {} },
      minDelta: 0,
    });
    expect(c.totalDelta).toHaveLength(r.steps.total.length);
    await expect(host.handlers.runReplay({ sessionId: id, policy: 's3', overrides: { trigger: 'lots' }, needles: [] })).rejects.toThrow(
      /trigger: expected a number/,
    );
    await expect(host.handlers.runReplay({ sessionId: id, policy: 'nope', overrides: {}, needles: [] })).rejects.toThrow(
      /unknown policy "nope"/,
    );
  });

  it('exports the compacted history, which imports back into the same messages', async () => {
    const e = await host.handlers.exportSession({
      sessionId: id,
      policy: 'claude-code',
      overrides: {},
      at: 'end',
      to: 'anthropic',
      redact: false,
      redactPatterns: [],
    });
    const back = await importSource(stringSource('x.json', e.text));
    expect(back.format).toBe('anthropic');
    const orig = await host.handlers.exportSession({
      sessionId: id,
      overrides: {},
      at: 'end',
      to: 'openai',
      redact: true,
      redactPatterns: ['/ORD-\\d+/'],
    });
    expect(orig.redactions).toBeGreaterThan(0);
    expect(orig.text).not.toMatch(/ORD-1187/);
    const csv = await host.handlers.exportSession({
      sessionId: id,
      policy: 's3',
      overrides: {},
      at: 'end',
      to: 'report-csv',
      redact: false,
      redactPatterns: [],
    });
    expect(csv.text.split('\n')[0]).toMatch(/^step,message,turn,system,unlogged,summary,history/);
  });

  it('imports in the background with events, and re-importing reuses the session', async () => {
    const file = join(dir, 'chat.jsonl');
    writeFileSync(file, '{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n');
    const { jobId } = await host.handlers.importFiles({ paths: [file] });
    await expect.poll(() => events.find((e) => e.event === 'importDone' && (e.payload as { jobId: string }).jobId === jobId)).toBeTruthy();
    const again = await host.handlers.importFiles({ paths: [file] });
    await expect
      .poll(() => events.find((e) => e.event === 'importDone' && (e.payload as { jobId: string }).jobId === again.jobId))
      .toBeTruthy();
    const done = events.find((e) => e.event === 'importDone' && (e.payload as { jobId: string }).jobId === again.jobId)!.payload as {
      reused: boolean;
    };
    expect(done.reused).toBe(true);
    // The list holds subagent sessions too (under their parent); the files gave two sessions.
    expect((await host.handlers.listSessions({})).filter((s) => s.parentId === null).length).toBe(2);
    const bad = await host.handlers.importFiles({ paths: [join(dir, 'missing.jsonl')] });
    await expect
      .poll(() => events.find((e) => e.event === 'importFailed' && (e.payload as { jobId: string }).jobId === bad.jobId))
      .toBeTruthy();
  });

  it('pins a message and refuses an unknown one', async () => {
    const page = await host.handlers.getMessages({ sessionId: id, offset: 0, limit: 1 });
    await host.handlers.setPinned({ sessionId: id, messageId: page.messages[0]!.id, pinned: true });
    expect((await host.handlers.getMessages({ sessionId: id, offset: 0, limit: 1 })).messages[0]!.pinned).toBe(true);
    await expect(host.handlers.setPinned({ sessionId: id, messageId: 'nope', pinned: true })).rejects.toThrow(/no message "nope"/);
  });
});

describe('exact counts in the background', () => {
  it("shows the import's estimates at once, counts exactly in a worker, then says so", async () => {
    const d = mkdtempSync(join(tmpdir(), 'ctxscope-count-'));
    const boot = countWorkerBoot(d);
    const seen: { event: EventName; payload: unknown }[] = [];
    const h = await createHost({
      dbPath: join(d, 'c.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [sample],
      countWorkerFile: boot,
      emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void seen.push({ event, payload }),
    });
    try {
      const id = h.initialSessionId!;
      const first = await h.handlers.getSession({ id });
      expect(first.tokenizer).toBe('chars4');
      expect(first.approximate).toBe(true);
      await expect.poll(() => seen.find((e) => e.event === 'countsReady'), { timeout: 30_000 }).toBeTruthy();
      expect(seen.find((e) => e.event === 'countsReady')!.payload).toEqual({ sessionId: id, tokenizer: 'calibrated' });
      const after = await h.handlers.getSession({ id });
      expect(after.tokenizer).toBe('calibrated');
      expect(after.counts.unlogged).toBeGreaterThan(10_000);
      // Two more sessions opened at once are counted one after the other, and both get there.
      const extra = [join(d, 'a.jsonl'), join(d, 'b.jsonl')];
      extra.forEach((f, i) =>
        writeFileSync(f, `{"role":"user","content":"question ${i} ${'word '.repeat(50)}"}\n{"role":"assistant","content":"answer ${i}"}\n`),
      );
      const job = await h.handlers.importFiles({ paths: extra });
      await expect
        .poll(() => seen.find((e) => e.event === 'importDone' && (e.payload as { jobId: string }).jobId === job.jobId), { timeout: 30_000 })
        .toBeTruthy();
      const ids = (
        seen.find((e) => e.event === 'importDone' && (e.payload as { jobId: string }).jobId === job.jobId)!.payload as {
          sessionIds: string[];
        }
      ).sessionIds;
      await Promise.all(ids.map((sid) => h.handlers.getSession({ id: sid })));
      await expect
        .poll(
          () => ids.every((sid) => seen.some((e) => e.event === 'countsReady' && (e.payload as { sessionId: string }).sessionId === sid)),
          { timeout: 30_000 },
        )
        .toBe(true);
      const order = seen.filter((e) => e.event === 'countsReady').map((e) => (e.payload as { sessionId: string }).sessionId);
      expect(order.slice(-2).sort()).toEqual([...ids].sort());
    } finally {
      await h.close();
      rmSync(d, { recursive: true, force: true });
    }
  }, 60_000);
});
