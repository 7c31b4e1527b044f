/**
 * `npm run bench -- fleet` (docs/fleet.md §Speed and memory). A fleet of Claude Code and Codex
 * sessions (test/bench/corpus.ts generators; calls heavy-tailed over [20, MAX_CALLS], see `callsOf`) is
 * replayed under 3 policies on 2 threads into Parquet. Printed beside `ctxscope import` of the same
 * files, measured in the same run:
 *   - the fleet run's wall time against the import's (target ≤ 1.5×);
 *   - RSS at 25%, 50% and 100% of the transcripts, and the peak (target < 1 GB and flat);
 *   - `fleet report` over the result (target < 1 s).
 * Size: CTXSCOPE_FLEET_BENCH_SESSIONS (default 2000), CTXSCOPE_FLEET_BENCH_MAX_CALLS (default 3000).
 * The generated fleet is kept in the OS temp folder between runs of the same size.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settingsHash } from '../../src/core/fleet/manifest';
import { resolveConfig } from '../../src/core/config';
import { getPolicy } from '../../src/core/policies/index';
import { withDataset } from '../../src/main/fleet/dataset';
import { runFleet } from '../../src/main/fleet/run';
import { claudeCodeText, codexLines } from './corpus';
import { timeMs, type BenchRow, type BenchSuite } from './harness';

const SESSIONS = Number(process.env['CTXSCOPE_FLEET_BENCH_SESSIONS'] ?? 2000);
const MAX_CALLS = Number(process.env['CTXSCOPE_FLEET_BENCH_MAX_CALLS'] ?? 3000);
const POLICIES = ['s1', 's3', 'claude-code'];
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const builtWorker = join(root, 'out', 'cli', 'fleet-worker.js');

/**
 * Calls of session i, deterministic: a Pareto law (shape 0.8) truncated to [20, MAX_CALLS] — many
 * short sessions and a long tail, as agent fleets have. With MAX_CALLS 3,000: median ~47 calls,
 * 90th percentile ~300, mean ~140, so 2,000 sessions are ~1 GB of transcripts (a log-uniform
 * spread averages ~600 calls: ~4 GB).
 */
const SHAPE = 0.8;
const callsOf = (i: number): number => {
  const u = ((i * 2654435761) % 4294967296) / 4294967296;
  return Math.round(20 / Math.pow(1 - u * (1 - Math.pow(20 / MAX_CALLS, SHAPE)), 1 / SHAPE));
};

function makeFleet(): { dir: string; bytes: number } {
  const dir = join(tmpdir(), `ctxscope-fleet-bench-pareto-${SESSIONS}-${MAX_CALLS}`);
  const done = join(dir, '.complete');
  if (!existsSync(done)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'claude'), { recursive: true });
    mkdirSync(join(dir, 'codex'), { recursive: true });
    for (let i = 0; i < SESSIONS; i++) {
      const calls = callsOf(i);
      if (i % 2 === 0) writeFileSync(join(dir, 'claude', `s${i}.jsonl`), claudeCodeText({ calls }));
      else writeFileSync(join(dir, 'codex', `r${i}.jsonl`), [...codexLines({ calls })].join(''));
    }
    writeFileSync(done, '');
  }
  let bytes = 0;
  for (const sub of ['claude', 'codex']) for (const f of readdirSync(join(dir, sub))) bytes += statSync(join(dir, sub, f)).size;
  return { dir, bytes };
}

