/**
 * The export dialog's count of what will be redacted, by kind: each built-in set (credentials by
 * secretlint and the key patterns, bearer tokens, e-mail addresses) and a user pattern, each one
 * switchable, and the per-line problems of user patterns.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor, exportRedacted, patternProblems, sessionInput } from '../../../src/core/export/index';
import { secretlintScanner } from '../../../src/main/secret-scan';
import { assistant, session, user } from '../../helpers/session';
import { FAKE_SECRETS } from '../security/fake-secrets';

const GITHUB = FAKE_SECRETS['github classic token']!;
const BEARER = 'Authorization: Bearer abcdefghijklmnop0123456789';
const TEXT = `deploy with ${GITHUB}; ${BEARER}; mail ana@example.com and bo@example.org about ORD-1187 and ORD-2`;

describe('redaction counts by kind', () => {
  it('counts each built-in kind and a user pattern', async () => {
    const r = createRedactor(['/ORD-\\d+/'], secretlintScanner);
    const [out] = await r.redact([TEXT]);
    expect(r.byKind).toEqual({ github: 1, token: 1, email: 2, custom: 2 });
    expect(r.count).toBe(6);
    expect(out).toBe(
      'deploy with [REDACTED:github]; Authorization: Bearer [REDACTED:token]; mail [REDACTED:email] and [REDACTED:email] about [REDACTED:custom] and [REDACTED:custom]',
    );
  });

  it('a key the scanner does not know is counted by the key patterns (api-key, aws, jwt, stripe)', async () => {
    const r = createRedactor([]);
    await r.redact([
      `${FAKE_SECRETS['openai key without marker']} ${FAKE_SECRETS['aws access key id']} ${FAKE_SECRETS.jwt} ${FAKE_SECRETS['stripe live key']}`,
    ]);
    expect(r.byKind).toEqual({ 'api-key': 1, aws: 1, jwt: 1, stripe: 1 });
  });

  it('each built-in set can be switched off on its own', async () => {
    const count = async (builtins: ('keys' | 'bearer' | 'email')[]) => {
      const r = createRedactor([], secretlintScanner, { builtins });
      await r.redact([TEXT]);
      return r.byKind;
    };
    expect(await count(['bearer', 'email'])).toEqual({ token: 1, email: 2 });
    expect(await count(['keys', 'email'])).toEqual({ github: 1, email: 2 });
    expect(await count(['keys', 'bearer'])).toEqual({ github: 1, token: 1 });
    expect(await count([])).toEqual({});
  });

  it('an export reports its counts by kind across every string it holds', async () => {
    const s = session([user(`write to ana@example.com, ${BEARER}`), assistant('sent to ana@example.com')], {
      systemPrompt: 'support is at help@example.com',
    });
    const e = await exportRedacted(sessionInput(s), 'openai', { scanner: secretlintScanner, patterns: ['sent'], title: 'mail' });
    expect(e.byKind).toEqual({ email: 3, token: 1, custom: 1 });
    expect(e.redactions).toBe(5);
    const off = await exportRedacted(sessionInput(s), 'openai', { scanner: secretlintScanner, builtins: ['keys'], title: 'mail' });
    expect(off.byKind).toEqual({});
    expect(off.text).toContain('ana@example.com');
  });

  it('marks every user pattern that does not compile, with the reason', () => {
    const problems = patternProblems(['ORD-', '/(a)\\1/', '/ok\\d+/', '/[unclosed/', '/x/q']);
    expect(problems[0]).toBeNull();
    expect(problems[1]).toMatch(/backreferences/);
    expect(problems[2]).toBeNull();
    expect(problems[3]).toMatch(/not a valid regular expression/);
    expect(problems[4]).toMatch(/flag "q"/);
  });
});
