/** `ctxscope replay`: pins (`--pin`, the config file's `pinned`), 0-based turns in table and JSON, money precise enough to explain an abort. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
const sample = join(root, 'resources', 'sample', 'sample-session.jsonl');
let dir: string;
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CTXSCOPE_DB: join(dir, 'cli.db') },
  });

interface Json {
  steps: { turn: number; limit: number; trigger: number | null; status: string; reason: string }[];
  events: { kind: string; dropped?: [number, number][] }[];
}
const json = (...args: string[]): Json => {
  const r = run('replay', sample, '--json', ...args);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Json;
};
const droppedOf = (j: Json): number[] =>
  j.events.flatMap((e) =>
    e.kind === 'compression' ? (e.dropped ?? []).flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, k) => a + k)) : [],
  );

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-pin-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ctxscope replay --pin', () => {
  it('keeps a pinned message that the policy would drop, from --pin or the config file', () => {
    const free = json('--policy', 's2', '--set', 'window=30000', '--set', 'summarizer=none');
    const victim = droppedOf(free)[0]!;
    expect(victim).toBeGreaterThanOrEqual(0);
    expect(droppedOf(json('--policy', 's2', '--set', 'window=30000', '--set', 'summarizer=none', '--pin', String(victim)))).not.toContain(
      victim,
    );
    const cfg = join(dir, 'pins.json');
    writeFileSync(cfg, JSON.stringify({ pinned: [victim] }));
    expect(droppedOf(json('--policy', 's2', '--set', 'window=30000', '--set', 'summarizer=none', '--config', cfg))).not.toContain(victim);
  });

  it('names an unknown message (exit 2)', () => {
    const r = run('replay', sample, '--policy', 's2', '--pin', 'no-such-message');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--pin \/ pinned: no message with id "no-such-message"/);
  });
});

describe('ctxscope replay output', () => {
  it('numbers turns from 0 in the table and in JSON alike, and shows limit and trigger', () => {
    const j = json('--policy', 's3');
    const table = run('replay', sample, '--policy', 's3').stdout.split('\n');
    expect(table[0]).toMatch(/^step\s+msg\s+turn \(0-based\)\s+summary\s+history\s+total\s+limit\s+trigger/);
    const last = table[2 + j.steps.length - 1]!.trim().split(/\s+/);
    expect(Number(last[2])).toBe(j.steps[j.steps.length - 1]!.turn);
    expect(j.steps[0]!.turn).toBe(0);
  });

  it('prints money to a hundredth of a cent when a cost budget aborts', () => {
    const j = json('--policy', 's4', '--set', 'budget.cost=0.02');
    const abort = j.steps.find((s) => s.status === 'abort');
    expect(abort?.reason).toMatch(/^session cost budget exceeded \(\$\d+\.\d{4} of \$0\.02\): run aborted$/);
  });
});
