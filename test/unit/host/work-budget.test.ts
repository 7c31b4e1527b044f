/**
 * The host's work budget (src/main/host/work-budget.ts): requests start while their estimates fit
 * beside what runs, wait first-in first-out otherwise, are refused with `busy` naming the budget
 * and the queue when the queue is full, and leave the queue when cancelled while waiting.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/shared/api';
import { costOf, defaultWorkBudget, WorkBudget } from '../../../src/main/host/work-budget';

const MB = 1024 * 1024;

/** A piece of work the test ends by hand. */
function deferred(): { promise: Promise<void>; resolve: () => void; started: boolean; run: () => Promise<void> } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  const d = {
    promise,
    resolve,
    started: false,
    run: async () => {
      d.started = true;
      await promise;
    },
  };
  return d;
}
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('WorkBudget', () => {
  it('runs what fits, queues the rest in order, and refuses past the queue with busy (409) and why', async () => {
    const b = new WorkBudget({ budgetBytes: 100 * MB, maxWaiting: 2 });
    const works = Array.from({ length: 5 }, deferred);
    // 40 MB each: two fit in 100 MB (80), a third would make 120.
    const runs = works.map((w) =>
      b.run('sweep', 40 * MB, w.run).then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    await settle();
    expect(works.map((w) => w.started)).toEqual([true, true, false, false, false]);
    expect(b.stats()).toMatchObject({ running: 2, usedBytes: 80 * MB, waiting: 2, refused: 1 });
    const refused = (await runs[4]) as ApiError;
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.code).toBe('busy');
    expect(refused.message).toMatch(
      /sweep needs about 40 MB of the host's 100 MB memory budget; 2 request\(s\) running hold 80 MB and 2 wait \(the queue holds at most 2\)/,
    );
    works[0]!.resolve();
    await settle();
    // The first waiting one starts, the second still waits behind it.
    expect(works.map((w) => w.started)).toEqual([true, true, true, false, false]);
    works[1]!.resolve();
    works[2]!.resolve();
    await settle();
    expect(works[3]!.started).toBe(true);
    works[3]!.resolve();
    expect(await Promise.all(runs.slice(0, 4))).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(b.stats()).toMatchObject({ running: 0, usedBytes: 0, waiting: 0, peakRunning: 2, peakUsedBytes: 80 * MB });
  });

  it('runs one sweep at a time when so capped, and lets other kinds pass a sweep waiting only for its slot', async () => {
    const b = new WorkBudget({ budgetBytes: 100 * MB, maxWaiting: 8, maxRunning: { sweep: 1 } });
    const s1 = deferred();
    const s2 = deferred();
    const replay = deferred();
    const r1 = b.run('sweep', 10 * MB, s1.run);
    const r2 = b.run('sweep', 10 * MB, s2.run);
    const r3 = b.run('replay', 10 * MB, replay.run);
    await settle();
    // Memory holds all three; the sweep slot holds one: the second sweep waits, the replay runs.
    expect([s1.started, s2.started, replay.started]).toEqual([true, false, true]);
    expect(b.stats()).toMatchObject({ running: 2, waiting: 1 });
    s1.resolve();
    await settle();
    expect(s2.started).toBe(true);
    s2.resolve();
    replay.resolve();
    await Promise.all([r1, r2, r3]);
  });

  it('runs a request larger than the whole budget alone', async () => {
    const b = new WorkBudget({ budgetBytes: 100 * MB, maxWaiting: 4 });
    const big = deferred();
    const small = deferred();
    const r1 = b.run('export', 500 * MB, big.run);
    const r2 = b.run('replay', 1 * MB, small.run);
    await settle();
    expect([big.started, small.started]).toEqual([true, false]);
    big.resolve();
    await settle();
    expect(small.started).toBe(true);
    small.resolve();
    await Promise.all([r1, r2]);
    expect(b.stats().peakRunning).toBe(1);
  });

  it('a request cancelled while it waits leaves the queue and answers cancelled', async () => {
    const b = new WorkBudget({ budgetBytes: 10 * MB, maxWaiting: 4 });
    const first = deferred();
    const waiting = deferred();
    const abort = new AbortController();
    const r1 = b.run('sweep', 10 * MB, first.run);
    const r2 = b.run('sweep', 10 * MB, waiting.run, abort.signal).catch((e: unknown) => e);
    await settle();
    expect(b.stats().waiting).toBe(1);
    abort.abort('superseded by a newer sweep on channel "t"');
    const e = (await r2) as ApiError;
    expect(e.code).toBe('cancelled');
    expect(e.message).toMatch(/superseded/);
    expect(b.stats().waiting).toBe(0);
    expect(waiting.started).toBe(false);
    first.resolve();
    await r1;
  });

  it('a failing request gives its room back', async () => {
    const b = new WorkBudget({ budgetBytes: 10 * MB, maxWaiting: 1 });
    await expect(b.run('export', 10 * MB, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(b.stats()).toMatchObject({ running: 0, usedBytes: 0 });
  });

  it('never holds more than its budget, whatever the costs and the order they finish in (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ cost: fc.integer({ min: 1, max: 60 }), order: fc.nat() }), { minLength: 1, maxLength: 20 }),
        async (reqs) => {
          const b = new WorkBudget({ budgetBytes: 100, maxWaiting: 100 });
          const works = reqs.map(() => deferred());
          const runs = reqs.map((r, i) => b.run('sweep', r.cost, works[i]!.run));
          // Finish them in a scrambled order, checking the budget at each step.
          const order = reqs.map((r, i) => ({ i, k: r.order })).sort((x, y) => x.k - y.k || x.i - y.i);
          for (const { i } of order) {
            await settle();
            expect(b.stats().usedBytes).toBeLessThanOrEqual(100);
            // Whatever has not started yet is still waiting (nothing lost).
            if (!works[i]!.started) {
              // Finish running ones until this one starts.
              for (const w of works) if (w.started) w.resolve();
              await settle();
            }
            works[i]!.resolve();
          }
          for (const w of works) w.resolve();
          await Promise.all(runs);
          expect(b.stats()).toMatchObject({ running: 0, usedBytes: 0, waiting: 0 });
          expect(b.stats().peakUsedBytes).toBeLessThanOrEqual(100);
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('costOf and defaultWorkBudget', () => {
  it('a sweep holds the session once per worker thread; an export and a replay once', () => {
    // 10 MB source: what a thread holds of it ≈ 4 × 10 = 40 MB, plus 32 MB per worker thread.
    expect(costOf('sweep', 10 * MB, 4)).toBe(4 * (40 * MB + 32 * MB));
    expect(costOf('export', 10 * MB)).toBe(40 * MB + 32 * MB);
    expect(costOf('replay', 10 * MB)).toBe(40 * MB);
  });

  it('a quarter of memory between 512 MB and 2 GB, one sweep at a time, unless configured', () => {
    expect(defaultWorkBudget({}, 16 * 1024 * MB).maxRunning).toEqual({ sweep: 1 });
    expect(defaultWorkBudget({ CTXSCOPE_SWEEPS_AT_ONCE: '3' }, 16 * 1024 * MB).maxRunning).toEqual({ sweep: 3 });
    expect(defaultWorkBudget({}, 16 * 1024 * MB).budgetBytes).toBe(2048 * MB);
    expect(defaultWorkBudget({}, 4 * 1024 * MB).budgetBytes).toBe(1024 * MB);
    expect(defaultWorkBudget({}, 1024 * MB).budgetBytes).toBe(512 * MB);
    expect(defaultWorkBudget({ CTXSCOPE_WORK_BUDGET_MB: '300', CTXSCOPE_WORK_QUEUE: '0' }, 1024 * MB)).toEqual({
      budgetBytes: 300 * MB,
      maxWaiting: 0,
      maxRunning: { sweep: 1 },
    });
  });
});
