/**
 * The CLI against hostile input, as a user runs it (the built bin, real exit codes): a shared
 * policy naming a stranger's summarizer URL, FIFOs given as transcripts, titles that carry
 * terminal escape sequences, user regexes that backtrack, and credentials to redact.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_SECRETS } from '../../unit/security/fake-secrets';
import { startTestServer, summaryAnswer } from '../../helpers/http-server';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
const dir = mkdtempSync(join(tmpdir(), 'ctxscope-sec-'));
const cleanEnv = {
  ...process.env,
  OPENAI_API_KEY: undefined,
  ANTHROPIC_API_KEY: undefined,
  CTXSCOPE_SUMMARIZER_KEY: undefined,
  CTXSCOPE_SUMMARIZER_URL: undefined,
  CTXSCOPE_ALLOW_SUMMARIZER_URL: undefined,
};
const run = (args: string[], env: NodeJS.ProcessEnv = cleanEnv) =>
  spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000, env });
/** Runs the bin without blocking this process (a server in this process must answer it). */
const runAsync = (args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });

/** A Claude Code transcript: `turns` user/assistant pairs, a title, and `extra` text in the first message. */
function claudeCode(turns: number, title: string, extra = ''): string {
  const lines = [JSON.stringify({ type: 'custom-title', title, sessionId: 's1' })];
  let parent: string | null = null;
  for (let t = 0; t < turns; t++) {
    const u = `u${t}`;
    const a = `a${t}`;
    lines.push(
      JSON.stringify({
        type: 'user',
        uuid: u,
        parentUuid: parent,
        sessionId: 's1',
        timestamp: `2026-01-01T00:${String(t).padStart(2, '0')}:00Z`,
        message: { role: 'user', content: `${t === 0 ? extra : ''} question ${t} ${'lorem ipsum dolor '.repeat(60)}` },
      }),
    );
    lines.push(
      JSON.stringify({
        type: 'assistant',
        uuid: a,
        parentUuid: u,
        sessionId: 's1',
        timestamp: `2026-01-01T00:${String(t).padStart(2, '0')}:30Z`,
        message: {
          id: `m${t}`,
          role: 'assistant',
          model: 'gpt-4o',
          content: [{ type: 'text', text: `answer ${t} ${'sit amet consectetur '.repeat(60)}` }],
        },
      }),
    );
    parent = a;
  }
  return lines.join('\n') + '\n';
}

const transcript = join(dir, 'long.jsonl');
writeFileSync(transcript, claudeCode(30, 'plain title'));

function policyFile(name: string, summarizerUrl: string): string {
  const exported = run(['policies', '--export', 'letta']);
  const p = JSON.parse(exported.stdout) as { id: string; config: Record<string, unknown> };
  p.id = name;
  Object.assign(p.config, { summarizer: 'openai', summarizerModel: 'm', summarizerUrl, window: 6_000, tokenizer: 'chars4' });
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(p));
  return file;
}

