/**
 * `inspect` and `replay` on a Claude Code 2.x parent (test/fixtures/claude-code-v2) count the
 * subagents in its `subagents/` folder as inline sidechains are counted, and `--session` replays
 * one of them; the subagent file named by itself is a session of its own.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
const SID = '7d3f0c2e-5a41-4b6e-9c8d-2f1e0a9b8c7d';
const parent = join(root, 'test', 'fixtures', 'claude-code-v2', `${SID}.jsonl`);
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });

describe('subagent files in the CLI', () => {
  it('inspect counts the subagent files beside a parent, and reads one alone as its own session', () => {
    const r = run('inspect', parent, '--json');
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { sessions: { id: string; steps: number; subagents: number }[]; warnings: string[] };
    expect(report.sessions.map((s) => [s.id, s.steps, s.subagents])).toEqual([[SID, 2, 2]]);
    expect(report.warnings).toEqual([]);
    const text = run('inspect', parent);
    expect(text.stdout).toContain(`subagents: 2 (each in a window of its own; replay one with --session ${SID}/agent-a4c1e9f)`);
    const alone = JSON.parse(
      run('inspect', join(root, 'test', 'fixtures', 'claude-code-v2', SID, 'subagents', 'agent-b7d20a3.jsonl'), '--json').stdout,
    ) as typeof report;
    expect(alone.sessions.map((s) => [s.id, s.steps, s.subagents])).toEqual([[`${SID}/agent-b7d20a3`, 2, 0]]);
  });

  it('replay says how many subagents, and --session replays one by its id', () => {
    const r = run('replay', parent, '--policy', 's0', '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subagents: 2 });
    const sub = run('replay', parent, '--policy', 's0', '--session', `${SID}/agent-b7d20a3`, '--json');
    expect(sub.status, sub.stderr).toBe(0);
    const out = JSON.parse(sub.stdout) as { subagents: number; steps: { message: number; reported: number }[] };
    // The subagent's own calls (what its file reported), not the parent's.
    expect(out.steps.map((s) => [s.message, s.reported])).toEqual([
      [1, 5903],
      [3, 5974],
    ]);
    expect(out.subagents).toBe(0);
  });
});
