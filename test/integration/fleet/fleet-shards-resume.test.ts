/**
 * Past one machine and past a crash: three `--shard I/3` runs into one folder give the same rows,
 * row for row, as one unsharded run; a run killed with SIGKILL mid-way and run again gives the
 * same rows as a run never interrupted (the killed run leaves only whole part files).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeText, codexLines } from '../../bench/corpus';
import { readTable, run, start } from './helpers';

let dir: string;
let inputs: string;
const FILES = 36;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-fleet-shards-'));
  inputs = join(dir, 'in');
  mkdirSync(join(inputs, 'claude'), { recursive: true });
  mkdirSync(join(inputs, 'codex'), { recursive: true });
  // Sessions of different lengths (the generators are deterministic for a given bound).
  for (let i = 0; i < FILES / 2; i++) {
    writeFileSync(join(inputs, 'claude', `s${i}.jsonl`), claudeCodeText({ calls: 40 + i * 12 }));
    writeFileSync(join(inputs, 'codex', `r${i}.jsonl`), [...codexLines({ calls: 30 + i * 10 })].join(''));
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A small window so that sessions compress and every table has rows.
const POLICIES = ['--policy', 's1', '--policy', 'claude-code', '--set', 'window=48000'];
const tables = ['sessions', 'steps', 'compressions'] as const;

describe('fleet shards', () => {
  it('three shards into one folder equal one unsharded run, row for row', async () => {
    const whole = join(dir, 'whole');
    const sharded = join(dir, 'sharded');
    expect(run(['fleet', 'run', inputs, ...POLICIES, '--out', whole, '--threads', '2']).status).toBe(0);
    const written: number[] = [];
    for (const i of [1, 2, 3]) {
      const r = run(['fleet', 'run', inputs, ...POLICIES, '--out', sharded, '--threads', '2', '--shard', `${i}/3`, '--json']);
      expect(r.status).toBe(0);
      written.push((JSON.parse(r.stdout) as { total: number }).total);
    }
    // Every file in exactly one shard, and each shard had some.
    expect(written.reduce((a, b) => a + b, 0)).toBe(FILES);
    expect(Math.min(...written)).toBeGreaterThan(0);
    for (const t of tables) {
      const a = await readTable(whole, t);
      expect(a.length).toBeGreaterThan(0);
      const b = await readTable(sharded, t);
      expect(b.length).toBe(a.length);
      expect(b).toEqual(a);
    }
    // Each shard wrote its own part files.
    const parts = readdirSync(join(sharded, 'sessions', 'policy=s1'));
    for (const i of [1, 2, 3]) expect(parts.some((p) => p.startsWith(`part-${i}-of-3-`))).toBe(true);
  }, 300_000);

  it('rejects a malformed --shard', () => {
    for (const bad of ['0/3', '4/3', '1-3', 'x']) {
      const r = run(['fleet', 'run', inputs, '--policy', 's1', '--out', join(dir, 'bad'), '--shard', bad]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/--shard: expected/);
    }
  });
});

describe('fleet resume', () => {
  it('a run killed with SIGKILL mid-way, run again, equals a run never interrupted', async () => {
    const clean = join(dir, 'clean');
    const killed = join(dir, 'killed');
    const env = { CTXSCOPE_FLEET_FLUSH_SESSIONS: '4' };
    expect(run(['fleet', 'run', inputs, ...POLICIES, '--out', clean, '--threads', '1'], env).status).toBe(0);
    const expected = await readTable(clean, 'sessions');

    const child = start(['fleet', 'run', inputs, ...POLICIES, '--out', killed, '--threads', '1'], env);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Kill once the first sessions part is on disk: some sessions written, most not.
    const partsDir = join(killed, 'sessions', 'policy=s1');
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && !(existsSync(partsDir) && readdirSync(partsDir).some((f) => f.endsWith('.parquet'))))
      await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGKILL');
    await exited;
    const partial = await readTable(killed, 'sessions');
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(expected.length);

    const again = run(['fleet', 'run', inputs, ...POLICIES, '--out', killed, '--threads', '2', '--json']);
    expect(again.status).toBe(0);
    // It replays only what the killed run had not written (a file may be done under one policy and not the other).
    const rerun = JSON.parse(again.stdout) as { rows: { sessions: number } };
    expect(rerun.rows.sessions).toBe(expected.length - partial.length);
    for (const t of tables) expect(await readTable(killed, t)).toEqual(await readTable(clean, t));
  }, 300_000);
});
