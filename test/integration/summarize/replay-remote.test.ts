/**
 * A replay that summarizes through a real OpenAI-compatible server on 127.0.0.1: the config picks
 * the summarizer, the host hands in the key, the summary lands in the compression event, a second
 * replay is served from the cache, and a dead server becomes an event while the replay goes on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/core/config';
import type { Message } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import { createSummarizer, memoryStore } from '../../../src/core/summarize/index';
import { closeTestServers, startTestServer, summaryAnswer } from '../../helpers/http-server';
import { assistant, session, user } from '../../helpers/session';

afterEach(closeTestServers);

const filler = (tokens: number, tag: string): string => `${tag} `.repeat(tokens * 2).slice(0, tokens * 4);
function chat(turns: number): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) out.push(user(filler(100, `u${t}`)), assistant(filler(100, `a${t}`)));
  return out;
}

describe('replay with a remote summarizer', () => {
  it('summarizes through the server once, then from the cache', async () => {
    const server = await startTestServer((req, body, res, n) => summaryAnswer(`Remote summary ${n + 1}.`)(req, body, res, n));
    const url = server.url;
    const config = resolveConfig('letta', {
      tokenizer: 'chars4',
      window: 4_000,
      summarizer: 'openai',
      summarizerModel: 'local',
      summarizerUrl: url,
    });
    const store = memoryStore();
    const summarizer = createSummarizer(config, { apiKey: 'sk-local', store });
    const s = session(chat(20));
    const a = await replay(s, config, { summarizer });
    const first = a.events.find((e) => e.kind === 'compression');
    expect(first).toMatchObject({ summary: 'Remote summary 1.' });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-local');
    const asked = server.requests.length;
    expect(asked).toBeGreaterThan(0);
    const b = await replay(s, config, { summarizer: createSummarizer(config, { apiKey: 'sk-local', store }) });
    expect(server.requests.length).toBe(asked);
    expect(JSON.stringify(b.events)).toBe(JSON.stringify(a.events));
  });

  it('a server that is down is a summarizer-failure event; the replay still completes', async () => {
    // A port that was just free: nothing listens there any more.
    const gone = await startTestServer();
    const port = new URL(gone.origin).port;
    await gone.close();
    const config = resolveConfig('letta', {
      tokenizer: 'chars4',
      window: 4_000,
      summarizer: 'openai',
      summarizerModel: 'local',
      summarizerUrl: `http://127.0.0.1:${port}/v1`,
    });
    const r = await replay(session(chat(20)), config, {
      summarizer: createSummarizer(config, { retries: 1, backoffMs: 1, timeoutMs: 2_000 }),
    });
    expect(r.events.some((e) => e.kind === 'summarizer-failure')).toBe(true);
    expect(r.steps.count).toBe(20);
    expect(r.totals.compressions).toBeGreaterThan(0);
  });

  it('asks for a model name, and warns when the host gave no remote summarizer', async () => {
    expect(() => createSummarizer(resolveConfig('letta', { summarizer: 'anthropic' }))).toThrow(/set summarizerModel/);
    const r = await replay(session(chat(3)), resolveConfig('letta', { tokenizer: 'chars4', summarizer: 'anthropic' }));
    expect(r.events[0]).toMatchObject({
      kind: 'warning',
      step: 0,
      text: expect.stringMatching(/summarizer "anthropic" was not provided by the host/),
    });
  });
});
