/**
 * A slider move on a long Claude Code session, in one thread, as the replay worker answers it
 * (src/main/host/replay-worker.ts): the session held by its numbers with its text read from
 * SQLite a page at a time (store/lazy-session.ts, each message's summary items and facts read as
 * its page is loaded), the import's chars4 counts standing in for exact ones, the claude-code
 * policy's first chart, then `target` moved to new values (each a replay of the whole session and
 * its chart view; no answer from a cache).
 *
 *   CTXSCOPE_REPLAY_BENCH_MB=100 npm run bench -- replay-slider     (generates and imports; needs `npm run build`)
 *   CTXSCOPE_REPLAY_BENCH_DB=/tmp/x.db npm run bench -- replay-slider  (a database already imported)
 *
 * At 1000 MB (~300,000 calls) wrap the run in `flock /tmp/ctxscope-big.lock`. For a profile:
 * `node --cpu-prof --import tsx test/bench/run.ts replay-slider`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session as Inspector } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { constants as perfConstants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Session } from '../../src/core/model';
import { getPolicy } from '../../src/core/policies/index';
import { resolveTokenizer } from '../../src/core/replay/index';
import { shapeOf } from '../../src/core/replay/setup';
import { precountSummaryItems } from '../../src/core/replay/summary-tokens';
import { prepareMessage, prepareMessageList, preparedItems } from '../../src/core/summarize/extractive';
import { prepareExchanges } from '../../src/core/turns';
import { configOf, ReplayService } from '../../src/main/host/replays';
import { openStore } from '../../src/main/store/index';
import { loadLazySession } from '../../src/main/store/lazy-session';
import { timeMs, type BenchRow, type BenchSuite } from './harness';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The claude-code `target` values the slider is moved to, one replay each, none twice (a replay's
 * folds are memoized by their ranges and target): 0.6 is progressive.bench.ts's.
 */
const COLD_TARGETS = [0.6, 0.55, 0.5, 0.45];
const PREPARED_TARGETS = [0.58, 0.53, 0.48, 0.43];

function importedDb(): { db: string; done: () => void } {
  const given = process.env.CTXSCOPE_REPLAY_BENCH_DB;
  if (given) return { db: given, done: () => {} };
  const mb = Number(process.env.CTXSCOPE_REPLAY_BENCH_MB ?? 100);
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-replay-slider-'));
  const file = join(dir, `cc-${mb}mb.jsonl`);
  const made = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test', 'bench', 'make-session.ts'), file, '--mb', String(mb)], {
    stdio: 'inherit',
  });
  if (made.status !== 0) throw new Error(`generating ${file} failed (exit ${made.status})`);
  const db = join(dir, 'import.db');
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'test', 'bench', 'import-progressive-child.ts'), file, db], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  rmSync(file);
  return { db, done: () => rmSync(dir, { recursive: true, force: true }) };
}

