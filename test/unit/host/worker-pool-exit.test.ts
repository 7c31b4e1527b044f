/**
 * A tinypool worker that calls process.exit in the middle of a task: without the guard the task
 * waits forever and destroy() hangs (tinypool 2.2); with it the task fails with an error naming
 * the pool and the code, a task queued behind it still runs, the pool keeps working and closes.
 */
import Tinypool from 'tinypool';
import { afterEach, describe, expect, it } from 'vitest';
import { guardExits, WorkerExitError } from '../../../src/main/worker-pool';

const moduleOf = (source: string): string => `data:text/javascript,${encodeURIComponent(source)}`;
// Exits (after a tick, so the task is surely running) when asked to, else echoes.
const exiting = moduleOf(
  `export default async (t) => { if (t.exit) { await new Promise((r) => setTimeout(r, 1)); process.exit(t.exit); } return t.value; };`,
);

let pool: Tinypool | undefined;
afterEach(async () => {
  await pool?.destroy();
  pool = undefined;
});

describe('guardExits', () => {
  it('fails the running task of a worker that exits, with the pool name and exit code', async () => {
    pool = guardExits(new Tinypool({ filename: exiting, minThreads: 0, maxThreads: 1 }), 'test pool');
    const e = await pool.run({ exit: 3 }).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(WorkerExitError);
    expect((e as Error).message).toBe('test pool: a worker exited (code 3) in the middle of a task');
    // The pool recovers: a new worker answers the next task.
    expect(await pool.run({ value: 8 })).toBe(8);
  });

  it('runs a task that was queued behind the dying one, and destroy() returns', async () => {
    pool = guardExits(new Tinypool({ filename: exiting, minThreads: 0, maxThreads: 1 }), 'test pool');
    const dying = pool.run({ exit: 7 }).then(
      () => 'resolved',
      (x: unknown) => (x instanceof Error ? x.message : String(x)),
    );
    const queued = pool.run({ value: 42 });
    expect(await dying).toMatch(/code 7/);
    expect(await queued).toBe(42);
    const p = pool;
    pool = undefined;
    await p.destroy();
  });

  it('leaves a worker the pool ends itself alone (destroy, idle timeout)', async () => {
    const idle: Error[] = [];
    pool = guardExits(new Tinypool({ filename: exiting, minThreads: 0, maxThreads: 2, idleTimeout: 1 }), 'test pool', (e) => idle.push(e));
    expect(await Promise.all([pool.run({ value: 1 }), pool.run({ value: 2 })])).toEqual([1, 2]);
    while (pool.threads.length > 0) await new Promise((r) => setImmediate(r));
    expect(await pool.run({ value: 3 })).toBe(3);
    expect(idle).toEqual([]);
  });
});
