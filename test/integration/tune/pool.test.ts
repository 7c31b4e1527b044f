/**
 * The tuner's warm pool (src/main/tune/run.ts TunePool) with real worker threads (from source):
 * a second sweep starts no worker and gives the same answer as a cold one; a tail append (a new
 * version of the session) or another session gives that session's results, not the cached ones;
 * counts a worker made once give the same results as stored counts; a cancelled sweep leaves a
 * pool that starts new workers and still answers.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message, Session } from '../../../src/core/model';
import { resolveConfig } from '../../../src/core/config';
import { getPolicy } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';
import { countWith } from '../../../src/core/tokens/index';
import { outcomeOf } from '../../../src/core/tune/index';
import { guidedSlices, runTune, scrambled, TuneCancelled, TunePool, type TuneOptions } from '../../../src/main/tune/run';
import { taskModule } from '../../../src/main/worker-pool';
import { syntheticSession } from '../../bench/corpus';

const workerSource = join(__dirname, '../../../src/main/tune/tune-worker.ts');
const filename = taskModule([], workerSource);
const s2 = getPolicy('s2')!;
const opts = (session: Session, extra: Partial<TuneOptions> = {}): TuneOptions => ({
  session,
  policy: { id: s2.id, config: s2.config },
  sweeps: ['trigger=0.5:0.95:0.05'],
  baseOverrides: { tokenizer: 'chars4', window: 16_000 },
  threads: 2,
  filename,
  ...extra,
});
/** What a sweep found, without its timing. */
const figures = (r: { points: readonly object[]; calls: number; proposal: number | null; frontier: readonly number[] }) => ({
  points: r.points,
  calls: r.calls,
  proposal: r.proposal,
  frontier: r.frontier,
});

/** The session with `extra` more calls appended as a tail would: a new Session object, the old untouched. */
function appended(s: Session, extra: number): Session {
  const more: Message[] = [];
  for (let i = 0; i < extra; i++) {
    more.push({
      id: `tail-a${i}`,
      role: 'assistant',
      parts: [{ kind: 'tool_call', id: `tail-c${i}`, name: 'Read', args: `{"path":"src/tail${i}.ts"}` }],
    });
    more.push({
      id: `tail-r${i}`,
      role: 'user',
      parts: [{ kind: 'tool_result', callId: `tail-c${i}`, isError: false, text: `tail ${i}\n`.repeat(400) }],
    });
  }
  return { ...s, messages: [...s.messages, ...more] };
}

