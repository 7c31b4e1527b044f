/**
 * `ctxscope fleet run|report|query` as a user runs them (the bin, a child process), the output read
 * back with DuckDB: row counts, per-session totals equal to `ctxscope replay FILE --json`, error
 * rows, the refusals (other settings, writes, several statements).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTable, root, run, sql } from './helpers';

const fixtures = join(root, 'test', 'fixtures', 'import');
const sample = join(root, 'resources', 'sample', 'sample-session.jsonl');
let dir: string;
let inputs: string;
let out: string;
let first: ReturnType<typeof run>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-fleet-'));
  inputs = join(dir, 'in');
  out = join(dir, 'out');
  for (const [from, to] of [
    [sample, 'sample.jsonl'],
    [join(fixtures, 'claude-code-session.jsonl'), 'claude.jsonl'],
    [join(fixtures, 'codex-rollout.jsonl'), 'codex.jsonl'],
  ] as const) {
    const target = join(inputs, to);
    mkdirSync(inputs, { recursive: true });
    copyFileSync(from, target);
  }
  writeFileSync(join(inputs, 'broken.jsonl'), '{"type":"user","message":\n');
  first = run(['fleet', 'run', inputs, '--policy', 's3', '--policy', 'claude-code', '--out', out, '--threads', '2', '--json']);
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fleet run', () => {
  it('exits 0 with a failed transcript and says how many rows failed', () => {
    expect(first.stderr).toMatch(/2 session row\(s\) failed/);
    expect(first.status).toBe(0);
    const summary = JSON.parse(first.stdout) as { total: number; errors: number; rows: { sessions: number } };
    expect(summary.total).toBe(4);
    // One error row per policy for the broken file.
    expect(summary.errors).toBe(2);
  });

  it('writes hive-partitioned part files per table and policy, and a manifest whose row counts match the files', async () => {
    for (const t of ['sessions', 'steps', 'compressions'])
      expect(readdirSync(join(out, t)).sort()).toEqual(['policy=claude-code', 'policy=s3']);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      policies: { id: string; settings: { policy: string }; settingsHash: string }[];
      rows: Record<string, number>;
      shards: unknown[];
    };
    expect(manifest.policies.map((p) => p.id)).toEqual(['s3', 'claude-code']);
    expect(manifest.policies[0]!.settings.policy).toBe('s3');
    expect(manifest.shards).toHaveLength(1);
    for (const t of ['sessions', 'steps', 'compressions'] as const) expect((await readTable(out, t)).length).toBe(manifest.rows[t]);
    // No temporary file is left behind.
    const all = (await sql(`SELECT file FROM glob('${out}/**')`)).map((r) => String(r['file']));
    expect(all.some((f) => f.endsWith('.tmp'))).toBe(false);
  });

  it('has one sessions row per session and policy, and one steps row per call', async () => {
    const rows = await sql(
      `SELECT policy, count(*) AS n, sum(calls) AS calls FROM read_parquet('${out}/sessions/*/*.parquet', hive_partitioning = true) WHERE status = 'ok' GROUP BY policy ORDER BY policy`,
    );
    const steps = await sql(
      `SELECT policy, count(*) AS n FROM read_parquet('${out}/steps/*/*.parquet', hive_partitioning = true) GROUP BY policy ORDER BY policy`,
    );
    expect(rows.map((r) => r['n'])).toEqual([rows[0]!['n'], rows[0]!['n']]);
    expect(steps.map((r) => Number(r['n']))).toEqual(rows.map((r) => Number(r['calls'])));
    // sample (1 session + 1 subagent), claude (1 + 1 subagent), codex (1).
    expect(Number(rows[0]!['n'])).toBe(5);
  });

  it('writes an error row per policy for a transcript that does not parse, naming the file and line', async () => {
    const errors = await sql(
      `SELECT policy, status, error, session_id FROM read_parquet('${out}/sessions/*/*.parquet', hive_partitioning = true) WHERE source_path LIKE '%broken.jsonl' ORDER BY policy`,
    );
    expect(errors.map((r) => r['policy'])).toEqual(['claude-code', 's3']);
    for (const e of errors) {
      expect(e['status']).toBe('error');
      expect(String(e['error'])).toMatch(/broken\.jsonl:\d+/);
      expect(e['session_id']).toBeNull();
    }
  });

  it('gives per-session totals equal to `ctxscope replay FILE --policy P --json`', async () => {
    for (const policy of ['s3', 'claude-code']) {
      const r = run(['replay', join(inputs, 'sample.jsonl'), '--policy', policy, '--json']);
      expect(r.status).toBe(0);
      const single = JSON.parse(r.stdout) as { totals: Record<string, number>; retention: { lost: unknown[] }; steps: unknown[] };
      const [row] = await sql(
        `SELECT * FROM read_parquet('${out}/sessions/*/*.parquet', hive_partitioning = true) WHERE policy = '${policy}' AND source_path LIKE '%sample.jsonl' AND parent_session_id IS NULL`,
      );
      expect(row).toBeDefined();
      expect(Number(row!['billed_input_tokens'])).toBe(Math.round(single.totals['billedInputTokens']!));
      expect(Number(row!['cached_input_tokens'])).toBe(Math.round(single.totals['cachedInputTokens']!));
      expect(Number(row!['output_tokens'])).toBe(Math.round(single.totals['outputTokens']!));
      expect(Number(row!['cost_usd'])).toBeCloseTo(single.totals['cost']!, 9);
      expect(Number(row!['compressions'])).toBe(single.totals['compressions']);
      expect(Number(row!['tokens_removed'])).toBe(Math.round(single.totals['tokensRemoved']!));
      expect(Number(row!['peak_tokens'])).toBe(Math.round(single.totals['peak']!));
      expect(Number(row!['forced_finals'])).toBe(single.totals['forcedFinals']);
      expect(Number(row!['aborts'])).toBe(single.totals['aborts']);
      expect(Number(row!['lost_facts'])).toBe(single.retention.lost.length);
      expect(Number(row!['calls'])).toBe(single.steps.length);
      const comps = await sql(
        `SELECT count(*) AS n FROM read_parquet('${out}/compressions/*/*.parquet', hive_partitioning = true) WHERE policy = '${policy}' AND source_path LIKE '%sample.jsonl' AND kind = 'compression' AND session_id = '${String(row!['session_id'])}'`,
      );
      expect(Number(comps[0]!['n'])).toBe(single.totals['compressions']);
    }
  });

  it('writes each call’s cost, cache reads and writes, and the overflows, as `ctxscope replay --json` gives them', async () => {
    // A 20,000-token window: the sample's requests (up to ~74k under claude-code) overflow it at some calls, not all.
    const small = join(dir, 'small-window');
    const set = ['--set', 'window=20000'];
    expect(
      run(['fleet', 'run', join(inputs, 'sample.jsonl'), '--policy', 's3', '--policy', 'claude-code', ...set, '--out', small]).status,
    ).toBe(0);
    let overflowing = 0;
    for (const policy of ['s3', 'claude-code']) {
      const r = run(['replay', join(inputs, 'sample.jsonl'), '--policy', policy, ...set, '--json']);
      expect(r.status).toBe(0);
      const single = JSON.parse(r.stdout) as {
        totals: Record<string, number>;
        steps: { status: string; cacheRead: number; cacheWrite: number; cost: number }[];
      };
      const [row] = await sql(
        `SELECT * FROM read_parquet('${small}/sessions/*/*.parquet', hive_partitioning = true) WHERE policy = '${policy}' AND parent_session_id IS NULL`,
      );
      expect(Number(row!['overflows'])).toBe(single.totals['overflows']);
      expect(Number(row!['cache_write_tokens'])).toBe(Math.round(single.totals['cacheWriteTokens']!));
      overflowing += single.totals['overflows']!;
      const steps = await sql(
        `SELECT "call", status, cost_usd, cache_read_tokens, cache_write_tokens FROM read_parquet('${small}/steps/*/*.parquet', hive_partitioning = true)
         WHERE policy = '${policy}' AND session_id = '${String(row!['session_id'])}' ORDER BY "call"`,
      );
      expect(steps.length).toBe(single.steps.length);
      single.steps.forEach((s, i) => {
        expect(steps[i]!['status'], `${policy} call ${i}`).toBe(s.status);
        expect(Number(steps[i]!['cost_usd'])).toBeCloseTo(s.cost, 12);
        expect(Number(steps[i]!['cache_read_tokens'])).toBe(Math.round(s.cacheRead));
        expect(Number(steps[i]!['cache_write_tokens'])).toBe(Math.round(s.cacheWrite));
      });
      // The session's figures are the sums of its calls'.
      const [sum] = await sql(
        `SELECT sum(cost_usd) AS cost, sum(cache_write_tokens) AS writes, count(*) FILTER (WHERE status = 'overflow') AS overflows
         FROM read_parquet('${small}/steps/*/*.parquet', hive_partitioning = true) WHERE policy = '${policy}' AND session_id = '${String(row!['session_id'])}'`,
      );
      expect(Number(sum!['cost'])).toBeCloseTo(Number(row!['cost_usd']), 9);
      expect(Number(sum!['writes'])).toBe(Number(row!['cache_write_tokens']));
      expect(Number(sum!['overflows'])).toBe(Number(row!['overflows']));
    }
    // Not a vacuous check: some calls overflow (and, per the sums above, not every call of every session).
    expect(overflowing).toBeGreaterThan(0);
  });

  it('types columns for analysis: integers for tokens, doubles for money, timestamps', async () => {
    const types = Object.fromEntries(
      (await sql(`DESCRIBE SELECT * FROM read_parquet('${out}/sessions/*/*.parquet', hive_partitioning = true)`)).map((r) => [
        r['column_name'],
        r['column_type'],
      ]),
    );
    expect(types['billed_input_tokens']).toBe('BIGINT');
    expect(types['cost_usd']).toBe('DOUBLE');
    expect(types['started_at']).toBe('TIMESTAMP');
    expect(types['calls']).toBe('INTEGER');
    expect(types['overflows']).toBe('INTEGER');
    expect(types['cache_write_tokens']).toBe('BIGINT');
  });

  it('skips what is already written on a rerun with the same settings', () => {
    const again = run(['fleet', 'run', inputs, '--policy', 's3', '--policy', 'claude-code', '--out', out, '--json']);
    expect(again.status).toBe(0);
    const s = JSON.parse(again.stdout) as { skipped: number; rows: { sessions: number } };
    expect(s.skipped).toBe(4);
    expect(s.rows.sessions).toBe(0);
  });

  it('refuses a DIR written with other settings unless --overwrite', () => {
    const other = run(['fleet', 'run', inputs, '--policy', 's3', '--set', 'trigger=0.5', '--out', out]);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/written with other settings/);
    expect(other.stderr).toMatch(/--overwrite/);
  });

  it('exits 3 with --fail-on-error when a transcript failed', () => {
    const o2 = join(dir, 'out-fail');
    const r = run([
      'fleet',
      'run',
      join(inputs, 'broken.jsonl'),
      join(inputs, 'codex.jsonl'),
      '--policy',
      's1',
      '--out',
      o2,
      '--fail-on-error',
    ]);
    expect(r.status).toBe(3);
    expect(existsSync(join(o2, 'sessions', 'policy=s1'))).toBe(true);
  });
});

