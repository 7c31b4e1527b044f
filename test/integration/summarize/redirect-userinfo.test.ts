/**
 * A summarizer that answers 3xx fails, is never followed and never retried, and the summarizer
 * sends nothing more after it: a replay with many compressions makes one request, not three per
 * compression. A summarizer URL with userinfo is refused, and its password is never shown — not
 * in the error, not in `summarizer-failure` events, not in `replay --json`'s output. Real HTTP
 * servers on 127.0.0.1 count the requests.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../../src/core/config';
import type { Message } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import { createSummarizer } from '../../../src/core/summarize/index';
import { anthropicSummarizer, openaiCompatibleSummarizer, shownUrl, summarizerUrlProblem } from '../../../src/core/summarize/remote';
import { closeTestServers, startTestServer, summaryAnswer, type TestServer } from '../../helpers/http-server';
import { assistant, session, user } from '../../helpers/session';

afterEach(closeTestServers);

const request = { messages: [user('Fix ORD-1187'), assistant('Done.')], previousSummary: null, targetTokens: 200 };
const filler = (tokens: number, tag: string): string => `${tag} `.repeat(tokens * 2).slice(0, tokens * 4);
const chat = (turns: number): Message[] =>
  Array.from({ length: turns }, (_, t) => [user(filler(100, `u${t}`)), assistant(filler(100, `a${t}`))]).flat();

/** A server that redirects every request to `target` with `status`. */
const redirecting = (status: number, target: string): Promise<TestServer> =>
  startTestServer((_req, _body, res) => {
    res.writeHead(status, { location: target });
    res.end();
  });

describe('a summarizer answering 3xx', () => {
  for (const status of [301, 302, 307, 308]) {
    it(`HTTP ${status}: one request, no retry, nothing sent to the redirect's target, a clear error`, async () => {
      const target = await startTestServer(summaryAnswer('stolen'));
      const server = await redirecting(status, `${target.url}/chat/completions`);
      const s = openaiCompatibleSummarizer({ baseUrl: server.url, model: 'm', apiKey: 'sk-bound', retries: 3, backoffMs: 1 });
      await expect(s.summarize(request)).rejects.toThrow(
        new RegExp(`answered HTTP ${status} \\(a redirect\\): redirects are never followed nor retried`),
      );
      expect(server.requests).toHaveLength(1);
      expect(target.requests).toEqual([]);
      // The same summarizer asked again sends nothing: the endpoint is known to redirect.
      await expect(s.summarize(request)).rejects.toThrow(/a redirect/);
      expect(server.requests).toHaveLength(1);
    });
  }

  it('Anthropic too', async () => {
    const server = await redirecting(302, 'http://127.0.0.1:9/elsewhere');
    const s = anthropicSummarizer({ baseUrl: server.origin, model: 'claude', apiKey: 'k', retries: 2, backoffMs: 1 });
    await expect(s.summarize(request)).rejects.toThrow(/HTTP 302 \(a redirect\)/);
    expect(server.requests).toHaveLength(1);
  });

  it('a replay with many compressions makes one request in all, and each compression records the failure', async () => {
    const server = await redirecting(307, 'http://127.0.0.1:9/v1/chat/completions');
    const config = resolveConfig('letta', {
      tokenizer: 'chars4',
      window: 4_000,
      summarizer: 'openai',
      summarizerModel: 'local',
      summarizerUrl: server.url,
    });
    const r = await replay(session(chat(40)), config, {
      summarizer: createSummarizer(config, { apiKey: 'sk-local', retries: 2, backoffMs: 1 }),
    });
    const failures = r.events.filter((e) => e.kind === 'summarizer-failure');
    // Several compressions asked, the server saw the first only (it was 3 a compression with retries before).
    expect(failures.length).toBeGreaterThan(1);
    expect(server.requests).toHaveLength(1);
    expect(r.steps.count).toBe(40);
  });
});

describe('a summarizer URL with userinfo', () => {
  const secretUrl = 'http://alice:hunter2-secret@127.0.0.1:9/v1';

  it('is refused, and the message masks the userinfo', () => {
    const problem = summarizerUrlProblem(secretUrl)!;
    expect(problem).toMatch(/credentials in the URL \(user:password@\) are not allowed/);
    expect(problem).toContain('http://***@127.0.0.1:9/v1');
    expect(problem).not.toMatch(/hunter2|alice/);
    expect(() => resolveConfig('letta', { summarizer: 'openai', summarizerModel: 'm', summarizerUrl: secretUrl })).toThrow(ConfigError);
    try {
      resolveConfig('letta', { summarizer: 'openai', summarizerModel: 'm', summarizerUrl: secretUrl });
    } catch (e) {
      expect(String((e as Error).message)).not.toMatch(/hunter2/);
    }
    // A user name alone is credentials too; so is a password with no name.
    expect(summarizerUrlProblem('http://bob@127.0.0.1/v1')).toMatch(/credentials/);
    expect(summarizerUrlProblem('http://:pw@127.0.0.1/v1')).toMatch(/credentials/);
    expect(() => openaiCompatibleSummarizer({ baseUrl: secretUrl, model: 'm' })).toThrow(/credentials/);
  });

  it('shownUrl masks userinfo even in a URL the parser refuses', () => {
    expect(shownUrl('http://u:p@host:99/x?y')).toBe('http://***@host:99/x?y');
    expect(shownUrl('https://u:p@[bad/x')).toBe('https://***@[bad/x');
    expect(shownUrl('http://host/a@b')).toBe('http://host/a@b');
  });

  it('`replay --json` refuses it without echoing the password (stdout and stderr)', () => {
    const root = join(__dirname, '../../..');
    const sample = join(root, 'resources/sample/sample-session.jsonl');
    let out = '';
    let code = 0;
    try {
      out = execFileSync(
        process.execPath,
        [
          join(root, 'node_modules/tsx/dist/cli.mjs'),
          join(root, 'src/cli/index.ts'),
          'replay',
          sample,
          '--policy',
          's2',
          '--set',
          'summarizer=openai',
          '--set',
          'summarizerModel=m',
          '--set',
          `summarizerUrl=${secretUrl}`,
          '--json',
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
    } catch (e) {
      const x = e as { status: number; stdout: string; stderr: string };
      code = x.status;
      out = x.stdout + x.stderr;
    }
    expect(code).not.toBe(0);
    expect(out).toMatch(/credentials in the URL/);
    expect(out).not.toMatch(/hunter2|alice/);
  });
});
