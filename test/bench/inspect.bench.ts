/**
 * `ctxscope inspect DIR --json` on a Claude Code projects folder (~23 MB of sessions across six
 * project folders, as ~/.claude/projects holds them), through the built bin as a user runs it:
 * process start included. The bar is ccusage's 0.9 s on a folder of that size, while inspect
 * reports more per session (turns, tool calls, orphans, tokens per region, compactions, cost).
 * Needs `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeClaudeCodeJsonlApart } from './corpus';
import type { BenchRow, BenchSuite } from './harness';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
/** MB per session in each project folder: a few long sessions and several short ones. */
const SESSION_MB = [0.3, 0.6, 1.2, 1.7];
const PROJECTS = 6;

function folderBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

/**
 * Reports the child's CPU time (all threads) on stderr as it exits: on a shared 2-core machine
 * the wall time moves with the neighbours' load, the CPU time much less.
 */
const CPU_PROBE = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('cpu-ms '+((u.user+u.system)/1000)+'\\n')})`;

function timeInspect(dir: string, extra: string[] = []): { ms: number; cpuMs: number; sessions: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', CPU_PROBE, bin, 'inspect', dir, '--json', ...extra], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`inspect failed (${r.status}): ${r.stderr}`);
  const cpuMs = Number(/cpu-ms ([\d.]+)/.exec(r.stderr)?.[1] ?? NaN);
  return { ms, cpuMs, sessions: (JSON.parse(r.stdout) as { summary: { sessions: number } }).summary.sessions };
}

export const suite: BenchSuite = {
  name: 'inspect folder',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-bench-projects-'));
    try {
      for (let p = 0; p < PROJECTS; p++) {
        const project = join(dir, `-home-dev-project-${p}`);
        mkdirSync(project);
        SESSION_MB.forEach((mb, k) => writeClaudeCodeJsonlApart(join(project, `session-${k}.jsonl`), mb));
      }
      const mb = folderBytes(dir) / 1e6;
      timeInspect(dir); // warm the file cache, as ccusage's figure is
      let best = Infinity;
      let cpu = Infinity;
      let sessions = 0;
      for (let i = 0; i < 3; i++) {
        const r = timeInspect(dir);
        best = Math.min(best, r.ms);
        cpu = Math.min(cpu, r.cpuMs);
        sessions = r.sessions;
      }
      const exact = timeInspect(dir, ['--exact']);
      return [
        {
          name: `inspect DIR --json, ${mb.toFixed(1)} MB, ${sessions} sessions in ${PROJECTS} projects (best of 3)`,
          value: best / 1000,
          unit: 's',
          target: '< 0.9 s (ccusage)',
          pass: best < 900,
        },
        {
          name: 'same, CPU time of all its threads (best of 3)',
          value: cpu / 1000,
          unit: 's',
          note: 'wall ≥ CPU / cores on an idle machine',
        },
        { name: `inspect DIR --json --exact, same folder`, value: exact.ms / 1000, unit: 's' },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
