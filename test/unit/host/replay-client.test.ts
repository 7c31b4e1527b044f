/**
 * The replay scheduler and engine: channels supersede, the queue is bounded, a dying worker fails
 * its requests and is restarted, and the engine answers repeated questions from its cache.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { createHost } from '../../../src/main/host/handlers';
import { MAX_QUEUE, ReplayClient, replayWorkerSource, workerExecutor, type ReplayExecutor } from '../../../src/main/host/replay-client';
import type { ReplayOp } from '../../../src/main/host/replay-protocol';
import { ReplayService, type ReplayInputs } from '../../../src/main/host/replays';
import { answerOf, ApiError, type JsonText } from '../../../src/shared/api';
import type { ChartViewWire } from '../../../src/shared/marker-columns';
import { claudeCodeText } from '../../bench/corpus';
import { assistant, session, user } from '../../helpers/session';

/** An executor whose requests finish when the test says so. */
function manual(): ReplayExecutor & { started: ReplayOp[]; stops: number; finish(i: number, value?: unknown): void } {
  const waiting: ((v: unknown) => void)[] = [];
  const started: ReplayOp[] = [];
  return {
    started,
    stops: 0,
    stopRunning() {
      this.stops++;
    },
    run: (op) =>
      new Promise((resolve) => {
        started.push(op);
        waiting.push(resolve as (v: unknown) => void);
      }),
    finish: (i, value = { done: i }) => waiting[i]!(value),
    forget: () => {},
    close: async () => {},
  };
}
const inputs = (sessionId = 's', overrides: Record<string, number> = {}): ReplayInputs => ({
  sessionId,
  policy: { id: 's2', config: getPolicy('s2')!.config },
  overrides,
  needles: [],
  pins: [],
});
const chart = (n: number): ReplayOp & { op: 'chart' } => ({ op: 'chart', inputs: inputs(), buckets: 16 + n });
const codeOf = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof ApiError ? e.code : `not an ApiError: ${String(e)}`),
  );

