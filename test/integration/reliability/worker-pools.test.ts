/**
 * Worker pools whose workers die: the call settles with a message that says what happened (or
 * the job is redone on a fresh worker), never waits forever. Each case fails fast (a few
 * seconds at most) by the per-test timeout if a pool hangs again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBatch } from '../../../src/cli/batch';
import { createBulkCounter } from '../../../src/main/count/bulk';
import { validateConfig } from '../../../src/core/config';
import { getPolicy } from '../../../src/core/policies/index';
import { TunePool } from '../../../src/main/tune/run';
import { ExportPool } from '../../../src/main/export/pool';
import type { ExportTask } from '../../../src/main/export/protocol';
import { syntheticSession } from '../../bench/corpus';

const moduleOf = (source: string): string => `data:text/javascript,${encodeURIComponent(source)}`;
/** A tinypool task module whose worker dies (exit code 7) as soon as it is given a task. */
const crashingModule = moduleOf(`export default () => process.exit(7);`);

const texts = Array.from({ length: 2000 }, (_, i) => 'x'.repeat(i % 50));

describe('worker pools when a worker dies', () => {
  it('bulk counting rejects with a clear message when every worker dies', async () => {
    const bulk = createBulkCounter(2, { filename: crashingModule });
    await expect(bulk.count(texts, 'o200k_base')).rejects.toThrow(/token counting: .*exited \(code 7\)/);
    // And a later call fails at once rather than queueing forever.
    await expect(bulk.count(['a'], 'o200k_base')).rejects.toThrow(/token counting/);
    await bulk.close();
  }, 10_000);

  it('bulk counting redoes the chunk of a worker that was killed mid-job', async () => {
    // A stand-in count task: a text's "count" is its length, answered after 100 ms; the first task
    // of the run (a marker file says which) kills its own worker first, as an out-of-memory kill would.
    const marker = join(mkdtempSync(join(tmpdir(), 'ctxscope-pool-')), 'killed');
    const lengths = moduleOf(
      `import { existsSync, writeFileSync } from 'node:fs';
       export default async (t) => {
         if (!existsSync(${JSON.stringify(marker)})) { writeFileSync(${JSON.stringify(marker)}, ''); process.exit(1); }
         await new Promise((r) => setTimeout(r, 100));
         return Uint32Array.from(t.texts.map((s) => s.length));
       };`,
    );
    const bulk = createBulkCounter(2, { filename: lengths });
    const counts = await bulk.count(texts, 'cl100k_base');
    expect(Array.from(counts)).toEqual(texts.map((t) => t.length));
    // The killed worker was replaced.
    expect(bulk.spawned).toBeGreaterThan(2);
    await bulk.close();
  }, 10_000);

  it('batch settles every file with an error row when its workers crash', async () => {
    const jobs = ['a.jsonl', 'b.jsonl', 'c.jsonl'].map((file) => ({ file, config: validateConfig({}), strategyModules: [] }));
    const seen: string[] = [];
    const rows = await runBatch(jobs, (r) => seen.push(r.file), 2, crashingModule);
    expect(rows.map((r) => r.file)).toEqual(['a.jsonl', 'b.jsonl', 'c.jsonl']);
    for (const r of rows) expect(r.error).toMatch(/batch: .*exited \(code 7\)/);
    expect(seen.sort()).toEqual(['a.jsonl', 'b.jsonl', 'c.jsonl']);
  }, 10_000);

  it('a tuner sweep fails with the exit code when its workers exit mid-job, and the pool closes', async () => {
    const s2 = getPolicy('s2')!;
    const pool = new TunePool({ filename: crashingModule });
    await expect(
      pool.sweep({
        session: syntheticSession(20),
        policy: { id: s2.id, config: s2.config },
        sweeps: ['trigger=0.5:0.9:0.1'],
        baseOverrides: { tokenizer: 'chars4' },
        threads: 2,
      }),
    ).rejects.toThrow(/tuner: .*exited \(code 7\)/);
    await pool.close();
  }, 10_000);

  it('an export whose tinypool worker exits mid-task fails with the exit code; the next export runs', async () => {
    const pool = new ExportPool({
      threads: 1,
      filename: moduleOf(
        `export default (t) => t.withText ? { ok: true, built: { fileName: 'next', mime: '', extension: '', text: '', messages: 0, redactions: 0, byKind: {} } } : process.exit(7);`,
      ),
    });
    const task = {
      sessionKey: 's#0',
      session: null,
      row: { id: 's', title: null, sourcePath: 's.jsonl' },
      args: {},
      replay: null,
      withText: false,
    } as unknown as ExportTask;
    await expect(pool.run(task)).rejects.toThrow(/export: a worker exited \(code 7\)/);
    expect((await pool.run({ ...task, withText: true })).fileName).toBe('next');
    await pool.close();
  }, 10_000);
});
