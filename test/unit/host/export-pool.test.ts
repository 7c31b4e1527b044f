/**
 * The export worker pool's failure paths, with stand-in task modules: a worker that dies (throws
 * outside the task) fails its task with a message naming the pool instead of leaving the request
 * waiting forever; an aborted task answers `cancelled`, running or waiting; the queue is bounded
 * and a refused task aborted later leaves no unhandled rejection (vitest fails on one).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { buildExport } from '../../../src/main/host/exports';
import { ExportPool, MAX_QUEUE } from '../../../src/main/export/pool';
import type { ExportTask } from '../../../src/main/export/protocol';
import { ApiError } from '../../../src/shared/api';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
const moduleOf = (source: string): string => `data:text/javascript,${encodeURIComponent(source)}`;
const task = {
  sessionKey: 's#0',
  session: { id: 's' },
  row: { id: 's', title: null, sourcePath: 's.jsonl' },
  args: {},
  replay: null,
  withText: false,
} as unknown as ExportTask;
const errorOf = async (p: Promise<unknown>): Promise<ApiError> =>
  p.then(
    () => new ApiError('internal', 'resolved'),
    (e: unknown) => (e instanceof ApiError ? e : new ApiError('internal', `not an ApiError: ${String(e)}`)),
  );

let pool: ExportPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('ExportPool', () => {
  it('passes the worker answer through, and its ApiError with its code', async () => {
    pool = new ExportPool({
      filename: moduleOf(
        `export default (t) => t.withText ? ({ ok: true, built: { fileName: 'f.json', mime: 'application/json', extension: 'json', text: 'x', messages: 1, redactions: 0, byKind: {} } }) : ({ ok: false, code: 'bad_input', message: 'step 9 is out of range (0-3)' });`,
      ),
    });
    expect((await pool.run({ ...task, withText: true })).fileName).toBe('f.json');
    const e = await errorOf(pool.run(task));
    expect(e.code).toBe('bad_input');
    expect(e.message).toBe('step 9 is out of range (0-3)');
  });

  it('sends a session to the real export worker once, then builds from the one it holds', async () => {
    pool = new ExportPool({ threads: 1 });
    const session = (await importSource(stringSource(sample, readFileSync(sample, 'utf8')))).sessions[0]!;
    const real = {
      sessionKey: `${session.id}#1`,
      session,
      row: { id: session.id, title: 'Sample', sourcePath: sample },
      replay: null,
      withText: true,
    };
    const args = {
      sessionId: session.id,
      overrides: {},
      at: 'end' as const,
      to: 'jsonl' as const,
      redact: true,
      redactPatterns: ['/module\\d+/'],
    };
    const first = await pool.run({ ...real, args });
    const again = await pool.run({ ...real, args });
    expect(pool.sessionsSent).toBe(1);
    expect(again).toEqual(first);
    expect(first).toEqual(await buildExport(session, real.row, args, () => Promise.reject(new Error('no replay'))));
    // Another object (a session that changed) is another key: sent again.
    const changed = { ...session, messages: session.messages.slice(0, 3) };
    const shorter = await pool.run({ ...real, sessionKey: `${session.id}#2`, session: changed, args });
    expect(pool.sessionsSent).toBe(2);
    expect(shorter.messages).toBe(3);
  }, 60_000);

  it('fails the task when the worker throws outside the task', async () => {
    pool = new ExportPool({
      filename: moduleOf(`export default () => new Promise(() => { setTimeout(() => { throw new Error('out of memory, say'); }, 0); });`),
    });
    const e = await errorOf(pool.run(task));
    expect(e.code).toBe('internal');
    expect(e.message).toMatch(/out of memory, say/);
  });

  it('fails the task when the worker calls process.exit mid-task, and runs the next one', async () => {
    pool = new ExportPool({
      threads: 1,
      filename: moduleOf(
        `export default (t) => { if (!t.withText) { setTimeout(() => process.exit(5), 1); return new Promise(() => {}); } return { ok: true, built: { fileName: 'after', mime: '', extension: '', text: '', messages: 0, redactions: 0, byKind: {} } }; };`,
      ),
    });
    const e = await errorOf(pool.run(task));
    expect(e.code).toBe('internal');
    expect(e.message).toMatch(/export: a worker exited \(code 5\) in the middle of a task/);
    expect((await pool.run({ ...task, withText: true })).fileName).toBe('after');
  });

  it('answers cancelled when aborted, running or waiting, and keeps working after', async () => {
    pool = new ExportPool({
      threads: 1,
      filename: moduleOf(
        `export default (t) => t.withText ? ({ ok: true, built: { fileName: 'ok', mime: '', extension: '', text: '', messages: 0, redactions: 0, byKind: {} } }) : new Promise(() => {});`,
      ),
    });
    const running = new AbortController();
    const waiting = new AbortController();
    const a = errorOf(pool.run(task, running.signal));
    const b = errorOf(pool.run(task, waiting.signal));
    running.abort('superseded by a newer preview on channel "export"');
    waiting.abort('superseded');
    expect(await a).toMatchObject({ code: 'cancelled', message: 'superseded by a newer preview on channel "export"' });
    expect((await b).code).toBe('cancelled');
    expect((await pool.run({ ...task, withText: true })).fileName).toBe('ok');
  });

  it('runs a task again when tinypool ends its worker for an aborted task whose answer was on its way', async () => {
    // Task A (withText false) marks `flag` 1 when it starts, waits 150 ms, marks 2 and answers.
    // Task B (withText true) answers at once.
    const worker = `export default (t) => {
      if (t.withText) return { ok: true, built: { fileName: 'b', mime: '', extension: '', text: '', messages: 0, redactions: 0, byKind: {} } };
      const f = new Int32Array(t.flag); Atomics.store(f, 0, 1); Atomics.wait(f, 1, 0, 150); Atomics.store(f, 0, 2);
      return { ok: true, built: { fileName: 'a', mime: '', extension: '', text: '', messages: 0, redactions: 0, byKind: {} } };
    };`;
    pool = new ExportPool({ threads: 1, filename: moduleOf(worker) });
    // The answer and the worker's end race; ten rounds make the losing order certain to happen
    // (plain tinypool lost it in 15 of 20 rounds).
    const answers: string[] = [];
    for (let round = 0; round < 10; round++) {
      const flag = new Int32Array(new SharedArrayBuffer(8));
      const abortA = new AbortController();
      const a = errorOf(pool.run({ ...task, flag: flag.buffer } as unknown as ExportTask, abortA.signal));
      while (Atomics.load(flag, 0) !== 1) await new Promise((r) => setTimeout(r, 2));
      // Block this thread until A has answered, so its answer waits unread in the port; then abort
      // A (tinypool ends its worker) and queue B before that answer is read, in one synchronous run.
      while (Atomics.load(flag, 0) !== 2);
      const until = Date.now() + 50;
      while (Date.now() < until);
      abortA.abort('superseded');
      const b = pool.run({ ...task, withText: true }).then(
        (r) => r.fileName,
        (e: unknown) => String(e),
      );
      expect((await a).code).toBe('cancelled');
      answers.push(await b);
    }
    // Before: B was posted to A's dying worker and failed with "Terminating worker thread".
    expect(answers).toEqual(Array(10).fill('b'));
  }, 30_000);

  it('refuses beyond its queue with a clear message', async () => {
    pool = new ExportPool({ threads: 1, filename: moduleOf(`export default () => new Promise(() => {});`) });
    const stop = new AbortController();
    const all = Array.from({ length: MAX_QUEUE + 3 }, () => errorOf(pool!.run(task, stop.signal)));
    const refused = await Promise.race([
      Promise.any(all.map((p) => p.then((e) => (e.message.includes('already waiting') ? e : Promise.reject(new Error('other')))))),
      new Promise<null>((r) => setTimeout(() => r(null), 5000)),
    ]);
    expect(refused?.message).toMatch(new RegExp(`${MAX_QUEUE} exports are already waiting`));
    stop.abort('test over');
    await Promise.all(all);
  });
});
