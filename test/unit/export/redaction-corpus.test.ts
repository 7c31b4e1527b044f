/**
 * Redaction as a contract: every kind of the corpus (test/fixtures/secrets) is replaced in every
 * transcript target — wherever it sits in the session — by the export the CLI and the app write,
 * and is counted by the export dialog's preview; a user pattern without `redact` still redacts.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor, exportRedacted, sessionInput, TRANSCRIPT_TARGETS } from '../../../src/core/export/index';
import type { Message } from '../../../src/core/model';
import { previewFor } from '../../../src/main/host/export-preview';
import { buildExport, type ExportArgs } from '../../../src/main/host/exports';
import { secretlintScanner } from '../../../src/main/secret-scan';
import { CORPUS } from '../../fixtures/secrets/corpus';
import { assistant, call, msg, result, session, user } from '../../helpers/session';

/** The secret in a message, a reasoning block, JSON tool arguments, arguments that are not JSON, a result, the system prompt and a tool definition. */
function holding(secret: string): ReturnType<typeof session> {
  const messages: Message[] = [
    user(`here it is:\n${secret}\nthanks`),
    msg('assistant', [
      { kind: 'reasoning', text: `it said ${secret}` },
      call('c1', 'Bash', JSON.stringify({ command: `cat <<EOF\n${secret}\nEOF` })),
      call('c2', 'Raw', `not json ${secret}`),
    ]),
    msg('user', [result('c1', `$ cat id\n${secret}\n`), result('c2', 'ok')]),
    assistant(`done: ${secret}`),
  ];
  return session(messages, {
    systemPrompt: `the agent knows ${secret}`,
    tools: [{ name: 'Bash', description: `runs ${secret}`, parameters: { type: 'object', properties: { x: { default: secret } } } }],
  });
}

const noCore = (text: string, cores: readonly string[], where: string): void => {
  for (const core of cores) expect(text.includes(core), `${where}: "${core.slice(0, 24)}…" survived`).toBe(false);
};

describe('the secrets corpus, built-in rules alone', () => {
  it('each kind is found and named', async () => {
    const r = createRedactor([]);
    const out = await r.redact(CORPUS.map((c) => `before ${c.text} after`));
    out.forEach((text, i) => {
      const c = CORPUS[i]!;
      noCore(text, c.cores, c.name);
      expect(text, c.name).toContain(`[REDACTED:${c.kind}]`);
      // What surrounds a secret is kept.
      expect(text.startsWith('before '), c.name).toBe(true);
      expect(text.endsWith(' after'), c.name).toBe(true);
    });
  });

  it('keeps the readable parts of a URL and of an assignment', async () => {
    const r = createRedactor([]);
    const [url, env, basic] = await r.redact([
      'amqp://rabbit:Rabb1tPassw0rd@mq.internal:5672/vhost',
      'DB_PASSWORD=hunter2',
      'Authorization: Basic ZGVwbG95OnB3',
    ]);
    expect(url).toBe('amqp://rabbit:[REDACTED:url-credentials]@mq.internal:5672/vhost');
    expect(env).toBe('DB_PASSWORD=[REDACTED:env-secret]');
    expect(basic).toBe('Authorization: Basic [REDACTED:basic-auth]');
  });

  it('leaves look-alikes that are not secrets', async () => {
    const r = createRedactor([]);
    const texts = [
      'MAX_TOKENS=8192',
      'max_tokens=100',
      'token = lexer.next()',
      'https://example.com/a:b@',
      'ssh://git@github.com/x',
      '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
    ];
    const out = await r.redact(texts);
    expect(out).toEqual(texts.map((t, i) => (i === 4 ? 'ssh://[REDACTED:email]/x' : t)));
  });

  it('a zero-width character inside a key does not hide it, and one elsewhere is kept', async () => {
    const r = createRedactor([]);
    const [out] = await r.redact(['a\u200db sk-proj-FakeFakeFake\u200bFakeFake0123456789abcdef c\u200b']);
    expect(out).toBe('a\u200db [REDACTED:api-key] c\u200b');
  });
});

describe('the secrets corpus in every export target (the scanner the CLI and the app use)', () => {
  for (const target of TRANSCRIPT_TARGETS) {
    it(`${target}: no kind survives anywhere in the session`, async () => {
      for (const c of CORPUS) {
        const s = holding(c.text);
        const e = await exportRedacted({ ...sessionInput(s), summary: `summary: ${c.text}` }, target, {
          scanner: secretlintScanner,
          title: `title ${c.text}`,
        });
        noCore(e.text, c.cores, `${c.name} in ${target}`);
        noCore(e.title, c.cores, `${c.name} in the title`);
        // message, reasoning, two arguments, result, final message, system, tool description, default, summary, title
        expect(e.redactions, `${c.name} in ${target}`).toBeGreaterThanOrEqual(11);
        if (target === 'openai' || target === 'anthropic') expect(() => JSON.parse(e.text) as unknown).not.toThrow();
        if (target === 'jsonl') for (const line of e.text.trim().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
      }
    });
  }
});

describe("the export dialog's preview", () => {
  const row = { id: 's', title: 'corpus', sourcePath: '/tmp/corpus.jsonl' };
  const args = (to: ExportArgs['to'], redact: boolean, redactPatterns: string[] = []): ExportArgs => ({
    sessionId: 's',
    overrides: {},
    at: 'end',
    to,
    redact,
    redactPatterns,
  });
  const noReplay = (): Promise<never> => Promise.reject(new Error('no replay in this test'));

  it('counts every kind, and the save holds none of them', async () => {
    const s = session(CORPUS.map((c) => user(c.text)));
    for (const to of ['openai', 'markdown'] as const) {
      const p = await previewFor(s, row, args(to, true), noReplay);
      const saved = await buildExport(s, row, args(to, true), noReplay);
      expect(p.redactions).toBe(saved.redactions);
      expect(p.redactions).toBeGreaterThanOrEqual(CORPUS.length);
      expect(p.byKind.privatekey).toBe(CORPUS.filter((c) => c.kind === 'privatekey').length);
      for (const c of CORPUS) noCore(saved.text, c.cores, `${c.name} saved as ${to}`);
    }
  });

  it('a user pattern without redact turned on still redacts (patterns imply redaction)', async () => {
    const s = session([user(`project Zebra, key ${CORPUS[0]!.text}`)]);
    const saved = await buildExport(s, row, args('jsonl', false, ['Zebra']), noReplay);
    expect(saved.text).toContain('project [REDACTED:custom]');
    noCore(saved.text, CORPUS[0]!.cores, 'the key');
    expect(saved.byKind.custom).toBe(1);
    const plain = await buildExport(s, row, args('jsonl', false), noReplay);
    expect(plain.text).toContain('Zebra');
    expect(plain.redactions).toBe(0);
  });
});
