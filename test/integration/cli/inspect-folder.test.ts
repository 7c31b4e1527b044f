/**
 * `ctxscope inspect` at folder scale, run as a user runs it (the bin, a child process): a folder
 * mixing transcripts and files that are not, globs, exact counts, and what is skipped or failed.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectFiles, type FolderReport, type InspectJob } from '../../../src/cli/commands/inspect';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
const fixtures = join(root, 'test', 'fixtures', 'import');
let dir: string;
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CTXSCOPE_DB: join(dir, 'cli.db') },
  });

/** Two Claude Code calls of claude-sonnet-4-5 with reported usage (see the cost test for the arithmetic). */
function pricedSession(): string {
  const base = { isSidechain: false, sessionId: 'priced', cwd: '/p', version: '2.0.31' };
  const lines = [
    { ...base, parentUuid: null, uuid: 'u1', type: 'user', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'hello' } },
    {
      ...base,
      parentUuid: 'u1',
      uuid: 'a1',
      type: 'assistant',
      timestamp: '2026-01-01T00:00:01Z',
      message: {
        id: 'm1',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'hi' }],
        usage: { input_tokens: 1000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 100 },
      },
    },
    { ...base, parentUuid: 'a1', uuid: 'u2', type: 'user', timestamp: '2026-01-01T00:00:02Z', message: { role: 'user', content: 'again' } },
    {
      ...base,
      parentUuid: 'u2',
      uuid: 'a2',
      type: 'assistant',
      timestamp: '2026-01-01T00:00:03Z',
      message: {
        id: 'm2',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'ok' }],
        usage: { input_tokens: 10, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0, output_tokens: 50 },
      },
    },
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-inspect-folder-'));
  const mixed = join(dir, 'mixed');
  mkdirSync(join(mixed, '-home-dev-weather'), { recursive: true });
  mkdirSync(join(mixed, 'codex'), { recursive: true });
  copyFileSync(join(fixtures, 'claude-code-session.jsonl'), join(mixed, '-home-dev-weather', 'session.jsonl'));
  copyFileSync(join(fixtures, 'codex-rollout.jsonl'), join(mixed, 'codex', 'rollout.jsonl'));
  writeFileSync(join(mixed, 'package.json'), '{"name":"not-a-transcript","version":"1.0.0"}\n');
  writeFileSync(join(mixed, 'empty.jsonl'), '');
  writeFileSync(join(mixed, 'server.log'), 'GET / 200\nGET /favicon.ico 404\n');
  writeFileSync(join(mixed, 'notes.txt'), 'not even gathered: .txt is not a transcript extension');
  const priced = join(dir, 'priced');
  mkdirSync(priced);
  writeFileSync(join(priced, 'a.jsonl'), pricedSession());
  const broken = join(dir, 'broken');
  mkdirSync(broken);
  writeFileSync(join(broken, 'good.jsonl'), pricedSession());
  writeFileSync(join(broken, 'bad.jsonl'), pricedSession() + '{"parentUuid":"a2","type": oops}\n');
  const none = join(dir, 'none');
  mkdirSync(none);
  writeFileSync(join(none, 'config.json'), '{"theme":"dark"}');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ctxscope inspect DIR', () => {
  it('reads the transcripts of a mixed folder, skips the rest with a note on stderr, exits 0', () => {
    const r = run('inspect', join(dir, 'mixed'), '--json');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as FolderReport;
    expect(j.files.map((f) => [f.file.split('/').slice(-2).join('/'), f.format]).sort()).toEqual([
      ['-home-dev-weather/session.jsonl', 'claude-code'],
      ['codex/rollout.jsonl', 'codex'],
    ]);
    expect(j.skipped.map((s) => s.file.split('/').pop()).sort()).toEqual(['empty.jsonl', 'package.json', 'server.log']);
    expect(j.summary).toMatchObject({ files: 5, transcripts: 2, skipped: 3, failed: 0 });
    for (const name of ['empty.jsonl', 'package.json', 'server.log'])
      expect(r.stderr).toMatch(new RegExp(`skipped \\S*${name.replace('.', '\\.')}`));
    expect(r.stderr).not.toMatch(/notes\.txt/);
  });

  it('reports per file what single-file inspect reports, and sums them', () => {
    const folder = JSON.parse(run('inspect', join(dir, 'mixed'), '--json', '--tokenizer', 'chars4').stdout) as FolderReport;
    let calls = 0;
    let sessions = 0;
    let compactions = 0;
    for (const f of folder.files) {
      const single = JSON.parse(run('inspect', f.file, '--json', '--tokenizer', 'chars4').stdout) as {
        sessions: { steps: number; sourceCompactions: number; tokens: { history: number } }[];
      };
      expect(f.sessions.map((s) => [s.steps, s.tokens.history])).toEqual(single.sessions.map((s) => [s.steps, s.tokens.history]));
      for (const s of single.sessions) {
        calls += s.steps;
        sessions++;
        compactions += s.sourceCompactions;
      }
    }
    expect(folder.summary.sessions).toBe(sessions);
    expect(folder.summary.calls).toBe(calls);
    expect(folder.summary.sourceCompactions).toBe(compactions);
  });

  it('estimates with chars/4 by default and counts exactly with --exact', () => {
    const est = JSON.parse(run('inspect', join(dir, 'mixed'), '--json').stdout) as FolderReport;
    expect(est.files.every((f) => f.sessions.every((s) => s.tokens.tokenizer === 'chars4'))).toBe(true);
    expect(est.summary.approximate).toBe(true);
    const exact = JSON.parse(run('inspect', join(dir, 'mixed', 'codex'), '--json', '--exact').stdout) as FolderReport;
    // gpt-5-codex is an OpenAI model: its best tokenizer is o200k, an exact BPE count.
    expect(exact.files[0]!.sessions[0]!.tokens).toMatchObject({ tokenizer: 'tiktoken:o200k_base', approximate: false });
    const single = JSON.parse(run('inspect', join(dir, 'mixed', 'codex', 'rollout.jsonl'), '--json').stdout) as {
      sessions: { tokens: { history: number } }[];
    };
    expect(exact.files[0]!.sessions[0]!.tokens.history).toBe(single.sessions[0]!.tokens.history);
  });

  it('prices reported usage with the catalog', () => {
    const j = JSON.parse(run('inspect', join(dir, 'priced'), '--json').stdout) as FolderReport;
    // claude-sonnet-4-5 in resources/models.json: $3 input, $0.30 cached read, $15 output per 1M.
    // call 1: 1000 × 3 + 0 × 0.3 + 100 × 15 = 4500 ; call 2: 10 × 3 + 2000 × 0.3 + 50 × 15 = 1380
    // (4500 + 1380) / 1e6 = $0.00588
    expect(j.summary.cost).toBeCloseTo(0.00588, 10);
    expect(j.summary.reported).toEqual({ input: 1010, cacheRead: 2000, cacheWrite: 0, output: 150 });
    expect(j.summary.calls).toBe(2);
  });

  it('takes globs and several arguments like replay does', () => {
    const r = run('inspect', join(dir, 'mixed', '**', '*.jsonl'), '--json');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as FolderReport;
    expect(j.summary).toMatchObject({ transcripts: 2, skipped: 1 });
    const text = run('inspect', join(dir, 'priced'), join(dir, 'mixed'));
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^total\s+3 file\(s\)/m);
  });

  it('a transcript that does not parse fails (exit 3, FILE:LINE on stderr), the rest is still reported', () => {
    const r = run('inspect', join(dir, 'broken'), '--json');
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/bad\.jsonl:5:\d+: valid JSON/);
    const j = JSON.parse(r.stdout) as FolderReport;
    expect(j.summary).toMatchObject({ transcripts: 1, failed: 1 });
  });

  it('a folder without transcripts exits 3 and says so', () => {
    const r = run('inspect', join(dir, 'none'));
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/no transcripts among 1 file/);
  });

  it('worker threads give the same answers, in input order, as this thread alone', async () => {
    const files = [
      'mixed/-home-dev-weather/session.jsonl',
      'mixed/package.json',
      'mixed/codex/rollout.jsonl',
      'priced/a.jsonl',
      'broken/bad.jsonl',
    ].map((f) => join(dir, f));
    const jobs: InspectJob[] = files.map((file) => ({ file, exact: false }));
    const sizes = files.map(() => 1);
    const alone = await inspectFiles(jobs, sizes, 1);
    // Three threads (this one and two workers), the pool forced on however small the input.
    const pooled = await inspectFiles(jobs, sizes, 3, 0);
    expect(pooled).toEqual(alone);
    expect(pooled.map((r) => r.kind)).toEqual(['read', 'skipped', 'read', 'read', 'failed']);
  });
});
