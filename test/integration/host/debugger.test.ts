/**
 * The debugger's methods end to end on the bundled sample: through the host's handler table (replays
 * in this thread) and over HTTP with the replay worker (started from its TypeScript source).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { countWorkerBoot } from '../../helpers/count-worker-boot';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { replayWorkerSource } from '../../../src/main/host/replay-client';
import { startHttpHost, type HttpHost } from '../../../src/main/transport/http';
import { chartViewFromWire, type ChartViewWire } from '../../../src/shared/marker-columns';
import { answerOf, ApiError, type Envelope, type EventName, type StepDetail } from '../../../src/shared/api';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;
let id: string;
const q = { policy: 'claude-code', overrides: {}, needles: [] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-dbg-'));
  host = await createHost({ dbPath: join(dir, 'h.db'), hostKind: 'serve', version: 't', initialFiles: [sample], emit: () => {} });
  id = host.initialSessionId!;
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

const codeOf = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof ApiError ? e.code : String(e)),
  );

describe('debugger methods through the handlers', () => {
  it('opens a Claude Code session on the claude-code policy', async () => {
    expect((await host.handlers.getSession({ id })).defaultPolicy).toBe('claude-code');
  });

  it('gives a chart view with every compression as a marker, and the detail of the call it ran at', async () => {
    const v = chartViewFromWire(answerOf(await host.handlers.getChartView({ sessionId: id, ...q, buckets: 800 })));
    const replayed = await host.handlers.runReplay({ sessionId: id, ...q });
    // Fewer calls than buckets: one call per bucket, exact.
    expect(v.stepCount).toBe(replayed.steps.total.length);
    expect(v.total.max).toEqual(replayed.steps.total);
    const compressions = replayed.events.filter((e) => e.kind === 'compression');
    expect(compressions.length).toBeGreaterThan(0);
    expect(v.markers.filter((m) => m.kind === 'compression').map((m) => m.step)).toEqual(compressions.map((e) => e.step));
    expect(v.markers.some((m) => m.kind === 'source-compaction')).toBe(true);
    const at = compressions[0]!.step;
    const d = await host.handlers.getStepDetail({ sessionId: id, ...q, step: at });
    expect(d.key).toBe(v.key);
    expect(d.status).toBe('compress');
    expect(d.compression).toMatchObject({
      path: compressions[0]!.path,
      tokensBefore: compressions[0]!.tokensBefore,
      tokensAfter: compressions[0]!.tokensAfter,
    });
    expect(d.request).toBe(replayed.steps.total[at]);
    expect(d.messageStates[0]![2]).toBe('summarised');
  });

  it('answers cancelled to a request superseded on its channel, and the newer one with its own result', async () => {
    const older = host.handlers
      .getChartView({ sessionId: id, ...q, overrides: { target: 0.2 }, buckets: 64, channel: 'chart' })
      .then(answerOf);
    const newer = host.handlers
      .getChartView({ sessionId: id, ...q, overrides: { target: 0.3 }, buckets: 64, channel: 'chart' })
      .then(answerOf);
    expect(await codeOf(older)).toBe('cancelled');
    expect((await newer).config['target']).toBe(0.3);
  });

  it('answers bad_input to an invalid override and still answers the last good replay', async () => {
    const good = answerOf(await host.handlers.getChartView({ sessionId: id, ...q, buckets: 64 }));
    await expect(host.handlers.getChartView({ sessionId: id, ...q, overrides: { trigger: 3 }, buckets: 64 })).rejects.toMatchObject({
      code: 'bad_input',
    });
    const again = answerOf(await host.handlers.getChartView({ sessionId: id, ...q, buckets: 64 }));
    expect(again.key).toBe(good.key);
  });

  it('names a call past the end', async () => {
    const v = answerOf(await host.handlers.getChartView({ sessionId: id, ...q, buckets: 64 }));
    await expect(host.handlers.getStepDetail({ sessionId: id, ...q, step: v.stepCount })).rejects.toThrow(
      `step ${v.stepCount} does not exist: this replay has ${v.stepCount} calls (0–${v.stepCount - 1})`,
    );
  });

  it('gives the config panel of a policy and refuses a bad override', async () => {
    const fields = await host.handlers.getConfigFields({ policy: 'claude-code', overrides: { target: 0.2 } });
    expect(fields.find((f) => f.key === 'target')).toMatchObject({ value: 0.2, policyValue: 0.15, overridden: true, applies: true });
    await expect(host.handlers.getConfigFields({ policy: 'claude-code', overrides: { target: 'x' } })).rejects.toMatchObject({
      code: 'bad_input',
    });
  });

  it('compares with minDelta and says which settings differ', async () => {
    const c = await host.handlers.compare({
      sessionId: id,
      a: { policy: 'claude-code', overrides: {} },
      b: { policy: 'claude-code', overrides: { target: 0.3 } },
      minDelta: 0,
    });
    expect(c.configDifferences).toEqual([{ key: 'target', a: 0.15, b: 0.3 }]);
    expect(c.bCompressions.map((e) => e.step)).toEqual(c.compressions.b);
    const coarse = await host.handlers.compare({
      sessionId: id,
      a: { policy: 'claude-code', overrides: {} },
      b: { policy: 'claude-code', overrides: { target: 0.3 } },
      minDelta: 10_000_000,
    });
    expect(coarse.differences.every((d) => d.a.status !== d.b.status)).toBe(true);
  });
});

describe('debugger methods over HTTP, replays in the worker', () => {
  let wdir: string;
  let whost: Host;
  let http: HttpHost;
  let sid: string;
  beforeAll(async () => {
    wdir = mkdtempSync(join(tmpdir(), 'ctxscope-dbgw-'));
    whost = await createHost({
      dbPath: join(wdir, 'h.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [sample],
      emit: () => {},
      replayWorkerFile: replayWorkerSource()!,
    });
    sid = whost.initialSessionId!;
    http = await startHttpHost({ handlers: whost.handlers, staticDir: wdir, port: 0 });
  });
  afterAll(async () => {
    await http.close();
    await whost.close();
    rmSync(wdir, { recursive: true, force: true });
  });
  const call = <T>(method: string, body: unknown): Promise<{ status: number; envelope: Envelope<T> }> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: http.port,
          path: `/api/${method}`,
          method: 'POST',
          headers: { Authorization: `Bearer ${http.token}`, 'Content-Type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, envelope: JSON.parse(text) as Envelope<T> }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('answers cancelled to the superseded request on a channel, the newer with its call', async () => {
    // The first request starts the worker (a second or more); the two on channel "sel" wait behind it.
    const first = call<ChartViewWire>('getChartView', { sessionId: sid, ...q, buckets: 800 });
    await pause(30);
    const older = call<StepDetail>('getStepDetail', { sessionId: sid, ...q, step: 1, channel: 'sel' });
    await pause(30);
    const newer = call<StepDetail>('getStepDetail', { sessionId: sid, ...q, step: 2, channel: 'sel' });
    const o = await older;
    expect(o.status).toBe(409);
    expect(o.envelope).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    const n = await newer;
    expect(n.envelope.ok && n.envelope.value.step).toBe(2);
    const f = await first;
    expect(f.envelope.ok && f.envelope.value.markers.step.length).toBeGreaterThan(0);
  });

  it('answers 400 bad_input to an invalid override, and keeps the good replay', async () => {
    const good = await call<ChartViewWire>('getChartView', { sessionId: sid, ...q, buckets: 64 });
    const bad = await call<ChartViewWire>('getChartView', { sessionId: sid, ...q, overrides: { trigger: 3 }, buckets: 64 });
    expect(bad.status).toBe(400);
    expect(bad.envelope).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/trigger/) } });
    const again = await call<ChartViewWire>('getChartView', { sessionId: sid, ...q, buckets: 64 });
    expect(again.envelope.ok && good.envelope.ok && again.envelope.value.key === good.envelope.value.key).toBe(true);
  });

  it('answers 404 with the range for a call past the end', async () => {
    const past = await call<StepDetail>('getStepDetail', { sessionId: sid, ...q, step: 100_000 });
    expect(past.status).toBe(404);
    expect(past.envelope).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: expect.stringMatching(/^step 100000 does not exist: this replay has \d+ calls/) },
    });
  });
});

describe('replays before exact counts exist', () => {
  it('replays on the import estimates at once, asks for exact counts, and replays on them after countsReady', async () => {
    const d = mkdtempSync(join(tmpdir(), 'ctxscope-dbgc-'));
    // The count worker from its TypeScript source (see host.test.ts).
    const boot = countWorkerBoot(d);
    let ready: (tokenizer: string) => void = () => {};
    const countsReady = new Promise<string>((r) => (ready = r));
    const h = await createHost({
      dbPath: join(d, 'c.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [sample],
      countWorkerFile: boot,
      replayWorkerFile: replayWorkerSource()!,
      emit: (event: EventName, payload: unknown) => event === 'countsReady' && ready((payload as { tokenizer: string }).tokenizer),
    });
    try {
      const sid = h.initialSessionId!;
      // No getSession first: the replay itself asks for the counts it lacks.
      const early = answerOf(await h.handlers.getChartView({ sessionId: sid, ...q, buckets: 64 }));
      expect(early.warnings).toContain("token counts are the import's chars/4 estimates until exact calibrated counts are ready");
      expect(await countsReady).toBe('calibrated');
      const exact = answerOf(await h.handlers.getChartView({ sessionId: sid, ...q, buckets: 64 }));
      expect(exact.warnings.some((w) => w.includes('estimates'))).toBe(false);
      // The same inputs on other counts are another replay: its key differs, so the window's step-detail cache misses.
      expect(exact.key).not.toBe(early.key);
      expect(exact.total.max).not.toEqual(early.total.max);
    } finally {
      await h.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('opening a long session', () => {
  it('never parses it on the thread that answers requests: the detail comes from the replay worker, messages a page at a time', async () => {
    const d = mkdtempSync(join(tmpdir(), 'ctxscope-dbgo-'));
    const boot = countWorkerBoot(d);
    const h = await createHost({
      dbPath: join(d, 'o.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [sample],
      countWorkerFile: boot,
      replayWorkerFile: replayWorkerSource()!,
      emit: () => {},
    });
    const parse = vi.spyOn(h.store, 'loadSession');
    try {
      const sid = h.initialSessionId!;
      const detail = await h.handlers.getSession({ id: sid });
      const page = await h.handlers.getMessages({ sessionId: sid, offset: 2, limit: 3 });
      await h.handlers.getRawRecord({ sessionId: sid, index: 2 });
      expect(parse).not.toHaveBeenCalled();
      expect(page.total).toBe(detail.summary.messages);
      expect(page.messages.map((m) => m.index)).toEqual([2, 3, 4]);
      // The page's steps are the detail's steps among messages 2–4.
      expect(page.messages.filter((m) => m.role === 'assistant').map((m) => m.index)).toEqual(detail.steps.filter((i) => i >= 2 && i < 5));
      // The page's counts are the session's stored ones.
      const stored = h.store.loadCounts(sid, detail.tokenizer) ?? h.store.loadCounts(sid, 'chars4');
      expect(page.messages.map((m) => m.tokens)).toEqual(Array.from(stored!.perMessage.slice(2, 5)));
    } finally {
      parse.mockRestore();
      await h.close();
      rmSync(d, { recursive: true, force: true });
    }
  }, 60_000);
});