describe('a shared policy cannot take the summarizer key', () => {
  it('a policy naming a loopback server gets the transcript but never the OPENAI_API_KEY', async () => {
    const server = await startTestServer(summaryAnswer('a summary'));
    try {
      const r = await runAsync(['replay', transcript, '--policy', policyFile('loopback', server.url), '--json'], {
        ...cleanEnv,
        OPENAI_API_KEY: 'sk-the-users-own-key-0000000000',
      });
      expect(r.status, r.stderr).toBe(0);
      expect(server.requests.length).toBeGreaterThan(0);
      for (const q of server.requests) expect(q.headers.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a policy naming a remote host is refused (exit 2) unless --allow-summarizer-url names it', () => {
    const file = policyFile('remote', 'http://collector.invalid/v1');
    const r = run(['replay', transcript, '--policy', file], { ...cleanEnv, OPENAI_API_KEY: 'sk-x' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/collector\.invalid/);
    expect(r.stderr).toMatch(/--allow-summarizer-url http:\/\/collector\.invalid\/v1/);
    // Allowed: the replay runs (the host does not resolve: a summarizer-failure event, exit 0).
    const allowed = run([
      'replay',
      transcript,
      '--policy',
      file,
      '--allow-summarizer-url',
      'http://collector.invalid/v1',
      '--set',
      'summarizerUrl=http://collector.invalid/v1',
      '--json',
    ]);
    expect(allowed.stderr).not.toMatch(/allow-summarizer-url/);
  }, 60_000);

  it('key set --url refuses an endpoint a key may never go to (exit 2)', () => {
    const r = spawnSync(process.execPath, [bin, 'key', 'set', 'openai', '--url', 'http://169.254.169.254/v1'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
      env: cleanEnv,
      input: 'sk-test\n',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--url "http:\/\/169\.254\.169\.254\/v1": 169\.254\.169\.254 is a link-local/);
  });

  it('policies --check reports the remote endpoint and refuses file: and link-local URLs (exit 3)', () => {
    const ok = run(['policies', '--check', policyFile('shared', 'http://anyone.example/v1')]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/REMOTE host anyone\.example/);
    expect(run(['policies', '--check', policyFile('file', 'file:///etc/passwd')]).status).toBe(3);
    const meta = run(['policies', '--check', policyFile('meta', 'http://169.254.169.254/latest')]);
    expect(meta.status).toBe(3);
    expect(meta.stderr).toMatch(/link-local/);
  }, 60_000);
});

describe('special files', () => {
  const fifo = join(dir, 'pipe.jsonl');
  spawnSync('mkfifo', [fifo]);
  it.each([['inspect'], ['replay', '--policy', 's0'], ['export', '--to', 'jsonl'], ['import', '--db', join(dir, 'x.db')], ['serve']])(
    '%s on a FIFO exits 3 at once',
    (cmd, ...rest) => {
      const r = spawnSync(process.execPath, [bin, cmd!, fifo, ...rest], { cwd: root, encoding: 'utf8', timeout: 20_000, env: cleanEnv });
      expect(r.status).toBe(3);
      expect(r.stderr).toMatch(/is a FIFO \(named pipe\); expected a regular transcript file/);
    },
  );

  it('serve with a file that does not import exits 3', () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, 'not a transcript\n');
    const r = run(['serve', bad, '--db', join(dir, 'serve.db')]);
    expect(r.status).toBe(3);
  }, 60_000);
});

describe('terminal output', () => {
  const evil = 'Title\x1b]0;pwned\x07\x1b[2J\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\u009b31m\u202eevil';
  const file = join(dir, 'evil.jsonl');
  writeFileSync(file, claudeCode(2, evil));
  // eslint-disable-next-line no-control-regex -- the test looks for raw control characters
  const raw = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

  it('inspect escapes control and bidi characters in titles', () => {
    const r = run(['inspect', file]);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(raw);
    expect(r.stdout).toContain('Title\\u001B]0;pwned\\u0007');
    expect(r.stdout).toContain('\\u202E');
  });

  it('sessions escapes them too', () => {
    const db = join(dir, 'sessions.db');
    expect(run(['import', file, '--db', db]).status).toBe(0);
    const r = run(['sessions', '--db', db]);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(raw);
    expect(r.stdout).toContain('\\u001B');
  });

  it('--json stays valid JSON with the same title', () => {
    const r = run(['inspect', file, '--json']);
    expect(r.stdout).not.toMatch(raw);
    expect((JSON.parse(r.stdout) as { sessions: { title: string }[] }).sessions[0]!.title).toBe(evil);
  });
});

describe('user regexes and redaction', () => {
  const line = join(dir, 'line.jsonl');
  writeFileSync(
    line,
    claudeCode(
      2,
      't',
      `${'a'.repeat(30_000)}! ${FAKE_SECRETS['github classic token']} ${FAKE_SECRETS['stripe live key']} ${FAKE_SECRETS['aws access key id']} ${FAKE_SECRETS.jwt}`,
    ),
  );

  it('--redact-pattern that backtracks exponentially in JavaScript finishes at once on RE2', () => {
    const r = run(['export', line, '--to', 'markdown', '--redact', '--redact-pattern', '/(\\w+\\s?)+$/']);
    expect(r.status).toBe(0);
    for (const k of ['github classic token', 'stripe live key', 'aws access key id', 'jwt'])
      expect(r.stdout).not.toContain(FAKE_SECRETS[k]!);
  }, 30_000);

  it('a pattern RE2 cannot run is a usage error naming the construct', () => {
    const r = run(['export', line, '--to', 'markdown', '--redact', '--redact-pattern', '/(a)\\1/']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/backreferences/);
    const n = run(['replay', line, '--policy', 's0', '--needle', '/a(?=b)/']);
    expect(n.status).toBe(2);
    expect(n.stderr).toMatch(/--needle: needle \/a\(\?=b\)\/: lookahead/);
  }, 30_000);
});
