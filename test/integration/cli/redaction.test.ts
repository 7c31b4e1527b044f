/**
 * `ctxscope export` from the source (tsx, no build needed) as a user runs it: the secrets corpus in
 * every target, `--redact-pattern` alone redacting, a tool input nested 10,000 levels exported with
 * `--redact`, and line and paragraph separators from a transcript escaped on the terminal.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CORPUS } from '../../fixtures/secrets/corpus';

const root = resolve(__dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'ctxscope-redact-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CTXSCOPE_DB: join(dir, 'unused.db') },
    maxBuffer: 1 << 26,
  });

/** An Anthropic Messages request whose tool call carries `input` (given as JSON text) and whose messages say `texts`. */
function anthropicFile(name: string, input: string, texts: readonly string[] = []): string {
  const file = join(dir, name);
  const messages = [
    ...texts.flatMap((t) => [JSON.stringify({ role: 'user', content: t }), JSON.stringify({ role: 'assistant', content: 'noted' })]),
    JSON.stringify({ role: 'user', content: 'go' }),
    `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":${input}}]}`,
    JSON.stringify({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] }),
  ];
  writeFileSync(file, `{"model":"claude-x","messages":[${messages.join(',')}]}`);
  return file;
}

const TARGETS = ['openai', 'anthropic', 'jsonl', 'markdown'] as const;

describe('ctxscope export --redact', () => {
  const file = anthropicFile(
    'corpus.json',
    JSON.stringify({ env: CORPUS.map((c) => c.text).join('\n') }),
    CORPUS.map((c) => c.text),
  );

  for (const to of TARGETS) {
    it(`--to ${to}: no kind of the corpus survives`, () => {
      const out = join(dir, `corpus.${to}`);
      const r = run('export', file, '--to', to, '--redact', '-o', out);
      expect(r.stderr).toMatch(/^redacted \d+ match\(es\)/);
      expect(r.status).toBe(0);
      const text = readFileSync(out, 'utf8');
      for (const c of CORPUS)
        for (const core of c.cores) expect(text.includes(core), `${c.name}: "${core.slice(0, 20)}…" in ${to}`).toBe(false);
    }, 120_000);
  }

  it('--redact-pattern without --redact redacts the pattern and the built-in kinds, and says so', () => {
    const f = anthropicFile('pattern.json', '{}', ['project Zebra', CORPUS[0]!.text]);
    const r = run('export', f, '--to', 'markdown', '--redact-pattern', 'Zebra');
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('Zebra');
    expect(r.stdout).toContain('project [REDACTED:custom]');
    for (const core of CORPUS[0]!.cores) expect(r.stdout).not.toContain(core);
    expect(r.stderr).toMatch(/--redact-pattern implies --redact/);
  }, 60_000);

  it('a tool input nested 10,000 levels exports in every target', () => {
    const deep = '{"a":'.repeat(10_000) + '{"k":"PASSWORD=deep-nested-Passw0rd"}' + '}'.repeat(10_000);
    const f = anthropicFile('deep.json', deep);
    for (const to of TARGETS) {
      const out = join(dir, `deep.${to}`);
      const r = run('export', f, '--to', to, '--redact', '-o', out);
      expect(r.stderr, to).not.toMatch(/call stack/);
      expect(r.status, to).toBe(0);
      const text = readFileSync(out, 'utf8');
      expect(text).not.toContain('deep-nested-Passw0rd');
      expect(text).toContain('[REDACTED:env-secret]');
    }
  }, 240_000);
});

describe('terminal output', () => {
  it('line and paragraph separators and NEL in a title print as escapes, and --json keeps them', () => {
    const title = 'first\u2028second\u2029third\u0085fourth';
    const file = join(dir, 'separators.jsonl');
    const lines = [
      JSON.stringify({ type: 'custom-title', title, sessionId: 's1' }),
      JSON.stringify({
        type: 'user',
        uuid: 'u0',
        parentUuid: null,
        sessionId: 's1',
        timestamp: '2026-01-01T00:00:00Z',
        message: { role: 'user', content: 'hello' },
      }),
      JSON.stringify({
        type: 'assistant',
        uuid: 'a0',
        parentUuid: 'u0',
        sessionId: 's1',
        timestamp: '2026-01-01T00:00:30Z',
        message: { id: 'm0', role: 'assistant', model: 'gpt-4o', content: [{ type: 'text', text: 'hi' }] },
      }),
    ];
    writeFileSync(file, lines.join('\n') + '\n');
    const r = run('inspect', file);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/[\u2028\u2029\u0085]/);
    expect(r.stdout).toContain('first\\u2028second\\u2029third\\u0085fourth');
    const j = run('inspect', file, '--json');
    expect((JSON.parse(j.stdout) as { sessions: { title: string }[] }).sessions[0]!.title).toBe(title);
  }, 60_000);
});