export const suite: BenchSuite = {
  name: 'replay-slider',
  async run() {
    const { db, done } = importedDb();
    const rows: BenchRow[] = [];
    try {
      const store = openStore(db);
      const id = store.listSessions()[0]!.id;
      let session: Session | undefined;
      const loadMs = await timeMs(() => (session = loadLazySession(store, id, { prime: prepareMessage })));
      const calls = store.getRow(id)!.stepCount;
      const service = new ReplayService({
        session: () => session!,
        load: (sessionId, tokenizer) => store.loadCounts(sessionId, tokenizer),
        requestCount: () => {},
      });
      const policy = getPolicy('claude-code')!;
      const inputs = { sessionId: id, policy: { id: policy.id, config: policy.config }, overrides: {}, needles: [], pins: [] };
      const size = `${calls.toLocaleString('en-US')} calls`;
      rows.push({ name: `session read lazily, items and facts primed (${size})`, value: loadMs, unit: 'ms' });
      const firstCpu = process.cpuUsage();
      const firstMs = await timeMs(() => service.chart(inputs, 1000));
      const firstUsed = process.cpuUsage(firstCpu);
      rows.push({
        name: `first chart, claude-code (${size})`,
        value: firstMs,
        unit: 'ms',
        note: `CPU ${((firstUsed.user + firstUsed.system) / 1000).toFixed(0)} ms`,
      });
      /** Slider moves to `targets`, each replayed then charted, timed (wall and this process's CPU); profiled into `profile` if set. */
      const moves = async (phase: string, targets: readonly number[]): Promise<void> => {
        // CTXSCOPE_REPLAY_BENCH_PROFILE=FILE: a CPU profile of the moves alone (FILE.cold, FILE.prepared).
        const profile = process.env.CTXSCOPE_REPLAY_BENCH_PROFILE;
        const inspector = profile ? new Inspector() : undefined;
        if (inspector) {
          inspector.connect();
          await inspector.post('Profiler.enable');
          await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
          await inspector.post('Profiler.start');
        }
        // Full collections (mark-compact) during the moves: each marks the whole heap (~480 MB at
        // 300,000 calls), and what a replay makes outside the heap (its typed arrays) starts one.
        let fullGcs = 0;
        const gcs = new PerformanceObserver((list) => {
          for (const e of list.getEntries())
            if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR)
              fullGcs++;
        });
        gcs.observe({ entryTypes: ['gc'] });
        const walls: number[] = [];
        const replays: number[] = [];
        const cpus: number[] = [];
        const compressions: number[] = [];
        for (const target of targets) {
          const moved = { ...inputs, overrides: { target } };
          const cpu = process.cpuUsage();
          // The replay, then its chart view from the cached result: the two shares of a move.
          const r = await timeMs(async () => compressions.push((await service.result(moved)).totals.compressions));
          walls.push(r + (await timeMs(() => service.chart(moved, 1000))));
          const used = process.cpuUsage(cpu);
          cpus.push((used.user + used.system) / 1000);
          replays.push(r);
        }
        // GC entries are delivered after the event loop turns.
        await new Promise((resolve) => setTimeout(resolve, 50));
        gcs.disconnect();
        if (inspector) {
          const { profile: p } = await inspector.post('Profiler.stop');
          writeFileSync(`${profile}.${phase}`, JSON.stringify(p));
          inspector.disconnect();
        }
        const list = (xs: number[]): string => xs.map((m) => m.toFixed(0)).join(', ');
        rows.push({
          name: `${phase}: of which the replay, best (${size})`,
          value: Math.min(...replays),
          unit: 'ms',
          note: `${list(replays)}; compressions ${compressions.join(', ')}`,
        });
        rows.push({
          name: `${phase}: slider move → chart, best of ${walls.length} (${size})`,
          value: Math.min(...walls),
          unit: 'ms',
          target: '≤ 1000 ms',
          pass: Math.min(...walls) <= 1000,
          note: `${list(walls)}; CPU ${list(cpus)} ms; ${fullGcs} full GCs`,
        });
      };
      // Right after the first chart (as progressive.bench.ts's "replay only" figure).
      await moves('cold', COLD_TARGETS);
      // The replay worker's idle time after a chart (main/host/replay-prewarm.ts): the message list
      // laid out for folds, its summary items counted ahead, the turns' exchange starts.
      const tokenizer = resolveTokenizer(session!, configOf(inputs.policy, inputs.overrides));
      const prepMs = await timeMs(() => {
        const list = session!.messages;
        prepareMessageList(list, () => false);
        for (const { items, inline } of preparedItems(list) ?? []) precountSummaryItems(tokenizer, items, inline, 0, () => false);
        prepareExchanges(list, shapeOf(list).starts, 0, () => false);
      });
      rows.push({ name: `the worker's idle-time preparation, in one piece (${size})`, value: prepMs, unit: 'ms' });
      await moves('prepared', PREPARED_TARGETS);
      for (const r of rows) process.stderr.write(`  ${r.name}: ${r.value.toFixed(0)} ${r.unit}${r.note ? ` (${r.note})` : ''}\n`);
      store.close();
    } finally {
      done();
    }
    return rows;
  },
};
