/**
 * A summarizer key goes only to the endpoint it is bound to. Real HTTP servers on 127.0.0.1
 * record the headers they receive: a policy that names another URL gets the transcript only when
 * that URL is loopback or allowed, and never an Authorization / x-api-key header.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/core/config';
import { allowSummarizerUrl, describeSummarizerUrl, summarizerFor, SummarizerSetupError } from '../../../src/main/summarizer';
import { closeTestServers, startTestServer } from '../../helpers/http-server';
import { user } from '../../helpers/session';

afterEach(closeTestServers);

const request = { messages: [user('the deploy key is in vault')], previousSummary: null, targetTokens: 50 };
const noKeychain = async (): Promise<undefined> => undefined;
const cfg = (summarizer: 'openai' | 'anthropic', summarizerUrl?: string) =>
  resolveConfig('letta', { summarizer, summarizerModel: 'm', ...(summarizerUrl ? { summarizerUrl } : {}) });

describe('the summarizer key is bound to its endpoint', () => {
  it('a policy URL (loopback) gets the transcript but not the OPENAI_API_KEY of the environment', async () => {
    const { url, requests } = await startTestServer();
    const s = await summarizerFor(cfg('openai', url), undefined, { OPENAI_API_KEY: 'sk-user-secret-key-000000' }, { keychain: noKeychain });
    expect(await s!.summarize(request)).toBe('ok summary');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.headers.authorization).toBeUndefined();
  });

  it('nor the Anthropic key (x-api-key)', async () => {
    const { url, requests } = await startTestServer();
    const s = await summarizerFor(cfg('anthropic', url), undefined, { ANTHROPIC_API_KEY: 'sk-ant-user-secret' }, { keychain: noKeychain });
    await s!.summarize(request);
    expect(requests[0]!.headers['x-api-key']).toBeUndefined();
  });

  it('an environment key goes to CTXSCOPE_SUMMARIZER_URL when that is set beside it', async () => {
    const { url, requests } = await startTestServer();
    const env = { OPENAI_API_KEY: 'sk-bound-here', CTXSCOPE_SUMMARIZER_URL: url + '/' };
    const s = await summarizerFor(cfg('openai', url), undefined, env, { keychain: noKeychain });
    await s!.summarize(request);
    expect(requests[0]!.headers.authorization).toBe('Bearer sk-bound-here');
  });

  it('a keychain key goes to the URL it was stored for, and not to another server', async () => {
    const a = await startTestServer();
    const b = await startTestServer();
    const keychain = async (): Promise<string> => JSON.stringify({ key: 'sk-stored-for-a', url: a.url });
    await (await summarizerFor(cfg('openai', a.url), undefined, {}, { keychain }))!.summarize(request);
    await (await summarizerFor(cfg('openai', b.url), undefined, {}, { keychain }))!.summarize(request);
    expect(a.requests[0]!.headers.authorization).toBe('Bearer sk-stored-for-a');
    expect(b.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('a key stored before binding (a bare string) is bound to the official endpoint only', async () => {
    const { url, requests } = await startTestServer();
    await (await summarizerFor(cfg('openai', url), undefined, {}, { keychain: async () => 'sk-legacy-bare' }))!.summarize(request);
    expect(requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe('which endpoints a policy may name', () => {
  it('refuses a non-loopback URL from a file, naming the host and how to allow it', async () => {
    const run = summarizerFor(
      cfg('openai', 'http://collector.example.net:8080/v1'),
      undefined,
      { OPENAI_API_KEY: 'sk-x' },
      { keychain: noKeychain },
    );
    await expect(run).rejects.toThrow(SummarizerSetupError);
    await expect(run).rejects.toThrow(/collector\.example\.net:8080.*--allow-summarizer-url http:\/\/collector\.example\.net:8080\/v1/);
  });

  it('accepts it once allowed (CLI flag or the app host), still without the key', async () => {
    let sent: Record<string, string> | undefined;
    const fakeFetch = (async (_url: string, init: { headers: Record<string, string> }) => {
      sent = init.headers;
      return new Response(JSON.stringify({ choices: [{ message: { content: 'fine' } }] }), { status: 200 });
    }) as unknown as typeof fetch;
    allowSummarizerUrl('http://allowed.example.net/v1/');
    const s = await summarizerFor(
      cfg('openai', 'http://allowed.example.net/v1'),
      undefined,
      { OPENAI_API_KEY: 'sk-env' },
      { keychain: noKeychain, fetch: fakeFetch },
    );
    expect(await s!.summarize(request)).toBe('fine');
    expect(sent?.['authorization']).toBeUndefined();
    const viaEnv = summarizerFor(
      cfg('openai', 'http://workers.example.net/v1'),
      undefined,
      { CTXSCOPE_ALLOW_SUMMARIZER_URL: 'http://workers.example.net/v1' },
      { keychain: noKeychain },
    );
    await expect(viaEnv).resolves.toBeDefined();
  });

  it('refuses non-http(s) schemes and link-local / metadata hosts, whatever is allowed', async () => {
    for (const url of [
      'file:///etc/passwd',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:169.254.169.254]/v1',
      'http://[fe80::1]/v1',
      'http://2852039166/v1',
      'http://metadata.google.internal/v1',
      'ftp://127.0.0.1/v1',
    ]) {
      // Refused where the config is read (a saved or imported policy, --set, a config file)…
      expect(() => cfg('openai', url), url).toThrow(/summarizerUrl/);
      // …and again by the host before anything is sent, should a config reach it unvalidated.
      const raw = { ...cfg('openai'), summarizerUrl: url };
      await expect(summarizerFor(raw, undefined, {}, { keychain: noKeychain }), url).rejects.toThrow(SummarizerSetupError);
      expect(() => allowSummarizerUrl(url), url).toThrow();
    }
  });

  it('only literal loopback counts as loopback (a *.localhost name may reach DNS)', async () => {
    await expect(summarizerFor(cfg('openai', 'http://evil.localhost:8080/v1'), undefined, {}, { keychain: noKeychain })).rejects.toThrow(
      /--allow-summarizer-url/,
    );
    await expect(summarizerFor(cfg('openai', 'http://[::1]:8080/v1'), undefined, {}, { keychain: noKeychain })).resolves.toBeDefined();
    await expect(summarizerFor(cfg('openai', 'http://127.8.9.10:8080/v1'), undefined, {}, { keychain: noKeychain })).resolves.toBeDefined();
  });

  it('policies --check describes the endpoint', () => {
    expect(describeSummarizerUrl({ summarizer: 'openai', summarizerUrl: 'http://anyone.example/v1' })).toMatch(
      /REMOTE host anyone\.example.*--allow-summarizer-url/,
    );
    expect(describeSummarizerUrl({ summarizer: 'openai', summarizerUrl: 'http://localhost:11434/v1' })).toMatch(/loopback/);
    expect(describeSummarizerUrl({ summarizer: 'openai', summarizerUrl: 'https://api.openai.com/v1/' })).toMatch(/openai's own endpoint/);
    expect(() => describeSummarizerUrl({ summarizer: 'openai', summarizerUrl: 'http://169.254.169.254/' })).toThrow(/link-local/);
    expect(describeSummarizerUrl({ summarizer: 'extractive' })).toBe('');
  });
});
