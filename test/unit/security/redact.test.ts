/**
 * `export --redact`: every credential kind, in every export format, wherever it sits — message
 * text, thinking, tool-call arguments, tool results, tool definitions, system prompt, summary,
 * the title and the file path — is replaced; e-mail, bearer tokens and user patterns too.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor, exportRedacted, sessionInput, TRANSCRIPT_TARGETS } from '../../../src/core/export/index';
import type { Message } from '../../../src/core/model';
import { secretlintScanner } from '../../../src/main/secret-scan';
import { assistant, call, msg, result, session, user } from '../../helpers/session';
import { FAKE_SECRETS, SECRET_CORE } from './fake-secrets';

const kinds = Object.keys(FAKE_SECRETS);

function sessionHolding(secret: string): ReturnType<typeof session> {
  const messages: Message[] = [
    user(`please use ${secret} for this`),
    msg('assistant', [
      { kind: 'reasoning', text: `thinking: the key is ${secret}` },
      call('c1', 'Bash', JSON.stringify({ command: `curl -H 'x: ${secret}' https://example.com`, env: { KEY: secret } })),
    ]),
    msg('user', [result('c1', `output mentions ${secret}\n`)]),
    assistant(`done with ${secret}`),
  ];
  return session(messages, {
    systemPrompt: `system knows ${secret}`,
    tools: [{ name: 'Bash', description: `runs with ${secret}`, parameters: { type: 'object', default: secret } }],
  });
}

describe('export --redact: every kind, every format, every place', () => {
  for (const target of TRANSCRIPT_TARGETS) {
    it(`${target}: no credential survives`, async () => {
      for (const kind of kinds) {
        const secret = FAKE_SECRETS[kind]!;
        const s = sessionHolding(secret);
        const title = `/home/me/logs/${secret}/run.jsonl under s3 at step 4`;
        const e = await exportRedacted({ ...sessionInput(s), summary: `summary with ${secret}` }, target, {
          scanner: secretlintScanner,
          title,
        });
        expect(e.text, `${kind} in ${target}`).not.toContain(SECRET_CORE[kind]!);
        expect(e.title, `${kind} in the title`).not.toContain(SECRET_CORE[kind]!);
        expect(e.text).toContain('[REDACTED:');
        // 4 messages, reasoning, call arguments (2), result, system, tool definition (2), summary: at least 10.
        expect(e.redactions, `${kind} in ${target}`).toBeGreaterThanOrEqual(10);
        if (target !== 'markdown' && target !== 'jsonl') expect(() => JSON.parse(e.text) as unknown).not.toThrow();
        if (target === 'jsonl') for (const line of e.text.trim().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
      }
    });
  }

  it('keeps the text around a secret and says which kind it was', async () => {
    const r = createRedactor([], secretlintScanner);
    const [out] = await r.redact([`token ${FAKE_SECRETS['github classic token']} here`]);
    expect(out).toBe('token [REDACTED:github] here');
  });

  it('a transcript cannot switch the scanner off with a secretlint-disable comment', async () => {
    const r = createRedactor([], secretlintScanner);
    const [out] = await r.redact([`// secretlint-disable\n${FAKE_SECRETS['anthropic key']}`]);
    expect(out).not.toContain(FAKE_SECRETS['anthropic key']);
  });

  it('redacts the whole AWS secret key, not the name and a prefix of the key', async () => {
    const r = createRedactor([], secretlintScanner);
    const [out] = await r.redact([FAKE_SECRETS['aws secret access key']!]);
    expect(out).toBe('aws_secret_access_key = "[REDACTED:aws]"');
  });

  it('keeps e-mail, bearer-token and user patterns; a user regex runs in linear time', async () => {
    const r = createRedactor(['/(\\w+\\s?)+$/', 'project-x'], secretlintScanner);
    const [a, b] = await r.redact([
      'mail me at jo.doe@example.org, Authorization: Bearer abcdefghijklmnop1234 about project-x',
      'a'.repeat(20_000) + '!',
    ]);
    expect(a).toContain('[REDACTED:email]');
    expect(a).toContain('Bearer [REDACTED:token]');
    expect(a).toContain('about [REDACTED:custom]');
    expect(b).toBe('a'.repeat(20_000) + '!');
  }, 10_000);

  it('a user pattern RE2 cannot run is a clear error', () => {
    expect(() => createRedactor(['/(a)\\1/'])).toThrow(/^redaction pattern \/\(a\)\\1\/: backreferences/);
  });
});