export const suite: BenchSuite = {
  name: 'fleet',
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const { dir, bytes } = makeFleet();
    // The machine may be shared: its load beside the figures says how far they can be compared.
    const load = (): string =>
      loadavg()
        .map((x) => x.toFixed(2))
        .join(' ');
    const loadBefore = load();
    const label = `${SESSIONS} sessions, 20–${MAX_CALLS} calls, ${(bytes / 1e6).toFixed(0)} MB`;
    process.stderr.write(`fleet bench: ${label}\n`);

    // `ctxscope import` of the same files (the CLI as a user runs it; a fresh database).
    const db = join(tmpdir(), `ctxscope-fleet-bench-import-${process.pid}.db`);
    const importMs = await timeMs(() => {
      const r = spawnSync(process.execPath, [join(root, 'bin', 'ctxscope.mjs'), 'import', dir, '--db', db], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      if (r.status !== 0) throw new Error(`import failed: ${r.stderr.slice(0, 500)}`);
    });
    rmSync(db, { force: true });
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    rows.push({ name: `ctxscope import (${label})`, value: importMs / 1000, unit: 's' });

    const out = join(tmpdir(), `ctxscope-fleet-bench-out-${process.pid}`);
    rmSync(out, { recursive: true, force: true });
    const policies = POLICIES.map((id) => {
      const config = resolveConfig(getPolicy(id)!.config, {});
      return { id, config, settings: config as unknown as Record<string, unknown>, settingsHash: settingsHash(config) };
    });
    const files = ['claude', 'codex'].flatMap((sub) => readdirSync(join(dir, sub)).map((f) => join(dir, sub, f))).sort();
    const marks = new Map<number, number>();
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const result = await (async () => {
      const t0 = performance.now();
      const r = await runFleet({
        files,
        inputs: [dir],
        policies,
        needles: [],
        out,
        version: 'bench',
        threads: 2,
        // The built worker when `npm run build` made one (as the CLI runs it), else the source through tsx.
        ...(existsSync(builtWorker) ? { workerModule: builtWorker } : {}),
        onProgress: (p) => {
          const rss = process.memoryUsage().rss;
          peak = Math.max(peak, rss);
          for (const q of [25, 50, 100]) if (!marks.has(q) && p.done * 100 >= q * p.total) marks.set(q, rss);
        },
      });
      return { r, ms: performance.now() - t0 };
    })();
    clearInterval(sampler);
    const ratio = result.ms / importMs;
    rows.push({
      name: `fleet run, 3 policies, 2 threads (${result.r.rows.sessions} session rows, ${result.r.rows.steps.toLocaleString('en-US')} step rows)`,
      value: result.ms / 1000,
      unit: 's',
    });
    rows.push({ name: 'fleet run ÷ ctxscope import', value: ratio, unit: '×', target: '≤ 1.5×', pass: ratio <= 1.5 });
    for (const q of [25, 50, 100])
      rows.push({
        name: `RSS at ${q}% of the transcripts`,
        value: (marks.get(q) ?? 0) / 1e6,
        unit: 'MB',
        target: '< 1,000 MB',
        pass: (marks.get(q) ?? 0) < 1e9,
      });
    rows.push({
      name: 'peak RSS during the run (sampled every 50 ms)',
      value: peak / 1e6,
      unit: 'MB',
      target: '< 1,000 MB',
      pass: peak < 1e9,
    });
    const growth = (marks.get(100) ?? 0) / Math.max(1, marks.get(25) ?? 1);
    rows.push({ name: 'RSS at 100% ÷ RSS at 25%', value: growth, unit: '×', target: 'flat (≤ 1.25×)', pass: growth <= 1.25 });

    // fleet report: the first query opens the Parquet files; best of 3 after that, and the first.
    let first = 0;
    let best = Infinity;
    for (let i = 0; i < 4; i++) {
      const ms = await timeMs(() => withDataset(out, (d) => d.report()));
      if (i === 0) first = ms;
      else best = Math.min(best, ms);
    }
    rows.push({ name: 'fleet report, first run (opens the dataset)', value: first, unit: 'ms', target: '< 1,000 ms', pass: first < 1000 });
    rows.push({ name: 'fleet report, best of 3', value: best, unit: 'ms', target: '< 1,000 ms', pass: best < 1000 });
    rmSync(out, { recursive: true, force: true });
    process.stderr.write(`fleet bench: load average (1, 5, 15 min) before ${loadBefore}, after ${load()}\n`);
    rows.push({
      name: `load average (1 min) before the import: ${loadBefore.split(' ')[0]}; after the report`,
      value: loadavg()[0]!,
      unit: '',
    });
    return rows;
  },
};
