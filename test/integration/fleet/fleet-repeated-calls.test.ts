/**
 * A folder with a resumed session (docs/fleet.md, "Repeated calls"): Claude Code's `--resume`
 * starts a new file that repeats the calls before it with their keys (message id + request id).
 * `fleet report` counts each (policy, call key) once and says how many copies it skipped.
 *
 * Fixture: the real anonymised session test/fixtures/usage-corpus/ccviewer-5c0375b4.jsonl as the
 * resumed file (a new session id, the same calls), and its first 30 lines as the earlier file —
 * every call of which the resumed file repeats. Both files start at the same time, so the earlier
 * file's copy (first by path) counts: the folder's cost is every session's cost minus the resumed
 * file's copies of the earlier file's keys, and the skipped calls are the earlier file's keyed calls.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, run, sql } from './helpers';

const source = join(root, 'test', 'fixtures', 'usage-corpus', 'ccviewer-5c0375b4.jsonl');
let dir: string;

type Report = { perPolicy: { rows: Record<string, number | string | null>[] } };
const report = (out: string): Record<string, Record<string, number | string | null>> => {
  const r = run(['fleet', 'report', out, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return Object.fromEntries((JSON.parse(r.stdout) as Report).perPolicy.rows.map((row) => [String(row['policy']), row]));
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-fleet-repeated-'));
  const lines = readFileSync(source, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const both = join(dir, 'both');
  const alone = join(dir, 'alone');
  mkdirSync(both);
  mkdirSync(alone);
  const resumed = lines.map((l) => l.replaceAll('5c0375b4-57a5-4f26-b12d-d022ee4e51b7', 'resumed-0000')).join('\n') + '\n';
  writeFileSync(join(both, 'earlier.jsonl'), lines.slice(0, 30).join('\n') + '\n');
  writeFileSync(join(both, 'resumed.jsonl'), resumed);
  writeFileSync(join(alone, 'resumed.jsonl'), resumed);
  for (const name of ['both', 'alone']) {
    const r = run([
      'fleet',
      'run',
      join(dir, name),
      '--policy',
      's1',
      '--policy',
      'claude-code',
      '--out',
      join(dir, `out-${name}`),
      '--threads',
      '2',
    ]);
    expect(r.status, r.stderr).toBe(0);
  }
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fleet report over a resumed session', () => {
  it('writes each step’s call key', async () => {
    const rows = await sql(
      `SELECT count(*) AS n, count(DISTINCT call_key) AS keys FROM read_parquet('${join(dir, 'out-alone')}/steps/policy=s1/*.parquet') WHERE call_key IS NOT NULL`,
    );
    // The resumed file alone: each of its keyed calls once.
    expect(Number(rows[0]!['n'])).toBeGreaterThan(0);
    expect(Number(rows[0]!['n'])).toBe(Number(rows[0]!['keys']));
  });

  it('counts each call once per policy: the resumed file’s copies of earlier calls leave the cost and are counted as skipped', async () => {
    const both = report(join(dir, 'out-both'));
    const alone = report(join(dir, 'out-alone'));
    // Every keyed step of the earlier file repeats a call of the resumed one.
    const earlier = await sql(
      `SELECT count(*) AS n FROM read_parquet('${join(dir, 'out-both')}/steps/policy=s1/*.parquet') WHERE call_key IS NOT NULL AND source_path LIKE '%earlier.jsonl'`,
    );
    const skipped = Number(earlier[0]!['n']);
    expect(skipped).toBeGreaterThan(0);
    for (const policy of ['s1', 'claude-code']) {
      expect(Number(alone[policy]!['skipped_calls'])).toBe(0);
      expect(Number(both[policy]!['skipped_calls'])).toBe(skipped);
      const parts = (t: string) => `read_parquet('${join(dir, 'out-both')}/${t}/policy=${policy}/*.parquet')`;
      const [all] = await sql(`SELECT sum(cost_usd) AS c FROM ${parts('sessions')} WHERE status = 'ok'`);
      const [repeats] = await sql(
        `SELECT sum(cost_usd) AS c FROM ${parts('steps')} WHERE source_path LIKE '%resumed.jsonl'
         AND call_key IN (SELECT call_key FROM ${parts('steps')} WHERE source_path LIKE '%earlier.jsonl')`,
      );
      expect(Number(repeats!['c'])).toBeGreaterThan(0);
      expect(Number(both[policy]!['total_cost'])).toBeCloseTo(Number(all!['c']) - Number(repeats!['c']), 9);
      // Without the dedupe, the folder would cost the sum of its sessions.
      expect(Number(both[policy]!['total_cost'])).toBeLessThan(Number(all!['c']));
    }
  });
});