describe('ReplayClient', () => {
  it('cancels the older request on a channel, queued or running, and never delivers its answer', async () => {
    const ex = manual();
    const client = new ReplayClient(ex);
    const running = client.submit(chart(1), 'sel');
    const queued = client.submit(chart(2)); // another channel-less request, behind it
    const newer = client.submit(chart(3), 'sel');
    expect(await codeOf(running)).toBe('cancelled');
    // The running one still finishes in the executor; its answer goes nowhere.
    ex.finish(0);
    await new Promise((r) => setTimeout(r, 0));
    ex.finish(1);
    expect(await queued).toEqual({ done: 1 });
    await new Promise((r) => setTimeout(r, 0));
    ex.finish(2);
    expect(await newer).toEqual({ done: 2 });
    expect(ex.started.map((o) => (o.op === 'chart' ? o.buckets : 0))).toEqual([17, 18, 19]);
  });

  it('stops the running replay when a newer request on its channel needs another one, not when it needs the same', async () => {
    const ex = manual();
    const client = new ReplayClient(ex);
    const first = client.submit(chart(1), 'sel');
    // The same replay's detail: the running replay is what it needs, so it runs on.
    const same = client.submit({ op: 'detail', inputs: inputs(), step: 0 }, 'sel');
    expect([await codeOf(first), ex.stops]).toEqual(['cancelled', 0]);
    ex.finish(0);
    await new Promise((r) => setTimeout(r, 0));
    // Now running: the detail. A moved slider (other overrides) stops it.
    const other = client.submit({ op: 'chart', inputs: inputs('s', { trigger: 0.5 }), buckets: 10 }, 'sel');
    expect([await codeOf(same), ex.stops]).toEqual(['cancelled', 1]);
    ex.finish(1);
    await new Promise((r) => setTimeout(r, 0));
    ex.finish(2);
    expect(await other).toEqual({ done: 2 });
  });

  it('drops a superseded request from the queue before it runs', async () => {
    const ex = manual();
    const client = new ReplayClient(ex);
    const first = client.submit(chart(1));
    const a = client.submit(chart(2), 'drag');
    const b = client.submit(chart(3), 'drag');
    expect(await codeOf(a)).toBe('cancelled');
    ex.finish(0);
    await first;
    await new Promise((r) => setTimeout(r, 0));
    ex.finish(1);
    await b;
    // The superseded request never reached the executor.
    expect(ex.started.map((o) => (o.op === 'chart' ? o.buckets : 0))).toEqual([17, 19]);
  });

  it('runs a chart before queued step details and views, and charts in the order they came', async () => {
    const ex = manual();
    const client = new ReplayClient(ex);
    const running = client.submit(chart(1));
    const detail = client.submit({ op: 'detail', inputs: inputs(), step: 3 }, 'step');
    const view = client.submit({ op: 'view', inputs: inputs() });
    const c2 = client.submit(chart(2), 'chart');
    const c3 = client.submit(chart(3));
    const names = (): string[] => ex.started.map((o) => (o.op === 'chart' ? `chart${o.buckets - 16}` : o.op));
    for (let i = 0; i < 5; i++) {
      ex.finish(i);
      await new Promise((r) => setTimeout(r, 0));
    }
    await Promise.all([running, detail, view, c2, c3]);
    expect(names()).toEqual(['chart1', 'chart2', 'chart3', 'detail', 'view']);
  });

  it('stops a running step detail of another replay when a chart arrives, not one of the same replay', async () => {
    const ex = manual();
    const client = new ReplayClient(ex);
    const same = client.submit({ op: 'detail', inputs: inputs(), step: 1 }, 'step');
    // A chart of the very replay the detail is running: the detail runs on.
    const c1 = client.submit(chart(1), 'chart');
    expect(ex.stops).toBe(0);
    ex.finish(0);
    expect(await same).toEqual({ done: 0 });
    await new Promise((r) => setTimeout(r, 0));
    ex.finish(1);
    await c1;
    await new Promise((r) => setTimeout(r, 0));
    const old = client.submit({ op: 'detail', inputs: inputs(), step: 2 }, 'step');
    // The slider moved: the chart of another replay stops the detail, which answers cancelled.
    const moved = client.submit({ op: 'chart', inputs: inputs('s', { trigger: 0.5 }), buckets: 10 }, 'chart');
    expect([await codeOf(old), ex.stops]).toEqual(['cancelled', 1]);
    ex.finish(2);
    await new Promise((r) => setTimeout(r, 0));
    ex.finish(3);
    expect(await moved).toEqual({ done: 3 });
  });

  it(`bounds the queue at ${MAX_QUEUE} waiting requests`, async () => {
    const ex = manual();
    const client = new ReplayClient(ex);
    const all = Array.from({ length: MAX_QUEUE + 2 }, (_, i) => client.submit(chart(i)));
    const outcomes = all.map(codeOf);
    // One runs, MAX_QUEUE wait, the last is refused.
    expect(await codeOf(all[MAX_QUEUE + 1]!)).toBe('cancelled');
    await expect(all[MAX_QUEUE + 1]!).rejects.toThrow(/queue is full/);
    await client.close();
    // Closing cancels the waiting ones; the running one is the executor's to end.
    expect(await outcomes[1]).toBe('cancelled');
    expect(await outcomes[MAX_QUEUE]).toBe('cancelled');
  });
});

/** A worker script in a folder of its own, for workerExecutor to start as the replay worker. */
function fakeWorker(source: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-rw-'));
  const file = join(dir, 'fake-worker.mjs');
  writeFileSync(file, source);
  return { dir, file };
}

