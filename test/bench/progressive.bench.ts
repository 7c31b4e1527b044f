/**
 * Sessions of any length (docs/benchmarks.md "Opening big sessions"): a generated Claude Code
 * session (test/bench/corpus.ts: realistic usage, compact_boundary lines) of 100 MB and 1 GB
 * (~300,000 calls), opened as a person does, in Chromium through `ctxscope serve`:
 *
 * - launched on the file (`serve FILE`) → first chart, and page load → first chart;
 * - the file opened in the running app (the agent-logs panel's Open: it sits where Claude Code
 *   keeps its sessions) → first chart (the first calls drawn while the rest is imported) and
 *   → whole chart;
 * - full import in the host's import worker (progressive: prefix, then chunks through the live
 *   tail's path) beside the lean floor (read, split, JSON.parse, insert, one transaction) in the
 *   same run, and the peak RSS of that import's process (one that only imports);
 * - a step, a slider move → chart, a line appended to the file → on the chart (live tail);
 * - serve's peak RSS (VmHWM: every thread of the process) and the page's peak JS heap.
 *
 *   npm run bench -- progressive        (CTXSCOPE_PROGRESSIVE_BENCH_MB=100,1000 by default)
 *
 * Needs `npm run build` (the serve it starts and the import worker are the built ones).
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { openStore, type SessionStore } from '../../src/main/store/index';
import { ReplayService } from '../../src/main/host/replays';
import { getPolicy } from '../../src/core/policies/index';
import type { Session } from '../../src/core/model';
import type { BenchRow, BenchSuite } from './harness';
import { timeMs } from './harness';
import { rawFloor } from './store.bench';
import { appendTurn } from './tail.bench';
import { stepMs, timedMove } from './ui.bench';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const worker = join(root, 'out', 'cli', 'import-worker.js');

interface Serve {
  child: {
    kill(signal?: string): void;
    pid?: number;
    exitCode: number | null;
    once(event: 'exit', listener: () => void): void;
    stderr?: NodeJS.ReadableStream | null;
  };
  url: string;
  baseUrl: string;
  token: string;
}
interface RunModule {
  startServe(args: string[], dbDir: string, env?: Record<string, string>): Promise<Serve>;
  CHROMIUM_FLAGS: string[];
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function api<T>(s: Serve, method: string, body: unknown): Promise<T> {
  const res = await fetch(`${s.baseUrl}/api/${method}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${s.token}` },
  });
  const env = (await res.json()) as { ok: boolean; value: T; error?: { message: string } };
  if (!env.ok) throw new Error(`${method}: ${env.error?.message}`);
  return env.value;
}

/** Stops a serve and waits for its exit (its import worker must not share the cores with what follows). */
async function stopServe(s: Serve): Promise<void> {
  if (s.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  await exited;
}

/** A process's peak resident set (VmHWM, kB → MB): every thread of it, workers included. */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The page's JS heap, sampled every 250 ms until stopped (Chromium's own figure, through CDP). */
async function heapSampler(page: Page): Promise<{ stop: () => Promise<number> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
        peak = Math.max(peak, metrics.find((x) => x.name === 'JSHeapUsedSize')?.value ?? 0);
      } catch {
        // The page is navigating: the next sample counts.
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return peak / 1e6;
    },
  };
}

/** The claude-code setting the page's slider is moved to (its `target`, from 0.15: the 0.6 of the range the page moves it to). */
const SLIDER_TARGET = 0.6;

/** The session's claude-code chart and one `target` move, replayed in this thread (ReplayService, as the replay worker runs it). */
async function replayInOneThread(store: SessionStore, id: string): Promise<{ loadMs: number; firstMs: number; sliderMs: number }> {
  let session: Session | undefined;
  const loadMs = await timeMs(() => (session = store.loadSession(id)));
  const service = new ReplayService({
    session: () => session!,
    load: (sessionId, tokenizer) => store.loadCounts(sessionId, tokenizer),
    // As with a count worker: the import's estimates stand in for exact counts.
    requestCount: () => {},
  });
  const policy = getPolicy('claude-code')!;
  const inputs = { sessionId: id, policy: { id: policy.id, config: policy.config }, overrides: {}, needles: [], pins: [] };
  const firstMs = await timeMs(() => service.chart(inputs, 1000));
  const sliderMs = await timeMs(() => service.chart({ ...inputs, overrides: { target: SLIDER_TARGET } }, 1000));
  session = undefined;
  return { loadMs, firstMs, sliderMs };
}

