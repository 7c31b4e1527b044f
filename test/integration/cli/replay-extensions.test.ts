/**
 * What the CLI adds around a replay: a user's own strategy module, a policy exported to JSON,
 * edited and passed back, the scenario variants, and a remote summarizer reached through a real
 * OpenAI-compatible server on 127.0.0.1 with the key taken from the environment.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, summaryAnswer, type TestServer } from '../../helpers/http-server';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
const sample = join(root, 'resources', 'sample', 'sample-session.jsonl');
let dir: string;

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}
/** Async, so a server in this process can answer the child. */
function run(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: {
        ...process.env,
        OPENAI_API_KEY: '',
        ANTHROPIC_API_KEY: '',
        CTXSCOPE_SUMMARIZER_KEY: '',
        CTXSCOPE_DB: join(dir, 'cli.db'),
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

interface Json {
  policy: string;
  steps: { status: string; regions: { history: number } }[];
  events: { kind: string; strategy?: string; summary?: string; error?: string }[];
  totals: { compressions: number };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-cli-ext-'));
  // Keeps only the newest turn: a strategy a user might write to test an aggressive policy.
  writeFileSync(
    join(dir, 'mine.mjs'),
    `export function lastTurn(history, budget, ctx) {
  const starts = ctx.turnStarts.filter((t) => t > history.from && t < history.end);
  const from = starts.length ? starts[starts.length - 1] : history.from;
  return { kept: { from, keepBefore: [] }, dropped: from > history.from ? [[history.from, from - 1]] : [], note: 'newest turn only' };
}
export default { splitsTurns: (h) => ({ kept: { from: h.from + 1, keepBefore: [] }, dropped: [[h.from, h.from]], note: 'bad' }) };
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--strategy-module', () => {
  it('runs a user strategy named custom:<name> in the pipeline', async () => {
    const r = await run([
      'replay',
      sample,
      '--policy',
      's3',
      '--strategy-module',
      join(dir, 'mine.mjs'),
      '--set',
      'pipeline=custom:lastTurn',
      '--set',
      'trigger=0.05',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as Json;
    const compressions = j.events.filter((e) => e.kind === 'compression');
    expect(compressions.length).toBeGreaterThan(0);
    expect(compressions.every((e) => e.strategy === 'custom:lastTurn')).toBe(true);
  });

  it('refuses a strategy result that splits a turn (exit 3), and a pipeline naming a strategy nobody exports (exit 2)', async () => {
    const bad = await run([
      'replay',
      sample,
      '--policy',
      's3',
      '--strategy-module',
      join(dir, 'mine.mjs'),
      '--set',
      'pipeline=custom:splitsTurns',
      '--set',
      'trigger=0.05',
    ]);
    expect(bad.status).toBe(3);
    expect(bad.stderr).toMatch(/strategy custom:splitsTurns: kept\.from \d+ is not a turn boundary/);
    const missing = await run(['replay', sample, '--policy', 's3', '--set', 'pipeline=custom:nope']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/custom:nope but no --strategy-module was given/);
    const noFile = await run(['replay', sample, '--policy', 's3', '--strategy-module', join(dir, 'absent.mjs')]);
    expect(noFile.status).toBe(2);
  });
});

describe('policies as JSON files', () => {
  it('exports a policy, replays the edited copy, and names the bad field of a broken one', async () => {
    const exported = await run(['policies', '--export', 's3']);
    expect(exported.status).toBe(0);
    const file = join(dir, 'mine.json');
    const policy = JSON.parse(exported.stdout) as { id: string; config: { trigger: number } };
    expect(policy.config.trigger).toBe(0.75);
    writeFileSync(file, JSON.stringify({ ...policy, id: 'early-s3', config: { ...policy.config, trigger: 0.3 } }));
    expect((await run(['policies', '--check', file])).stdout).toMatch(/policy "early-s3" is valid/);
    const [stock, early] = await Promise.all([
      run(['replay', sample, '--policy', 's3', '--json']),
      run(['replay', sample, '--policy', file, '--json']),
    ]);
    const a = JSON.parse(stock.stdout) as Json;
    const b = JSON.parse(early.stdout) as Json;
    expect(b.policy).toBe('early-s3');
    // An earlier trigger compresses at least as often, and first at or before the stock policy's first compression.
    expect(b.totals.compressions).toBeGreaterThanOrEqual(a.totals.compressions);
    writeFileSync(join(dir, 'broken.json'), JSON.stringify({ id: 'x', label: 'x', config: { trigger: 'soon' } }));
    const broken = await run(['replay', sample, '--policy', join(dir, 'broken.json')]);
    expect(broken.status).toBe(3);
    expect(broken.stderr).toContain('broken.json: config.trigger:');
  });

  it('accepts the S3 scenario variants by id', async () => {
    const r = await run(['replay', sample, '--policy', 's3-debugging', '--json']);
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as Json).policy).toBe('s3-debugging');
  });
});

describe('remote summarizer from the CLI', () => {
  let server: TestServer;
  let url: string;
  const seen = (): { auth: string | undefined; model: string }[] =>
    server.requests.map((q) => ({ auth: q.headers.authorization, model: (JSON.parse(q.body) as { model: string }).model }));
  beforeAll(async () => {
    server = await startTestServer(summaryAnswer('Summary from the local server: ORD-1187, totals.ts.'));
    url = server.url;
  });
  afterAll(() => server.close());

  it('summarizes through the server with the key from OPENAI_API_KEY (bound to it by CTXSCOPE_SUMMARIZER_URL)', async () => {
    const r = await run(
      [
        'replay',
        sample,
        '--policy',
        's3',
        '--set',
        'summarizer=openai',
        '--set',
        'summarizerModel=tiny-local',
        '--set',
        `summarizerUrl=${url}`,
        '--set',
        'trigger=0.2',
        '--json',
      ],
      { OPENAI_API_KEY: 'sk-test-123', CTXSCOPE_SUMMARIZER_URL: url },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as Json;
    expect(j.events.some((e) => e.kind === 'compression' && e.summary?.includes('Summary from the local server'))).toBe(true);
    expect(seen().length).toBeGreaterThan(0);
    expect(seen().every((s) => s.auth === 'Bearer sk-test-123' && s.model === 'tiny-local')).toBe(true);
  });

  it('refuses the vendor URL without a key, with a sentence saying where the key goes (exit 2)', async () => {
    const r = await run(['replay', sample, '--policy', 's3', '--set', 'summarizer=anthropic', '--set', 'summarizerModel=claude-haiku-4-5']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/needs an API key .*ANTHROPIC_API_KEY.*ctxscope key set anthropic/);
  });

  it('key set reads the key from stdin and refuses an empty one', async () => {
    const r = await run(['key', 'set', 'openai'], {}, '');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/expected the key on stdin/);
    expect((await run(['key', 'set', 'mistral'])).status).toBe(2);
  });
});
