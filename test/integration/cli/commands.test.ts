/** The CLI commands as a user runs them: a child process, JSON output, exit codes, clear errors. */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSandbox, sample } from '../../helpers/cli-sandbox';

const cli = cliSandbox('ctxscope-cli-');
const run = cli.run;

describe('ctxscope inspect', () => {
  it('prints the documented JSON shape', () => {
    const r = run('inspect', sample, '--json');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as {
      format: string;
      sessions: {
        messages: Record<string, number>;
        turns: number;
        steps: number;
        toolCalls: number;
        orphans: unknown;
        tokens: { tokenizer: string; history: number };
        reportedUsage: boolean;
        sourceCompactions: number;
      }[];
      warnings: string[];
    };
    expect(j.format).toBe('claude-code');
    const s = j.sessions[0]!;
    expect(Object.keys(s.messages).sort()).toEqual(['assistant', 'system', 'tool', 'user']);
    expect(s).toMatchObject({ turns: 6, steps: 24, reportedUsage: true, sourceCompactions: 1 });
    expect(s.tokens.tokenizer).toBe('calibrated');
    expect(s.tokens.history).toBeGreaterThan(100_000);
    // The calibration, scored on the calls it was fitted on and, fitted on the first half, on the second.
    const cal = (j.sessions[0] as unknown as { calibration: Record<string, number | null> }).calibration;
    expect(Object.keys(cal).sort()).toEqual(['calls', 'inSampleError', 'outOfSampleError', 'overhead', 'ratio']);
    expect(cal['calls']).toBe(24);
    expect(cal['outOfSampleError']).toEqual(expect.any(Number));
  });

  it('exits 3 on bad input with FILE:LINE: what was expected', () => {
    const bad = join(cli.dir, 'bad.jsonl');
    writeFileSync(bad, '{"role":"user","content":"a"}\n{"role": oops}\n{"role":"assistant","content":"b"}\n');
    const r = run('inspect', bad);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/bad\.jsonl:2:\d+: valid JSON/);
  });

  it('exits 2 on a missing file and on an unknown tokenizer', () => {
    expect(run('inspect', join(cli.dir, 'nope.jsonl')).status).toBe(2);
    const r = run('inspect', sample, '--tokenizer', 'bogus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown tokenizer "bogus"/);
  });
});

describe('ctxscope replay', () => {
  it('prints the documented JSON shape', () => {
    const r = run('replay', sample, '--policy', 's3', '--json', '--needle', 'ORD-1187');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as {
      policy: string;
      steps: { index: number; regions: Record<string, number>; status: string }[];
      events: { step: number; kind: string }[];
      totals: Record<string, number>;
      retention: { lost: unknown[] };
    };
    expect(j.policy).toBe('s3');
    expect(j.steps).toHaveLength(24);
    expect(Object.keys(j.steps[0]!.regions)).toEqual(['system', 'unlogged', 'summary', 'history', 'tools', 'output', 'buffer', 'free']);
    expect(j.totals).toHaveProperty('billedInputTokens');
    expect(j.events.some((e) => e.kind === 'compression')).toBe(true);
  });

  it('--set overrides the policy and a bad key is a usage error', () => {
    const r = run('replay', sample, '--policy', 's2', '--set', 'window=50000', '--json');
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { config: { resolved: { window: number } } }).config.resolved.window).toBe(50_000);
    const bad = run('replay', sample, '--policy', 's2', '--set', 'windw=5');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown config key "windw"/);
    expect(run('replay', sample, '--policy', 'nope').status).toBe(2);
  });

  it('--fail-on exits 4 when the replay reaches that status', () => {
    const r = run('replay', sample, '--policy', 'claude-code', '--fail-on', 'compress');
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(/assertion failed: step \d+ reached status "compress"/);
    expect(run('replay', sample, '--policy', 's2', '--fail-on', 'abort').status).toBe(0);
  });

  it('--fail-on overflow exits 4 when a request is above the window (the provider would reject it)', () => {
    // The sample's first call alone is ~17.9k tokens: a 1,000-token window cannot hold it.
    const r = run('replay', sample, '--policy', 'claude-code', '--set', 'window=1000', '--fail-on', 'overflow');
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(/step 0 reached status "overflow"/);
    expect(run('replay', sample, '--policy', 'claude-code', '--fail-on', 'overflow').status).toBe(0);
  });

  it('replays a directory in batch mode, one row per transcript', () => {
    const d = join(cli.dir, 'batch');
    spawnSync('mkdir', ['-p', d]);
    writeFileSync(join(d, 'a.jsonl'), '{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n');
    writeFileSync(join(d, 'b.jsonl'), '{"role":"user","content":"bye"}\n{"role":"assistant","content":"ciao"}\n');
    const r = run('replay', d, '--policy', 's2', '--json');
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout) as { file: string; steps: number }[];
    expect(rows.map((x) => x.steps)).toEqual([1, 1]);
  });
});

describe('ctxscope compare, export, import, sessions, policies', () => {
  it('compares two policies', () => {
    const r = run('compare', sample, '--policy', 's2', '--policy', 'claude-code', '--json');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as { a: { policy: string }; b: { policy: string }; totalDelta: number[] };
    expect([j.a.policy, j.b.policy]).toEqual(['s2', 'claude-code']);
    expect(j.totalDelta).toHaveLength(24);
  });

  it('exports the compacted history and it imports back', () => {
    const out = join(cli.dir, 'compact.json');
    expect(run('export', sample, '--policy', 'claude-code', '--at', 'end', '--to', 'openai', '-o', out).status).toBe(0);
    const back = run('inspect', out, '--json');
    expect(back.status).toBe(0);
    expect((JSON.parse(back.stdout) as { format: string }).format).toBe('openai-chat');
    expect(run('export', sample, '--to', 'report-csv').status).toBe(2);
    expect(run('export', sample, '--policy', 's3', '--to', 'report-csv').stdout.split('\n')[0]).toMatch(/^step,message,turn,system/);
  });

  it('imports into the database once and lists what is stored', () => {
    expect(run('import', sample).status).toBe(0);
    expect(run('import', sample).status).toBe(0);
    const r = run('sessions', '--json');
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(1);
  });

  it('lists the twelve policies', () => {
    const r = run('policies', '--json');
    const ids = (JSON.parse(r.stdout) as { id: string }[]).map((p) => p.id);
    expect(ids).toEqual([
      's0',
      's1',
      's2',
      's3',
      's4',
      'claude-code',
      'codex',
      'openhands-recent',
      'openhands-masking',
      'openhands-summary',
      'openhands-amortized',
      'letta',
    ]);
  });
});