describe('fleet report and query', () => {
  it('reports per policy with savings against the agent’s own policy, and the sessions that differ most', () => {
    const r = run(['fleet', 'report', out, '--json']);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as {
      perPolicy: { rows: Record<string, number | string | null>[] };
      differ: { rows: unknown[] };
      errors: { rows: Record<string, unknown>[] };
    };
    const byPolicy = Object.fromEntries(report.perPolicy.rows.map((row) => [row['policy'], row]));
    // Claude Code and Codex sessions: the claude-code preset is the Claude sessions' own policy; the
    // Codex one was not run, so s3 (the first) stands in. Baseline cost is the same for every row.
    expect(byPolicy['s3']!['baseline_cost']).toBeCloseTo(Number(byPolicy['claude-code']!['baseline_cost']), 9);
    const total = (p: string) => Number(byPolicy[p]!['total_cost']);
    expect(Number(byPolicy['s3']!['savings'])).toBeCloseTo(Number(byPolicy['s3']!['baseline_cost']) - total('s3'), 9);
    expect(report.differ.rows.length).toBeGreaterThan(0);
    expect(report.differ.rows.length).toBeLessThanOrEqual(10);
    expect(report.errors.rows.map((e) => e['errors'])).toEqual([1, 1]);
  });

  it('counts the sessions whose requests overflowed the window, per policy, and lists them', async () => {
    // A 300-token window: the sample's first request alone (its system prompt, tool definitions and
    // first user message) is above it, so each of the main session's calls overflows under either
    // policy (docs/user-guide.md, statuses: a request above the window is a failure).
    const tiny = join(dir, 'tiny');
    expect(run(['fleet', 'run', sample, '--policy', 's3', '--policy', 'claude-code', '--set', 'window=300', '--out', tiny]).status).toBe(0);
    const r = run(['fleet', 'report', tiny, '--json']);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as {
      perPolicy: { rows: Record<string, number | string | null>[] };
      stopped: { rows: Record<string, number | string | null>[] };
    };
    const direct = await sql(
      `SELECT policy, count(*) FILTER (WHERE overflows > 0) AS n FROM read_parquet('${tiny}/sessions/*/*.parquet', hive_partitioning = true) GROUP BY policy ORDER BY policy`,
    );
    const byPolicy = Object.fromEntries(report.perPolicy.rows.map((row) => [row['policy'], Number(row['sessions_overflowed'])]));
    expect(byPolicy).toEqual(Object.fromEntries(direct.map((d) => [d['policy'], Number(d['n'])])));
    expect(byPolicy['claude-code']).toBeGreaterThanOrEqual(1);
    const listed = report.stopped.rows.filter((row) => Number(row['overflows']) > 0);
    expect(listed.map((row) => row['policy']).sort()).toEqual(['claude-code', 's3'].flatMap((p) => Array<string>(byPolicy[p]!).fill(p)));
    expect(run(['fleet', 'report', tiny]).stdout).toMatch(/sessions_overflowed[\s\S]*overflowed the window \(/);
  });

  it('--baseline P measures every policy against P: P saves nothing', () => {
    const r = run(['fleet', 'report', out, '--baseline', 'claude-code', '--json']);
    const report = JSON.parse(r.stdout) as { perPolicy: { rows: Record<string, number | string>[] } };
    const cc = report.perPolicy.rows.find((row) => row['policy'] === 'claude-code')!;
    expect(Number(cc['savings'])).toBeCloseTo(0, 12);
    expect(run(['fleet', 'report', out, '--baseline', 'nope']).status).toBe(2);
  });

  it('answers a SELECT over the three views', () => {
    const r = run(['fleet', 'query', out, 'SELECT policy, count(*) AS n FROM steps GROUP BY policy ORDER BY policy', '--json']);
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { policy: string }[]).map((x) => x.policy)).toEqual(['claude-code', 's3']);
  });

  it.each([
    ['a write', "COPY (SELECT 1) TO 'x.csv'", /refused a COPY statement/],
    ['DDL', 'DROP VIEW sessions', /refused a DROP statement/],
    ['an insert', 'INSERT INTO sessions SELECT * FROM sessions', /refused|query:/],
    ['two statements', 'SELECT 1; SELECT 2', /got 2 statements/],
    ['a setting', 'SET threads = 4', /refused/],
    ['an attach', "ATTACH 'x.db'", /refused/],
  ])('refuses %s with a clear error (exit 2)', (_what, query, message) => {
    const r = run(['fleet', 'query', out, query]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/^ctxscope: query: /);
  });

  it('refuses a folder that is not a fleet dataset', () => {
    const r = run(['fleet', 'report', inputs]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no manifest\.json/);
  });
});