describe('workerExecutor', () => {
  it('fails the requests of a worker that dies, clearly, and starts a new one for the next', async () => {
    // Answers 'chart' requests; dies on 'view'.
    const { dir, file } = fakeWorker(
      `import { parentPort, threadId } from 'node:worker_threads';
       parentPort.on('message', (m) => {
         if (m.type !== 'run') return;
         if (m.op.op === 'view') process.exit(3);
         parentPort.postMessage({ id: m.id, ok: true, value: threadId });
       });`,
    );
    const ex = workerExecutor(file, { dbPath: ':memory:' });
    const first = (await ex.run(chart(1))) as unknown as number;
    const dying = ex.run({ op: 'view', inputs: inputs() });
    await expect(dying).rejects.toThrow(/the replay worker stopped \(exit code 3\); the request failed/);
    expect(await codeOf(dying)).toBe('internal');
    const after = (await ex.run(chart(2))) as unknown as number;
    expect(after).not.toBe(first);
    await ex.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('workerExecutor, the shared flags', () => {
  it('writes the id of each request it posts before posting it: a warm-up in the worker reads that a request is waiting', async () => {
    // Answers each request with what the second flag held when the worker took it up.
    const { dir, file } = fakeWorker(
      `import { parentPort, workerData } from 'node:worker_threads';
       const flags = new Int32Array(workerData.stop);
       parentPort.on('message', (m) => {
         if (m.type === 'run') parentPort.postMessage({ id: m.id, ok: true, value: [m.id, Atomics.load(flags, 1), flags.length] });
       });`,
    );
    const ex = workerExecutor(file, { dbPath: ':memory:' });
    try {
      type Seen = [id: number, newest: number, flags: number];
      const [a, b] = (await Promise.all([ex.run(chart(1)), ex.run(chart(2))])) as unknown as [Seen, Seen];
      // Two Int32s; the newest id posted is at least the request's own (the second may be posted before the first is read).
      expect(a[2]).toBe(2);
      expect(a[1]).toBeGreaterThanOrEqual(a[0]);
      expect(b[1]).toBe(b[0]);
      expect(b[0]).toBe(a[0] + 1);
    } finally {
      await ex.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('workerExecutor with the replay worker', () => {
  it('stops a running replay when asked: the worker answers cancelled instead of a chart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-rwc-'));
    const file = join(dir, 'long.jsonl');
    writeFileSync(file, claudeCodeText({ calls: 3_000 }));
    const dbPath = join(dir, 'h.db');
    // Imported by a host, then replayed by the worker on its own connection.
    const host = await createHost({ dbPath, hostKind: 'serve', version: 't', initialFiles: [file], emit: () => {} });
    const sessionId = host.initialSessionId!;
    // A file this size opens progressively: the replay below wants all of it stored.
    await host.initialImport;
    await host.close();
    const ex = workerExecutor(replayWorkerSource()!, { dbPath });
    try {
      const op = (trigger: number): ReplayOp => ({
        op: 'chart',
        inputs: { sessionId, policy: { id: 's2', config: getPolicy('s2')!.config }, overrides: { trigger }, needles: [], pins: [] },
        buckets: 64,
      });
      const stopped = ex.run(op(0.5));
      // Set before the worker even reads the request: its replay sees the flag at its first check.
      ex.stopRunning!();
      expect(await codeOf(stopped)).toBe('cancelled');
      // The flag names that run only: the next one runs to the end.
      const next = answerOf((await ex.run(op(0.6))) as JsonText<ChartViewWire>);
      expect(next.stepCount).toBeGreaterThan(1_000);
    } finally {
      await ex.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('ReplayService', () => {
  const words = (tag: string): string => `${tag} `.repeat(200).slice(0, 400);
  const messages: Message[] = [];
  for (let t = 0; t < 30; t++) messages.push(user(words(`u${t}`)), assistant(words(`a${t}`)));
  const s = session(messages, { id: 's' });
  const make = (): ReplayService =>
    new ReplayService({
      session: (id) => {
        if (id !== 's') throw new ApiError('not_found', `no session with id "${id}"`);
        return s;
      },
    });

  it('answers the chart, the detail and the view of one replay from one run', async () => {
    const svc = make();
    const v = answerOf(await svc.chart(inputs(), 800));
    const d = await svc.detail(inputs(), 3);
    await svc.view(inputs());
    expect(svc.runs).toBe(1);
    expect(d.key).toBe(v.key);
    // Overrides in another order are the same replay.
    await svc.chart({ ...inputs(), overrides: { window: 4000, trigger: 0.5 } }, 800);
    await svc.chart({ ...inputs(), overrides: { trigger: 0.5, window: 4000 } }, 800);
    expect(svc.runs).toBe(2);
  });

  it('answers a chart it made before from what it sent (a slider dragged back), and makes it again after the session changed', async () => {
    const svc = make();
    const first = await svc.chart(inputs(), 800);
    // The same object: neither replayed nor reduced nor written again.
    expect(await svc.chart(inputs(), 800)).toBe(first);
    expect(svc.runs).toBe(1);
    // Another width is another view of the same replay.
    const narrow = await svc.chart(inputs(), 64);
    expect(narrow).not.toBe(first);
    expect(answerOf(narrow).key).toBe(answerOf(first).key);
    expect(svc.runs).toBe(1);
    // Exact counts arrived: a new replay, a new view.
    svc.forget('s');
    const after = await svc.chart(inputs(), 800);
    expect(after).not.toBe(first);
    expect(answerOf(after).key).not.toBe(answerOf(first).key);
    expect(svc.runs).toBe(2);
  });

  it('names a replay of the same inputs after the session changed (counts, a tail append) with another key', async () => {
    const svc = make();
    const before = answerOf(await svc.chart(inputs(), 800));
    expect((await svc.detail(inputs(), 3)).key).toBe(before.key);
    // Exact counts arrived (or the file grew): the window's step details cached under the old key must not be served.
    svc.forget('s');
    const after = answerOf(await svc.chart(inputs(), 800));
    expect(after.key).not.toBe(before.key);
    expect((await svc.detail(inputs(), 3)).key).toBe(after.key);
    expect(svc.runs).toBe(2);
  });

  it('rehearses a replay for its compiled code only: nothing kept, nothing counted, no summarizer but the local one', async () => {
    const svc = make();
    const at = (trigger: number): ReplayInputs => inputs('s', { window: 4000, trigger });
    // No counts held yet for the session: a rehearsal would have to count — it does not run.
    expect(await svc.rehearse(at(0.5), () => false)).toBe('skipped');
    await svc.chart(at(0.6), 800);
    expect(svc.runs).toBe(1);
    // Counts held now (the chart's): it runs, and keeps nothing — the chart of the same inputs replays.
    expect(await svc.rehearse(at(0.5), () => false)).toBe('done');
    await svc.chart(at(0.5), 800);
    expect(svc.runs).toBe(2);
    // Asked to stop (its time is up, or a request is waiting): stopped, not an error.
    expect(await svc.rehearse(at(0.4), () => true)).toBe('stopped');
    // A remote summarizer would send the session, and cost money: never for a rehearsal.
    const remote = {
      ...at(0.5),
      policy: {
        id: 's2',
        config: { ...getPolicy('s2')!.config, pipeline: ['summarize'], summarizer: 'openai', summarizerUrl: 'http://127.0.0.1:9/v1' },
      },
    } as ReplayInputs;
    expect(await svc.rehearse(remote, () => false)).toBe('skipped');
    // Counted with another tokenizer than any chart so far: skipped too.
    expect(await svc.rehearse(inputs('s', { window: 4000, tokenizer: 'runes2.5' } as unknown as Record<string, number>), () => false)).toBe(
      'skipped',
    );
    expect(svc.runs).toBe(2);
  });

  it('keeps the last good result when an override is refused', async () => {
    const svc = make();
    const good = answerOf(await svc.chart(inputs('s', { window: 4000 }), 800));
    await expect(svc.chart(inputs('s', { trigger: 7 }), 800)).rejects.toMatchObject({ code: 'bad_input' });
    const again = answerOf(await svc.chart(inputs('s', { window: 4000 }), 800));
    expect(again.key).toBe(good.key);
    expect(svc.runs).toBe(1);
  });

  it('compares from cached replays, with minDelta, the differing settings and B’s compressions', async () => {
    const svc = make();
    const a = inputs('s', { window: 4000, tokenizer: 'chars4' } as unknown as Record<string, number>);
    const b = { ...inputs('s', { window: 4000, trigger: 0.6 }), overrides: { window: 4000, tokenizer: 'chars4', trigger: 0.6 } };
    await svc.chart(a, 800);
    await svc.chart(b, 800);
    const c = await svc.compare(a, b, { minDelta: 0 });
    expect(svc.runs).toBe(2);
    expect(c.configDifferences).toEqual([{ key: 'trigger', a: 0.85, b: 0.6 }]);
    expect(c.bCompressions.map((e) => e.step)).toEqual(c.compressions.b);
    expect(c.bCompressions.length).toBeGreaterThan(0);
    // With a huge minDelta only status changes remain.
    const coarse = await svc.compare(a, b, { minDelta: 1_000_000 });
    expect(coarse.differences.every((d) => d.a.status !== d.b.status)).toBe(true);
    expect(coarse.differences.length).toBeLessThan(c.differences.length);
    expect(svc.runs).toBe(2);
  });

  it('answers a replay that was running when its session was forgotten, but does not keep it', async () => {
    const svc = make();
    const running = svc.chart(inputs(), 800);
    // Exact counts were stored meanwhile (the host forgets the session's counts and results).
    svc.forget('s');
    await running;
    await svc.chart(inputs(), 800);
    expect(svc.runs).toBe(2);
  });

  it('names a call past the end', async () => {
    const svc = make();
    await expect(svc.detail(inputs(), 30)).rejects.toMatchObject({
      code: 'not_found',
      message: 'step 30 does not exist: this replay has 30 calls (0–29)',
    });
  });
});

describe('ReplayClient.forget', () => {
  /** An executor whose runs the test ends, with a value or as stopped (ApiError cancelled). */
  function stoppable(): ReplayExecutor & { started: ReplayOp[]; stops: number; forgotten: string[]; finish(i: number, v: unknown): void } {
    const ends: { resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
    const ex = {
      started: [] as ReplayOp[],
      stops: 0,
      forgotten: [] as string[],
      run: (op: ReplayOp) =>
        new Promise((resolve, reject) => {
          ex.started.push(op);
          ends.push({ resolve: resolve as (v: unknown) => void, reject });
        }),
      // What the worker's replay loop does when the flag is set: it ends as cancelled.
      stopRunning: () => {
        ex.stops++;
        ends[ends.length - 1]!.reject(new ApiError('cancelled', 'stopped'));
      },
      finish: (i: number, v: unknown) => ends[i]!.resolve(v),
      forget: (id: string) => void ex.forgotten.push(id),
      close: async () => {},
    };
    return ex as never;
  }

  it('stops a replay of the forgotten session and runs the same request again first, so its caller gets the new replay', async () => {
    const ex = stoppable();
    const client = new ReplayClient(ex);
    const slider = client.submit(chart(1), 'chart');
    const other = client.submit({ op: 'detail', inputs: inputs(), step: 3 }, 'step');
    expect(ex.started).toHaveLength(1);
    client.forget('s', 'counts');
    await new Promise((r) => setTimeout(r, 0));
    expect(ex.forgotten).toEqual(['s']);
    expect(ex.stops).toBe(1);
    // The chart went again before the queued detail, and its answer is the re-run's.
    expect(ex.started.map((o) => o.op)).toEqual(['chart', 'chart']);
    ex.finish(1, { run: 'after counts' });
    expect(await slider).toEqual({ run: 'after counts' });
    await new Promise((r) => setTimeout(r, 0));
    ex.finish(2, { detail: true });
    expect(await other).toEqual({ detail: true });
  });

  it('leaves a replay of another session running', async () => {
    const ex = stoppable();
    const client = new ReplayClient(ex);
    const p = client.submit(chart(1), 'chart');
    client.forget('another', 'counts');
    expect(ex.stops).toBe(0);
    ex.finish(0, { done: true });
    expect(await p).toEqual({ done: true });
  });
});

describe('exact counts of one tokenizer landing', () => {
  const s = session([user('a'.repeat(400)), assistant('b'.repeat(400)), user('c'.repeat(400)), assistant('d'.repeat(400))]);
  const on = (tokenizer: string): ReplayInputs => ({
    sessionId: 's',
    policy: { id: 's2', config: getPolicy('s2')!.config },
    overrides: { tokenizer },
    needles: [],
    pins: [],
  });

  it('drop only the replays that read that tokenizer: the others stay cached under the same key', async () => {
    const service = new ReplayService({ session: () => s });
    const a = answerOf(await service.chart(on('chars4'), 16));
    const b = answerOf(await service.chart(on('tiktoken:cl100k_base'), 16));
    expect(service.runs).toBe(2);
    service.forget('s', 'tiktoken:cl100k_base');
    const a2 = answerOf(await service.chart(on('chars4'), 16));
    expect([service.runs, a2.key]).toEqual([2, a.key]);
    const b2 = answerOf(await service.chart(on('tiktoken:cl100k_base'), 16));
    expect(service.runs).toBe(3);
    expect(b2.key).not.toBe(b.key);
    // Forgetting the whole session drops every replay of it.
    service.forget('s');
    const a3 = answerOf(await service.chart(on('chars4'), 16));
    expect(service.runs).toBe(4);
    expect(a3.key).not.toBe(a.key);
  });

  it('stop a running replay only when it may read them', async () => {
    let stops = 0;
    const ex: ReplayExecutor = {
      run: () => new Promise(() => {}),
      stopRunning: () => void stops++,
      forget: () => {},
      close: async () => {},
    };
    const client = new ReplayClient(ex);
    void client.submit({ op: 'chart', inputs: on('chars4'), buckets: 16 }, 'chart').catch(() => {});
    client.forget('s', 'counts', undefined, 'tiktoken:cl100k_base');
    expect(stops).toBe(0);
    const c2 = new ReplayClient(ex);
    void c2.submit({ op: 'chart', inputs: on('tiktoken:cl100k_base'), buckets: 16 }, 'chart').catch(() => {});
    c2.forget('s', 'counts', undefined, 'tiktoken:cl100k_base');
    expect(stops).toBe(1);
  });
});
