/**
 * The agent-logs panel on a big machine: listLocalLogs over 10,000 session files (8,000 Claude
 * Code sessions in 400 projects, 2,000 Codex rollouts over 100 days) with no file stored yet.
 * It stats every file and reads a 4 KB head once per Claude Code project and once per Codex
 * session, so it should answer well within a second.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listLocalLogs, localLogRoots } from '../../src/main/host/local-logs';
import { bestOfMs, type BenchSuite } from './harness';

const CLAUDE_PROJECTS = 400;
const PER_PROJECT = 20;
const CODEX_DAYS = 100;
const PER_DAY = 20;

function makeTree(dir: string): { claude: string; codex: string } {
  const claude = join(dir, 'projects');
  const codex = join(dir, 'sessions');
  const body = (cwd: string) =>
    JSON.stringify({ type: 'user', cwd, uuid: 'u', message: { role: 'user', content: 'x'.repeat(2000) } }) + '\n';
  for (let p = 0; p < CLAUDE_PROJECTS; p++) {
    const folder = join(claude, `-home-dev-project-${p}`);
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < PER_PROJECT; i++) writeFileSync(join(folder, `${p}-${i}.jsonl`), body(`/home/dev/project-${p}`));
  }
  for (let d = 0; d < CODEX_DAYS; d++) {
    const folder = join(codex, '2026', String(1 + Math.floor(d / 28)).padStart(2, '0'), String(1 + (d % 28)).padStart(2, '0'));
    mkdirSync(folder, { recursive: true });
    const meta =
      JSON.stringify({ type: 'session_meta', payload: { id: 'x', cwd: `/home/dev/repo-${d % 30}`, instructions: 'y'.repeat(3000) } }) +
      '\n';
    for (let i = 0; i < PER_DAY; i++) writeFileSync(join(folder, `rollout-${d}-${i}.jsonl`), meta);
  }
  return { claude, codex };
}

export const suite: BenchSuite = {
  name: 'local-logs',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-bench-logs-'));
    try {
      const { claude, codex } = makeTree(dir);
      const roots = localLogRoots([claude, codex, join(dir, 'no-gemini')], null);
      const files = CLAUDE_PROJECTS * PER_PROJECT + CODEX_DAYS * PER_DAY;
      let groups = 0;
      const ms = await bestOfMs(3, async () => {
        groups = (await listLocalLogs(roots, { imported: () => undefined })).groups.length;
      });
      return [
        {
          name: `listLocalLogs ${files.toLocaleString('en-US')} files (${groups} projects)`,
          value: ms,
          unit: 'ms',
          target: '≤ 1000 ms',
          pass: ms <= 1000,
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
