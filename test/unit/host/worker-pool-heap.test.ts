/**
 * A TaskPool's heap bound (resourceLimits): its workers' V8 heap is bounded as asked, and a task
 * that grows past the bound fails as a worker's death (PoolError) while the pool goes on — what the
 * host's count pool relies on to count a session too big for its bound again, unbounded
 * (handlers.ts COUNT_HEAP_MB).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PoolError, TaskPool } from '../../../src/main/worker-pool';

const moduleOf = (source: string): string => `data:text/javascript,${encodeURIComponent(source)}`;
// Answers its heap's limit, or keeps arrays alive until it dies when asked to grow.
const task = moduleOf(
  `import v8 from 'node:v8';
   export default async (t) => {
     if (t.grow) { const kept = []; for (;;) kept.push(new Array(100000).fill(kept.length)); }
     return v8.getHeapStatistics().heap_size_limit;
   };`,
);

let pool: TaskPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('TaskPool resourceLimits', () => {
  it("bounds its workers' heap, fails a task past the bound as a death, and runs the next one", async () => {
    pool = new TaskPool({
      name: 'bounded',
      filename: task,
      threads: 1,
      attempts: 1,
      restarts: Infinity,
      resourceLimits: { maxOldGenerationSizeMb: 64 },
    });
    const limit = await pool.run<number>({});
    // The old generation's 64 MB plus the young generation's semispaces: far under an unbounded
    // worker's default (gigabytes on this machine's memory).
    expect(limit).toBeGreaterThan(64e6);
    expect(limit).toBeLessThan(256e6);
    const died = await pool.run({ grow: true }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(died).toBeInstanceOf(PoolError);
    expect((died as Error).message).toMatch(/bounded: a worker .* in the middle of a task/);
    expect(await pool.run<number>({})).toBe(limit);
  }, 60_000);

  it('leaves the heap unbounded without resourceLimits', async () => {
    pool = new TaskPool({ name: 'unbounded', filename: task, threads: 1 });
    expect(await pool.run<number>({})).toBeGreaterThan(512e6);
  });
});
