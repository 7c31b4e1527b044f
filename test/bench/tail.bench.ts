/**
 * Live tail (README "Live tail"): what a two-line append (a prompt and its answer, chained to the
 * last line) costs on a big Claude Code session.
 * - store: `updateTail` after the append — the fast path (the new lines alone) and, for
 *   comparison, the whole-file path (a sidechain line forces it);
 * - host: append → `sessionUpdated` emitted (fs.watch, debounce, update), then the refresh a
 *   window does: the session detail, then the chart (a full replay of every call, in the replay
 *   worker as in the app).
 * Target: the session updated in place within 1 s of the append.
 *   npx tsx test/bench/run.ts tail            (TAIL_BENCH_MB=100,10 by default)
 */
import { appendFileSync, closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../../src/main/host/handlers';
import { replayWorkerSource } from '../../src/main/host/replay-client';
import { importFileToStore, openStore } from '../../src/main/store/index';
import { openTail, updateTail } from '../../src/main/store/tail';
import { writeClaudeCodeJsonl } from './corpus';
import { timeMs, type BenchRow, type BenchSuite } from './harness';

const SIZES = (process.env['TAIL_BENCH_MB'] ?? '100,10').split(',').map(Number);
const ROUNDS = 3;

/** Two lines continuing the session from its last line. */
function appendTurn(file: string, n: number): void {
  // The generator's lines are far shorter than 1 MB.
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(Math.min(size, 1 << 20));
  readSync(fd, buf, 0, buf.length, size - buf.length);
  closeSync(fd);
  const text = buf.toString('utf8');
  const last = JSON.parse(text.slice(text.lastIndexOf('\n', text.length - 2) + 1)) as Record<string, unknown>;
  const base = { isSidechain: false, userType: 'external', cwd: last['cwd'], sessionId: last['sessionId'], version: '2.0.14', timestamp: new Date().toISOString() };
  const id = `${Date.now().toString(16).padStart(12, '0')}`.slice(-12);
  const user = { ...base, parentUuid: last['uuid'], type: 'user', uuid: `7a110000-0000-4000-8${String(n).padStart(3, '0')}-${id}`, message: { role: 'user', content: `tail prompt ${n}` } };
  const answer = { ...base, parentUuid: user.uuid, type: 'assistant', uuid: `7a110000-0000-4000-9${String(n).padStart(3, '0')}-${id}`, message: { id: `msg_tail${n}_${id}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: `tail answer ${n}` }], usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0 } } };
  appendFileSync(file, JSON.stringify(user) + '\n' + JSON.stringify(answer) + '\n');
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function storeRows(dir: string, file: string, mb: number): Promise<BenchRow[]> {
  const store = openStore(join(dir, 'store.db'));
  try {
    const id = (await importFileToStore(store, file)).sessionIds[0]!;
    const tail = await openTail(store, id);
    const times: number[] = [];
    let fast = true;
    for (let n = 0; n < ROUNDS; n++) {
      appendTurn(file, n);
      times.push(await timeMs(async () => (fast = ((await updateTail(store, tail))?.fast ?? false) && fast)));
    }
    appendFileSync(file, JSON.stringify({ type: 'user', parentUuid: null, uuid: '7a110000-0000-4000-8000-ffffffffffff', sessionId: 's', isSidechain: true, message: { role: 'user', content: 'side' } }) + '\n');
    const whole = await timeMs(() => updateTail(store, tail));
    return [
      { name: `${mb} MB: append → stored (median of ${ROUNDS})`, value: median(times), unit: 'ms', note: fast ? 'fast path: the new lines alone' : 'whole-file path' },
      { name: `${mb} MB: sidechain line → stored (whole-file path)`, value: whole, unit: 'ms' },
    ];
  } finally {
    store.close();
  }
}

async function hostRows(dir: string, file: string, mb: number): Promise<BenchRow[]> {
  let seen: (() => void) | undefined;
  // The watcher and its poll never hold the process open by themselves (a server does): this does.
  const keep = setInterval(() => {}, 1000);
  // Exact counts in the count worker, as the app does (from its TypeScript source here).
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const countWorkerFile = join(dir, 'count-boot.mjs');
  writeFileSync(countWorkerFile, `import { register } from ${JSON.stringify(join(root, 'node_modules/tsx/dist/esm/api/index.mjs'))};\nregister();\nawait import(${JSON.stringify(join(root, 'src/main/host/count-worker.ts'))});\n`);
  const host = await createHost({ dbPath: join(dir, 'host.db'), hostKind: 'serve', version: 'bench', initialFiles: [file], replayWorkerFile: replayWorkerSource()!, countWorkerFile, emit: (event) => event === 'sessionUpdated' && seen?.() });
  try {
    const id = host.initialSessionId!;
    const policy = (await host.handlers.getSession({ id })).defaultPolicy;
    await host.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 1200 });
    await host.handlers.watchSession({ sessionId: id, on: true });
    const event: number[] = [];
    const detail: number[] = [];
    const chart: number[] = [];
    for (let n = 0; n < ROUNDS; n++) {
      const updated = new Promise<void>((resolve) => (seen = resolve));
      const t0 = performance.now();
      appendTurn(file, 100 + n);
      await updated;
      event.push(performance.now() - t0);
      await host.handlers.getSession({ id });
      detail.push(performance.now() - t0);
      await host.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 1200 });
      chart.push(performance.now() - t0);
    }
    const e = median(event);
    return [
      { name: `${mb} MB: append → sessionUpdated (watcher + update)`, value: e, unit: 'ms', target: '≤ 1000 ms', pass: e <= 1000 },
      { name: `${mb} MB: append → session detail refreshed`, value: median(detail), unit: 'ms' },
      { name: `${mb} MB: append → chart extended (full replay)`, value: median(chart), unit: 'ms', target: '≤ 1000 ms', pass: median(chart) <= 1000 },
    ];
  } finally {
    await host.close();
    clearInterval(keep);
  }
}

export const suite: BenchSuite = {
  name: 'tail',
  async run() {
    const rows: BenchRow[] = [];
    for (const mb of SIZES) {
      const dir = mkdtempSync(join(tmpdir(), 'ctxscope-tail-bench-'));
      try {
        const file = join(dir, 'session.jsonl');
        await writeClaudeCodeJsonl(file, mb);
        // The host first: the store's last case appends a sidechain line, which no turn chains on.
        rows.push(...(await hostRows(dir, file, mb)));
        rows.push(...(await storeRows(dir, file, mb)));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return rows;
  },
};
