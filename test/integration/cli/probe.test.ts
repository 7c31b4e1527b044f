/**
 * `ctxscope probe` as a user runs it, against a fake model on 127.0.0.1: nothing is sent before
 * confirmation, `--max-cost` stops before sending, a key goes only to the endpoint it is bound
 * to, and `--json` carries every replicate.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeTestServers, startTestServer } from '../../helpers/http-server';
import { fakeModel } from '../../helpers/fake-model';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
const sample = join(root, 'resources', 'sample', 'sample-session.jsonl');
const KEY = 'sk-probe-cli-test-0123456789abcdef';
let dir: string;

/** Runs the CLI without a terminal (stdin closed): the interactive confirmation cannot happen. */
function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const base = { ...process.env };
    for (const k of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'CTXSCOPE_SUMMARIZER_KEY', 'CTXSCOPE_SUMMARIZER_URL']) delete base[k];
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...base, CTXSCOPE_DB: join(dir, 'cli.db'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const probeArgs = (url: string, ...more: string[]) => [
  'probe',
  sample,
  '--policy',
  's2',
  '--set',
  'window=60000',
  '--at',
  'next-compression',
  '--endpoint',
  url,
  '--model',
  'fake-model',
  '--replicates',
  '2',
  ...more,
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-probe-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(closeTestServers);

describe('ctxscope probe', () => {
  it('prints the plan and sends nothing without --yes', async () => {
    const server = await startTestServer(fakeModel());
    const r = await run(probeArgs(server.url));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/requests to http:\/\/127\.0\.0\.1:\d+\/v1 \(fake-model\)/);
    expect(r.stderr).toMatch(/in all: \d+ requests, about [\d,]+ input tokens/);
    expect(r.stderr).toMatch(/nothing was sent: confirm with --yes/);
    expect(server.requests).toHaveLength(0);
  }, 120_000);

  it('--max-cost stops before sending when the estimate is above it', async () => {
    const server = await startTestServer(fakeModel());
    // A priced model (the catalog's), so the estimate is in dollars.
    const r = await run([
      ...probeArgs(server.url, '--yes', '--max-cost', '0.0001').map((a) => (a === 'fake-model' ? 'claude-sonnet-4-5' : a)),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--max-cost: the estimate \$\d+\.\d{4} is above \$0\.0001; nothing was sent/);
    expect(server.requests).toHaveLength(0);
  }, 120_000);

  it('sends with --yes and prints every replicate as JSON; a key bound elsewhere is not sent', async () => {
    const server = await startTestServer(fakeModel());
    // OPENAI_API_KEY is bound to api.openai.com (no CTXSCOPE_SUMMARIZER_URL): never to this server.
    const r = await run(probeArgs(server.url, '--yes', '--json'), { OPENAI_API_KEY: KEY });
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as {
      probes: { step: number; answers: unknown[]; tallies: { task: string }[]; questions: unknown[]; settings: { replicates: number } }[];
    };
    expect(j.probes).toHaveLength(1);
    const p = j.probes[0]!;
    expect(p.answers).toHaveLength(2 * 2 * (1 + p.questions.length));
    expect(p.tallies[0]!.task).toBe('next');
    expect(server.requests.length).toBe(p.answers.length);
    for (const q of server.requests) {
      expect(q.headers['authorization']).toBeUndefined();
      expect(q.body).not.toContain(KEY);
    }
  }, 120_000);

  it('the key bound to this endpoint goes to it', async () => {
    const server = await startTestServer(fakeModel());
    const r = await run(probeArgs(server.url, '--yes', '--questions', writeQuestions()), {
      OPENAI_API_KEY: KEY,
      CTXSCOPE_SUMMARIZER_URL: server.url,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(server.requests.length).toBeGreaterThan(0);
    for (const q of server.requests) expect(q.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(r.stdout).toMatch(/next action/);
  }, 120_000);

  it('--judge-endpoint without --judge-model is refused, and nothing is sent', async () => {
    const server = await startTestServer(fakeModel());
    const r = await run(probeArgs(server.url, '--yes', '--judge-endpoint', server.url));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--judge-endpoint and --judge-model go together/);
    expect(server.requests).toHaveLength(0);
  }, 120_000);

  it('with a judge: its grading is in the plan, nothing goes to either server unconfirmed, then each answer is graded with its own key only', async () => {
    const server = await startTestServer(fakeModel());
    const judge = await startTestServer(fakeModel());
    const judgeArgs = ['--judge-endpoint', judge.url, '--judge-model', 'fake-judge', '--questions', writeQuestions()];
    const unconfirmed = await run(probeArgs(server.url, ...judgeArgs));
    expect(unconfirmed.status).toBe(2);
    expect(unconfirmed.stderr).toMatch(/judge: 4 grading requests to http:\/\/127\.0\.0\.1:\d+\/v1 \(fake-judge\)/);
    expect(unconfirmed.stderr).toMatch(/and the judge at http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(server.requests).toHaveLength(0);
    expect(judge.requests).toHaveLength(0);
    // The key is bound to the probe endpoint: it goes there and never to the judge.
    const r = await run(probeArgs(server.url, '--yes', '--json', ...judgeArgs), {
      OPENAI_API_KEY: KEY,
      CTXSCOPE_SUMMARIZER_URL: server.url,
    });
    expect(r.status, r.stderr).toBe(0);
    const p = (
      JSON.parse(r.stdout) as {
        probes: { answers: { task: string; judged?: boolean; judgeError?: string }[]; tallies: { task: string; judge?: unknown }[] }[];
      }
    ).probes[0]!;
    // 2 sides × 2 replicates × 1 question = 4 grades.
    expect(judge.requests).toHaveLength(4);
    expect(p.answers.filter((a) => a.task === 'q1').every((a) => typeof a.judged === 'boolean')).toBe(true);
    expect(p.tallies.find((t) => t.task === 'q1')!.judge).toBeDefined();
    for (const q of judge.requests) {
      expect(q.headers['authorization']).toBeUndefined();
      expect(q.body).not.toContain(KEY);
    }
    for (const q of server.requests) expect(q.headers['authorization']).toBe(`Bearer ${KEY}`);
  }, 120_000);

  it('a questions file that is not what it should be is refused before anything is planned', async () => {
    const bad = join(dir, 'bad-questions.json');
    writeFileSync(bad, JSON.stringify([{ kind: 'colour', text: 'x', expected: 'y' }]));
    const server = await startTestServer(fakeModel());
    const r = await run(probeArgs(server.url, '--yes', '--questions', bad));
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/--questions .*bad-questions\.json: at 0\.kind: .*expected an array of \{kind, text, expected\}/);
    expect(server.requests).toHaveLength(0);
  }, 120_000);
});

function writeQuestions(): string {
  const f = join(dir, 'questions.json');
  writeFileSync(f, JSON.stringify([{ kind: 'identifier', text: 'Which function computes the total?', expected: 'computeTotal' }]));
  return f;
}