async function runSize(run: RunModule, mb: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const push = (r: BenchRow): void => {
    rows.push(r);
    process.stderr.write(`  ${r.name}: ${r.value.toFixed(r.value < 10 ? 2 : 0)} ${r.unit}${r.note ? ` (${r.note})` : ''}\n`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-progressive-bench-'));
  // Where Claude Code keeps its sessions (projects/<project>/<session>.jsonl below CLAUDE_CONFIG_DIR):
  // the app's agent-logs panel lists it there.
  const claudeDir = join(dir, 'claude');
  mkdirSync(join(claudeDir, 'projects', '-bench-project'), { recursive: true });
  const file = join(claudeDir, 'projects', '-bench-project', `cc-${mb}mb.jsonl`);
  const label = mb >= 1000 ? `${(mb / 1000).toFixed(0)} GB` : `${mb} MB`;
  try {
    const made = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'test', 'bench', 'make-session.ts'), file, '--mb', String(mb)],
      {
        stdio: 'inherit',
      },
    );
    if (made.status !== 0) throw new Error(`generating ${file} failed (exit ${made.status})`);
    const fileMb = statSync(file).size / 1e6;

    // Full import vs the lean floor, same run, same file: the floor first, then the host's path
    // (the built import worker, progressive) in a process that only imports
    // (import-progressive-child.ts), each into a fresh database: the import's time and that
    // process's peak RSS, which must not grow with the file.
    const floorMs = await timeMs(() => rawFloor(file, join(dir, 'floor.db')));
    for (const ext of ['', '-wal', '-shm']) rmSync(join(dir, `floor.db${ext}`), { force: true });
    const dbPath = join(dir, 'import.db');
    const child = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'test', 'bench', 'import-progressive-child.ts'), file, dbPath],
      {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      },
    );
    const imported = JSON.parse(child.trim().split('\n').pop()!) as {
      ms: number;
      visibleMs: number;
      calls: number;
      baseRssMb: number;
      peakRssMb: number;
    };
    const { ms: importMs, visibleMs, calls } = imported;
    // The replay alone, in this process, on the session the child process stored.
    const store = openStore(dbPath);
    const replayOnly = await replayInOneThread(store, store.listSessions()[0]!.id);
    store.close();
    for (const ext of ['', '-wal', '-shm']) rmSync(join(dir, `import.db${ext}`), { force: true });
    const ratio = floorMs / importMs;
    push({ name: `lean floor, ${label}`, value: fileMb / (floorMs / 1000), unit: 'MB/s', note: `${(floorMs / 1000).toFixed(1)} s` });
    push({
      name: `full import (worker, progressive), ${label}`,
      value: fileMb / (importMs / 1000),
      unit: 'MB/s',
      note: `${(importMs / 1000).toFixed(1)} s, ${calls} calls`,
    });
    push({ name: `import vs floor, ${label}`, value: ratio * 100, unit: '% of floor', target: '≥ 70%', pass: ratio >= 0.7 });
    push({ name: `import worker: first calls stored, ${label}`, value: visibleMs, unit: 'ms' });
    push({
      name: `import process peak RSS (progressive, a ${fileMb.toFixed(0)} MB file)`,
      value: imported.peakRssMb,
      unit: 'MB',
      target: '< 1000 MB, flat in the file size',
      pass: imported.peakRssMb < 1000,
      note: `${imported.baseRssMb.toFixed(0)} MB before the import (node, tsx, the store)`,
    });
    // The replay alone, in this thread, on the session as stored: what a slider move costs the
    // replay worker without serve's other work beside it (the page's figures below include it).
    push({
      name: `replay only (one thread): first chart, claude-code, ${label}`,
      value: replayOnly.firstMs,
      unit: 'ms',
      note: `${calls} calls; session read from SQLite in ${replayOnly.loadMs.toFixed(0)} ms`,
    });
    push({
      name: `replay only (one thread): target ${SLIDER_TARGET} → chart, ${label}`,
      value: replayOnly.sliderMs,
      unit: 'ms',
      target: '≤ 1000 ms',
      pass: replayOnly.sliderMs <= 1000,
    });

    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: run.CHROMIUM_FLAGS });
    // Launched on the file (`ctxscope serve FILE`, as `npm start -- FILE` is): the process's start
    // and the page's own load come before the first chart. Stopped there, mid-import.
    {
      const coldDir = join(dir, 'cold');
      mkdirSync(coldDir);
      const c0 = performance.now();
      const cold = await run.startServe([file], coldDir);
      const served = performance.now() - c0;
      try {
        const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
        const p0 = performance.now();
        await page.goto(cold.url);
        await page.locator('[data-testid="region-bars"][data-key]').waitFor({ timeout: 600_000 });
        const drawn = performance.now();
        const partialAtFirst = await page
          .getByTestId('partial-note')
          .getAttribute('data-calls', { timeout: 1000 })
          .catch(() => null);
        push({
          name: `launched on the file → first chart (${label}; serve start + page load)`,
          value: drawn - c0,
          unit: 'ms',
          note: `serve up after ${served.toFixed(0)} ms; ${partialAtFirst !== null ? `partial chart of ${partialAtFirst} calls` : 'whole chart'}`,
        });
        push({ name: `page load → first chart (${label})`, value: drawn - p0, unit: 'ms' });
        await page.close();
      } finally {
        await stopServe(cold);
        rmSync(coldDir, { recursive: true, force: true });
      }
    }

    // Opened as a person does in the running app: serve (on the bundled sample), the page, then
    // the file opened from the agent-logs panel (the generated file sits where Claude Code keeps
    // its sessions).
    const s0 = performance.now();
    // CTXSCOPE_PROGRESSIVE_BENCH_TRACE=FILE: serve's trace (src/main/trace.ts) into FILE, each line
    // stamped with the milliseconds since serve was started — where a slow figure spent its time.
    const traceFile = process.env.CTXSCOPE_PROGRESSIVE_BENCH_TRACE;
    const serve = await run.startServe([], dir, { CLAUDE_CONFIG_DIR: claudeDir, ...(traceFile ? { CTXSCOPE_TRACE: '1' } : {}) });
    const served = performance.now() - s0;
    if (traceFile) {
      writeFileSync(traceFile, `${served.toFixed(0)} serve up (${label})\n`);
      let rest = '';
      serve.child.stderr?.on('data', (d: Buffer) => {
        const lines = (rest + d.toString()).split('\n');
        rest = lines.pop() ?? '';
        const at = (performance.now() - s0).toFixed(0);
        appendFileSync(traceFile, lines.map((l) => `${at} ${l}\n`).join(''));
      });
    }
    const mark = (what: string): void => {
      if (traceFile) appendFileSync(traceFile, `${(performance.now() - s0).toFixed(0)} BENCH ${what}\n`);
    };
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
      const heap = await heapSampler(page);
      await page.goto(serve.url);
      const chart = page.locator('[data-testid="region-bars"][data-key]');
      await chart.waitFor({ timeout: 60_000 });
      await page.getByTestId('local-logs-button').click();
      const open = page.locator(`[data-testid="local-log-file"][data-name="${basename(file)}"] [data-testid="local-log-open"]`);
      await open.waitFor({ timeout: 60_000 });
      // A person reads the list before choosing (the app uses such a pause: its spare import worker
      // starts 1.5 s after the start-up files are in, host/import-spare.ts).
      await new Promise((r) => setTimeout(r, 2000));
      const sample = await page.evaluate(
        `[document.querySelector('[data-testid="region-bars"]')?.getAttribute('data-key'), document.querySelector('[data-session-id]')?.getAttribute('data-session-id')]`,
      );
      mark('open clicked');
      const o0 = performance.now();
      await open.click();
      // The new session's chart: another session open, another replay's key, with calls (the sample's before).
      await page.waitForFunction(
        `(() => {
          const [key, id] = ${JSON.stringify(sample)};
          const bars = document.querySelector('[data-testid="region-bars"][data-key]');
          const open = document.querySelector('[data-session-id]')?.getAttribute('data-session-id');
          return bars !== null && open && open !== id && bars.getAttribute('data-key') !== key && Number(bars.getAttribute('data-steps')) > 0;
        })()`,
        null,
        { timeout: 600_000, polling: 'raf' },
      );
      const drawn = performance.now();
      mark('first chart drawn');
      const partialAtFirst = await page
        .getByTestId('partial-note')
        .getAttribute('data-calls', { timeout: 1000 })
        .catch(() => null);
      push({
        name: `file opened in the app → first chart (${label})`,
        value: drawn - o0,
        unit: 'ms',
        target: '≤ 1000 ms',
        pass: drawn - o0 <= 1000,
        note: `the agent-logs panel's Open clicked; ${partialAtFirst !== null ? `partial chart of ${partialAtFirst} calls` : 'whole chart'}`,
      });
      // The import goes on while the chart grows; the partial marker goes when it is whole.
      await page.getByTestId('partial-note').waitFor({ state: 'detached', timeout: 1_800_000 });
      const whole = performance.now();
      mark('whole chart drawn');
      const steps = Number(await page.getByTestId('region-bars').getAttribute('data-steps'));
      push({ name: `file opened in the app → whole chart (${label})`, value: (whole - o0) / 1000, unit: 's', note: `${steps} calls` });
      await page.getByTestId('guard-status-badge').waitFor({ timeout: 600_000 });

      mark('steps');
      const times: number[] = [];
      for (let i = 0; i < 12; i++) times.push(await stepMs(page));
      const step = median(times.slice(2));
      push({
        name: `one step → cursor, guard, context (${label}, median of 10)`,
        value: step,
        unit: 'ms',
        target: '≤ 50 ms',
        pass: step <= 50,
      });

      // A slider move → chart on the session's own policy (its first ranged setting).
      const info = await api<{ initialSessionId: string }>(serve, 'getInfo', {});
      const policy = await page.getByTestId('policy-picker').inputValue();
      const fields = await api<{ key: string; min: number | null; max: number | null; applies: boolean; value: unknown }[]>(
        serve,
        'getConfigFields',
        {
          policy,
        },
      );
      const f = fields.find((x) => x.applies && x.min !== null && x.max !== null && typeof x.value === 'number');
      if (f) {
        const slider = page.getByTestId(`slider-${f.key}`);
        await slider.scrollIntoViewIfNeeded();
        const current = Number(await slider.inputValue());
        const lo = f.min ?? 0;
        const hi = f.max ?? 1;
        const v = current > (lo + hi) / 2 ? lo + (hi - lo) * 0.4 : lo + (hi - lo) * 0.6;
        mark(`slider ${f.key} → ${v}`);
        const { ms } = await timedMove(page, () => slider.fill(String(v)), false);
        mark(`slider chart drawn (${ms.toFixed(0)} ms)`);
        push({
          name: `slider ${f.key} → chart (${label}, ${steps} calls, ${policy})`,
          value: ms,
          unit: 'ms',
          target: '≤ 1000 ms',
          pass: ms <= 1000,
        });
      }

      // Live tail: two lines appended to the file → the chart shows the new call. Once the window is
      // idle: appended 20 ms after the slider's chart, the append waited ~0.5 s for the worker to
      // answer that move's step details first (a person moves a slider or watches the tail).
      await page.waitForFunction(`document.querySelector('[data-testid="live-status"]')?.textContent?.startsWith('live')`, null, {
        timeout: 60_000,
      });
      await new Promise((r) => setTimeout(r, 2000));
      const before = Number(await page.getByTestId('region-bars').getAttribute('data-steps'));
      await page.evaluate(`(() => {
        window.__tail = { t1: null };
        const obs = new MutationObserver(() => {
          const n = Number(document.querySelector('[data-testid="region-bars"]')?.getAttribute('data-steps'));
          if (n > ${before} && window.__tail.t1 === null) { window.__tail.t1 = performance.now() + performance.timeOrigin; obs.disconnect(); }
        });
        obs.observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-steps'] });
      })()`);
      const a0 = performance.timeOrigin + performance.now();
      mark('line appended');
      appendTurn(file, 1);
      await page.waitForFunction('window.__tail.t1 !== null', null, { timeout: 60_000 });
      const t1 = (await page.evaluate('window.__tail.t1')) as number;
      push({
        name: `live tail: line appended → on the chart (${label})`,
        value: t1 - a0,
        unit: 'ms',
        target: '≤ 500 ms',
        pass: t1 - a0 <= 500,
      });

      const heapMb = await heap.stop();
      const rssMb = serve.child.pid !== undefined ? peakRssMb(serve.child.pid) : NaN;
      push({
        name: `serve peak RSS (import, replays, viewing; ${label})`,
        value: rssMb,
        unit: 'MB',
        target: '< 1000 MB',
        pass: rssMb < 1000,
      });
      push({ name: `page peak JS heap (${label})`, value: heapMb, unit: 'MB', target: '< 300 MB', pass: heapMb < 300 });
      void info;
    } finally {
      await browser.close();
      await stopServe(serve);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export const suite: BenchSuite = {
  name: 'progressive (open big sessions)',
  async run() {
    if (!existsSync(worker)) return [{ name: 'progressive opening', value: 0, unit: 'skipped', note: 'run npm run build first' }];
    const runModule = '../e2e/run.mjs';
    const run = (await import(runModule)) as RunModule;
    const rows: BenchRow[] = [];
    const sizes = (process.env.CTXSCOPE_PROGRESSIVE_BENCH_MB ?? '100,1000').split(',').map(Number);
    for (const mb of sizes) rows.push(...(await runSize(run, mb)));
    return rows;
  },
};
