/**
 * The summarizer clients against real HTTP servers on 127.0.0.1 that speak each protocol:
 * S3's prompt goes out, the text comes back, failures retry with backoff and then fail clearly,
 * and a cached summarizer never asks twice for the same input.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cached, memoryStore } from '../../../src/core/summarize/cache';
import { anthropicSummarizer, openaiCompatibleSummarizer } from '../../../src/core/summarize/remote';
import { closeTestServers, startTestServer, summaryAnswer, type Handler, type TestServer } from '../../helpers/http-server';
import { assistant, user } from '../../helpers/session';

let server: TestServer | undefined;
afterEach(closeTestServers);

async function serve(handler: Handler): Promise<string> {
  server = await startTestServer(handler);
  return server.origin;
}

const request = {
  messages: [user('Fix ORD-1187 in totals.ts'), assistant('Root cause: VAT before discount.')],
  previousSummary: null,
  targetTokens: 300,
};

describe('summarizer clients', () => {
  it("OpenAI-compatible: posts S3's prompt to /chat/completions with the key", async () => {
    const seen: { path?: string; auth?: string; prompt?: string; max?: number } = {};
    const base = await serve((req, body, res) => {
      const j = JSON.parse(body) as { messages: { content: string }[]; max_tokens: number };
      Object.assign(seen, { path: req.url, auth: req.headers.authorization, prompt: j.messages[0]!.content, max: j.max_tokens });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Summary: ORD-1187 fixed.' } }] }));
    });
    const s = openaiCompatibleSummarizer({ baseUrl: `${base}/v1`, model: 'local-model', apiKey: 'sk-test' });
    expect(await s.summarize(request)).toBe('Summary: ORD-1187 fixed.');
    expect(seen.path).toBe('/v1/chat/completions');
    expect(seen.auth).toBe('Bearer sk-test');
    expect(seen.prompt).toMatch(/Keep the summary under 300 tokens\./);
    expect(seen.prompt).toMatch(/Use the SAME LANGUAGE as the conversation\./);
    expect(seen.prompt).toMatch(/ORD-1187/);
    expect(seen.max).toBe(300);
  });

  it('Anthropic: posts to /v1/messages with x-api-key and reads content blocks', async () => {
    const seen: { path?: string; key?: string; version?: string } = {};
    const base = await serve((req, _body, res) => {
      Object.assign(seen, { path: req.url, key: req.headers['x-api-key'], version: req.headers['anthropic-version'] });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'message', content: [{ type: 'text', text: 'A short summary.' }] }));
    });
    const s = anthropicSummarizer({ baseUrl: base, model: 'claude-haiku-4-5', apiKey: 'k' });
    expect(await s.summarize(request)).toBe('A short summary.');
    expect(seen).toEqual({ path: '/v1/messages', key: 'k', version: '2023-06-01' });
  });

  it('never follows a redirect: the key and the transcript stay with the endpoint they were bound to', async () => {
    // A second server the redirect points at; it must never see a request.
    const other = await startTestServer(summaryAnswer('stolen'));
    const otherUrl = `${other.url}/chat/completions`;
    try {
      let hits = 0;
      const base = await serve((_req, _body, res) => {
        hits++;
        res.writeHead(307, { location: otherUrl });
        res.end();
      });
      const s = openaiCompatibleSummarizer({ baseUrl: `${base}/v1`, model: 'm', apiKey: 'sk-bound', retries: 1, backoffMs: 5 });
      await expect(s.summarize(request)).rejects.toThrow();
      expect(hits).toBeGreaterThan(0);
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('retries 5xx with backoff, then succeeds; a 4xx fails at once with a clear error', async () => {
    let calls = 0;
    const base = await serve((_req, _body, res) => {
      calls++;
      if (calls < 3) {
        res.writeHead(503);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { content: 'ok' } }] }));
    });
    const s = openaiCompatibleSummarizer({ baseUrl: base, model: 'm', retries: 2, backoffMs: 5 });
    expect(await s.summarize(request)).toBe('ok');
    expect(calls).toBe(3);
    await server!.close();
    let denied = 0;
    const base2 = await serve((_req, _body, res) => {
      denied++;
      res.writeHead(401);
      res.end();
    });
    await expect(openaiCompatibleSummarizer({ baseUrl: base2, model: 'm', retries: 3, backoffMs: 5 }).summarize(request)).rejects.toThrow(
      /HTTP 401/,
    );
    expect(denied).toBe(1);
  });

  it('retries a 429 that says Retry-After', async () => {
    let calls = 0;
    const base = await serve((_req, _body, res) => {
      calls++;
      if (calls === 1) {
        res.writeHead(429, { 'retry-after': '0' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'message', content: [{ type: 'text', text: 'after the wait' }] }));
    });
    expect(await anthropicSummarizer({ baseUrl: base, model: 'm', retries: 1, backoffMs: 60_000 }).summarize(request)).toBe(
      'after the wait',
    );
    expect(calls).toBe(2);
  });

  it('times out a server that never answers', async () => {
    const base = await serve(() => {
      /* never answers */
    });
    await expect(openaiCompatibleSummarizer({ baseUrl: base, model: 'm', retries: 0, timeoutMs: 100 }).summarize(request)).rejects.toThrow(
      /timed out after 100 ms/,
    );
  });

  it('caches by (input, prompt, model): the same request is asked once', async () => {
    let calls = 0;
    const base = await serve((_req, _body, res) => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { content: `summary ${calls}` } }] }));
    });
    const s = cached(openaiCompatibleSummarizer({ baseUrl: base, model: 'm' }), memoryStore());
    expect(await s.summarize(request)).toBe('summary 1');
    expect(await s.summarize(request)).toBe('summary 1');
    expect(await s.summarize({ ...request, targetTokens: 100 })).toBe('summary 2');
    expect(calls).toBe(2);
  });
});
