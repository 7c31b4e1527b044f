/** `ctxscope tune` as a user runs it: a child process, its JSON shape, the proposal, exit codes. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TuneResult } from '../../../src/core/tune/index';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
const sample = join(root, 'resources', 'sample', 'sample-session.jsonl');
let dir: string;
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, 'tune', sample, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CTXSCOPE_DB: join(dir, 'cli.db') },
  });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-tune-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ctxscope tune', () => {
  it('prints the documented JSON shape and proposes the cheapest setting that loses nothing', () => {
    // S2 on a 64,000-token window: a sliding window of 2..30 messages; small windows forget facts the agent needs later.
    const r = run(
      '--policy',
      's2',
      '--set',
      'window=64000',
      '--sweep',
      'slidingWindow=2:30:2',
      '--needle',
      'ORD-1187',
      '--threads',
      '2',
      '--json',
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as TuneResult;
    expect(j.policy).toBe('s2');
    expect(j.sweeps).toEqual([{ key: 'slidingWindow', values: [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] }]);
    expect(j.baseOverrides).toEqual({ window: 64000 });
    expect(j.calls).toBe(24);
    expect(j.threads).toBe(2);
    expect(j.points).toHaveLength(15);
    expect(Object.keys(j.points[0]!).sort()).toEqual(
      [
        'aborts',
        'billedInputTokens',
        'compressions',
        'cost',
        'forcedFinals',
        'index',
        'lostFacts',
        'lostNeedles',
        'onFrontier',
        'peak',
        'settings',
      ].sort(),
    );
    // The proposal loses nothing, and every cheaper setting loses something (that is what "cheapest" means).
    const p = j.points[j.proposal!]!;
    expect(p).toMatchObject({ lostFacts: 0, lostNeedles: 0, forcedFinals: 0, aborts: 0, onFrontier: true });
    for (const q of j.points) if (q.cost < p.cost) expect(q.lostFacts + q.lostNeedles + q.forcedFinals + q.aborts).toBeGreaterThan(0);
    // The smallest window forgets facts (a proposal that lost them would be wrong).
    expect(j.points[0]!.lostFacts).toBeGreaterThan(0);
    expect(j.frontier[0]).toBe(0);
    expect(j.verdict).toMatch(/^cheapest of \d+ setting/);
  });

  it('prints the frontier and the proposal as --set flags', () => {
    const r = run('--policy', 's2', '--set', 'window=64000', '--sweep', 'slidingWindow=2:30:2');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^frontier \(\d+ of 15 settings; cost in USD\):/);
    expect(r.stdout).toMatch(/proposed: --set slidingWindow=\d+\n/);
  });

  it('exits 4 with --fail-if-none when no setting qualifies, naming the near-miss', () => {
    const r = run('--policy', 's2', '--set', 'window=64000', '--sweep', 'slidingWindow=2:6:2', '--fail-if-none', '--json');
    expect(r.status).toBe(4);
    const j = JSON.parse(r.stdout) as TuneResult;
    expect(j.proposal).toBeNull();
    expect(j.nearMiss).not.toBeNull();
    expect(r.stderr).toMatch(/assertion failed: no setting qualifies; the best near-miss still has \d+ lost fact/);
  });

  it('exits 2 on a bad sweep, naming the key and what was expected', () => {
    let r = run('--policy', 's2', '--sweep', 'slidingWindow=0:4:1');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--sweep slidingWindow=0:4:1: slidingWindow: expected at least 1/);
    r = run('--policy', 's2', '--sweep', 'trigger=0.1:0.9:0.0001', '--sweep', 'slidingWindow=1:100:1');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/more than the grid cap of 10,000/);
    r = run('--policy', 's2');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--sweep: give at least one sweep/);
  });
});