let pool: TunePool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('TunePool', () => {
  it('keeps its workers between sweeps: the second sweep starts none and answers as a cold sweep does', async () => {
    const session = syntheticSession(300);
    pool = new TunePool();
    const first = await pool.sweep(opts(session));
    expect(pool.spawned).toBe(2);
    const second = await pool.sweep(opts(session, { sweeps: ['trigger=0.55:0.95:0.1'] }));
    expect(pool.spawned).toBe(2);
    expect(first.points).toHaveLength(10);
    expect(figures(second)).toEqual(figures(await runTune(opts(session, { sweeps: ['trigger=0.55:0.95:0.1'] }))));
  }, 60_000);

  it('a tail append or another session gives that session’s results, not the held one’s', async () => {
    const session = syntheticSession(300);
    pool = new TunePool();
    const before = await pool.sweep(opts(session));
    const grown = appended(session, 40);
    const after = await pool.sweep(opts(grown));
    expect(after.calls).toBe(before.calls + 40);
    expect(after.points.map((p) => p.billedInputTokens)).not.toEqual(before.points.map((p) => p.billedInputTokens));
    expect(figures(after)).toEqual(figures(await runTune(opts(grown))));
    const other = { ...syntheticSession(200), id: 'another-session' };
    expect(figures(await pool.sweep(opts(other)))).toEqual(figures(await runTune(opts(other))));
    // Back to the first session after forget(): still its own results.
    pool.forget(session.id);
    expect(figures(await pool.sweep(opts(session)))).toEqual(figures(before));
    expect(pool.spawned).toBe(2);
  }, 90_000);

  it('counts made once by a worker give the results stored counts give', async () => {
    const session = syntheticSession(300);
    const stored = countWith(session, 'chars4');
    pool = new TunePool();
    const made = await pool.sweep(opts(session));
    const withStored = await runTune(opts(session, { storedCounts: (t) => (t === 'chars4' ? stored : undefined) }));
    expect(figures(made)).toEqual(figures(withStored));
  }, 60_000);

  it('facts extracted once and shipped to the other worker give the points each setting computes on its own', async () => {
    // S3 folds the middle into a summary, so retention reads both the facts and the summary; a needle adds the user's own.
    const s3 = getPolicy('s3')!;
    const session = syntheticSession(400);
    const stored = countWith(session, 'chars4');
    const base = { tokenizer: 'chars4', window: 12_000 };
    const needles = ['module7.ts'];
    pool = new TunePool();
    const o = opts(session, {
      policy: { id: s3.id, config: s3.config },
      baseOverrides: base,
      needles,
      sweeps: ['trigger=0.4:0.95:0.05'],
      storedCounts: (t) => (t === 'chars4' ? stored : undefined),
    });
    const first = await pool.sweep(o);
    // Warm: the workers hold the shipped facts; a second sweep must still agree.
    const warm = await pool.sweep({ ...o, sweeps: ['trigger=0.425:0.925:0.05'] });
    for (const r of [first, warm]) {
      for (const p of r.points) {
        // Per setting, in this thread, on a copy of the session: facts extracted by this replay itself.
        const own = { ...session, messages: session.messages.map((m) => ({ ...m })) };
        const config = resolveConfig(s3.config, { ...base, ...p.settings }, {});
        const alone = outcomeOf(
          p.index,
          await replay(own, { ...config, summarizer: 'extractive' }, { counts: countWith(own, 'chars4'), needles, pinned: new Set() }),
        );
        const { settings: _s, onFrontier: _f, ...shipped } = p;
        expect(shipped).toEqual(alone);
      }
    }
    // The comparison means something: some settings lose facts, and both workers took part.
    expect(first.points.some((p) => p.lostFacts > 0)).toBe(true);
    expect(pool.spawned).toBe(2);
  }, 120_000);

  it('a cancelled sweep ends its workers; the next sweep starts new ones and answers', async () => {
    const session = syntheticSession(300);
    pool = new TunePool();
    const abort = new AbortController();
    const running = pool.sweep(opts(session, { sweeps: ['trigger=0.5:0.99:0.01'], signal: abort.signal }));
    // The sweep has started its workers and sent its first job by now (it runs up to its first await).
    abort.abort('test');
    await expect(running).rejects.toBeInstanceOf(TuneCancelled);
    const r = await pool.sweep(opts(session));
    expect(r.points.filter((p) => p.error)).toEqual([]);
    expect(pool.spawned).toBe(4);
  }, 60_000);

  it('ends its workers after an idle spell; the next sweep starts new ones', async () => {
    const session = syntheticSession(100);
    pool = new TunePool({ idleMs: 20 });
    await pool.sweep(opts(session));
    await new Promise((r) => setTimeout(r, 300));
    const r = await pool.sweep(opts(session));
    expect(pool.spawned).toBe(4);
    expect(r.points.filter((p) => p.error)).toEqual([]);
  }, 60_000);
});

describe('the grid split', () => {
  it('scrambles every position exactly once and slices shrink to single settings', () => {
    for (const n of [1, 2, 3, 10, 100, 101, 9_999]) {
      const order = scrambled(n);
      expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
      const sizes = guidedSlices(n, 2);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(n);
      expect(sizes.at(-1)).toBe(1);
    }
    // A last sweep of two values (true/false alternating) is not split by parity between two workers.
    const firstHalf = scrambled(100).slice(0, 50);
    expect(firstHalf.filter((i) => i % 2 === 0).length).toBeGreaterThan(15);
    expect(firstHalf.filter((i) => i % 2 === 1).length).toBeGreaterThan(15);
  });
});
