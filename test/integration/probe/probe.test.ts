/**
 * The probe against a real HTTP server on 127.0.0.1 (test/helpers/http-server.ts) playing a model
 * that answers from what it was sent (test/helpers/fake-model.ts), in both protocols: recall is
 * right under the original request and wrong once the policy dropped the fact; replicates and
 * Wilson intervals decide the verdict; faults end as per-replicate errors, never a hang.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { planProbe, probeClient, runProbe, type ProbeSettings } from '../../../src/core/probe/index';
import { replay } from '../../../src/core/replay/index';
import { closeTestServers, startTestServer, type Handler } from '../../helpers/http-server';
import { fakeModel } from '../../helpers/fake-model';
import { probeSession } from '../../helpers/probe-session';

afterEach(closeTestServers);

async function setup(api: 'openai' | 'anthropic', handler: Handler, replicates: number) {
  const server = await startTestServer(handler);
  const s = probeSession();
  // Keep the last 6 messages: the first test run leaves the window long before the end.
  const r = await replay(s, { window: 100_000, tokenizer: 'chars4', pipeline: ['sliding-window'], slidingWindow: 6, triggerMessages: 8 });
  const step = r.steps.count - 1;
  const settings: ProbeSettings = {
    api,
    endpoint: api === 'openai' ? server.url : server.origin,
    model: 'fake-model',
    replicates,
    temperature: 0,
    maxAnswerTokens: 64,
  };
  const plan = planProbe(s, r, step, settings, 'auto');
  return { server, plan, settings, client: probeClient({ api, endpoint: settings.endpoint, timeoutMs: 2_000, retries: 2, backoffMs: 20 }) };
}

describe.each(['openai', 'anthropic'] as const)('probe over the %s protocol', (api) => {
  it('asks about the error the policy dropped: right N of N as sent, wrong under the policy, a verdict at 5 replicates', async () => {
    const { server, plan, settings, client } = await setup(api, fakeModel(), 5);
    const q = plan.questions.find((x) => x.kind === 'error');
    expect(q).toMatchObject({
      text: 'What exact error did `npm test` print? Answer with the error line only.',
      expected: 'TypeError: formatMoney is not a function',
    });
    const r = await runProbe(plan, 'sliding', settings, client);
    const t = r.tallies.find((x) => x.task === q!.id)!;
    expect(t.original).toMatchObject({ k: 5, n: 5, errors: 0 });
    expect(t.policy).toMatchObject({ k: 0, n: 5, errors: 0 });
    // Wilson 95%: 5/5 → [0.566, 1], 0/5 → [0, 0.434]: apart.
    expect(t.original.interval.low).toBeCloseTo(0.566, 3);
    expect(t.policy.interval.high).toBeCloseTo(0.434, 3);
    expect(t.verdict).toBe('policy-worse');
    // Every request reached the server: 2 sides × 5 replicates × (next action + questions).
    expect(server.requests).toHaveLength(2 * 5 * (1 + plan.questions.length));
    expect(server.requests.every((x) => x.path === (api === 'openai' ? '/v1/chat/completions' : '/v1/messages'))).toBe(true);
    // The next action: the fake repeats the last call it was sent; the agent answered in text.
    expect(plan.recorded.kind).toBe('text');
    const next = r.tallies.find((x) => x.task === 'next')!;
    expect(next.original.k + next.policy.k).toBe(0);
    // A tool call where the agent wrote text: "other-tool" on both sides, so no difference to see.
    expect(r.answers.filter((a) => a.task === 'next').map((a) => a.match)).toEqual(Array(10).fill('other-tool'));
    expect(next.verdict).toBe('inconclusive');
  });

  it('the same difference at 3 replicates is inconclusive: 3/3 → [0.44, 1] and 0/3 → [0, 0.56] overlap', async () => {
    const { plan, settings, client } = await setup(api, fakeModel(), 3);
    const r = await runProbe(plan, 'sliding', settings, client);
    const q = plan.questions.find((x) => x.kind === 'error')!;
    const t = r.tallies.find((x) => x.task === q.id)!;
    expect([t.original.k, t.policy.k]).toEqual([3, 0]);
    expect(t.verdict).toBe('inconclusive');
  });
});

describe('probe replicates and faults', () => {
  it('a model answering at random gives mixed counts and no verdict', async () => {
    const { plan, settings, client } = await setup('openai', fakeModel({ random: 7 }), 6);
    const r = await runProbe(plan, 'sliding', settings, client);
    const q = plan.questions.find((x) => x.kind === 'error')!;
    const t = r.tallies.find((x) => x.task === q.id)!;
    // Under the policy the fact is gone: never right. As sent: right about half the time.
    expect(t.policy.k).toBe(0);
    expect(t.original.k).toBeGreaterThan(0);
    expect(t.original.k).toBeLessThan(6);
    expect(t.verdict).toBe('inconclusive');
  });

  const faults: { name: string; handler: () => Handler; error: RegExp; attempts: number }[] = [
    {
      name: 'a server that never answers (timeout)',
      handler: () => (_q, _b, res: ServerResponse) => void res.on('close', () => undefined),
      error: /timed out after 300 ms/,
      attempts: 3,
    },
    { name: '500 on every request', handler: () => (_q, _b, res) => (res.writeHead(500), res.end()), error: /HTTP 500/, attempts: 3 },
    {
      name: 'an answer that is not JSON',
      handler: () => (_q, _b, res) => (res.writeHead(200, { 'content-type': 'application/json' }), res.end('{"choices": [')),
      error: /invalid JSON.*after 3 attempts/,
      attempts: 3,
    },
    {
      name: 'JSON without a message',
      handler: () => (_q, _b, res) => (res.writeHead(200, { 'content-type': 'application/json' }), res.end('{"choices": []}')),
      error: /malformed answer.*no choices\[0\]\.message.*after 3 attempts/,
      attempts: 3,
    },
  ];
  for (const f of faults) {
    it(`${f.name}: each replicate ends as an error after its retries`, async () => {
      const server = await startTestServer(f.handler());
      const s = probeSession();
      const r = await replay(s, {
        window: 100_000,
        tokenizer: 'chars4',
        pipeline: ['sliding-window'],
        slidingWindow: 6,
        triggerMessages: 8,
      });
      const settings: ProbeSettings = {
        api: 'openai',
        endpoint: server.url,
        model: 'fake-model',
        replicates: 1,
        temperature: 0,
        maxAnswerTokens: 16,
      };
      const plan = planProbe(s, r, r.steps.count - 1, settings, []);
      const client = probeClient({ api: 'openai', endpoint: server.url, timeoutMs: 300, retries: 2, backoffMs: 10 });
      const out = await runProbe(plan, 'sliding', settings, client);
      expect(out.answers).toHaveLength(2);
      for (const a of out.answers) expect(a.error).toMatch(f.error);
      // Retries are bounded: 3 attempts per request (the malformed ones: 3 answers, each read once).
      expect(server.requests).toHaveLength(2 * f.attempts);
      expect(out.tallies[0]!.original).toMatchObject({ k: 0, n: 0, errors: 1 });
      expect(out.tallies[0]!.verdict).toBe('inconclusive');
    });
  }

  it('429 with Retry-After: waits as told, then the answer counts', async () => {
    const times: number[] = [];
    const ok = fakeModel();
    const server = await startTestServer((req, body, res, n) => {
      times.push(Date.now());
      if (n === 0) {
        res.writeHead(429, { 'retry-after': '1' });
        res.end();
      } else ok(req, body, res, n);
    });
    const s = probeSession();
    const r = await replay(s, { window: 100_000, tokenizer: 'chars4', pipeline: ['sliding-window'], slidingWindow: 6, triggerMessages: 8 });
    const settings: ProbeSettings = {
      api: 'openai',
      endpoint: server.url,
      model: 'fake-model',
      replicates: 1,
      temperature: 0,
      maxAnswerTokens: 16,
    };
    const plan = planProbe(s, r, r.steps.count - 1, settings, []);
    const out = await runProbe(
      plan,
      'sliding',
      settings,
      probeClient({ api: 'openai', endpoint: server.url, timeoutMs: 2_000, retries: 2, backoffMs: 10 }),
    );
    expect(out.answers.every((a) => a.error === undefined)).toBe(true);
    // Retry-After: 1 → the second request at least a second after the first (not the 10 ms backoff).
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });

  it('a redirect is never followed: the request fails where it was sent', async () => {
    const elsewhere = await startTestServer(fakeModel());
    const server = await startTestServer(
      (_q, _b, res) => (res.writeHead(307, { location: `${elsewhere.url}/chat/completions` }), res.end()),
    );
    const client = probeClient({
      api: 'openai',
      endpoint: server.url,
      apiKey: 'sk-bound-to-the-first-0123456789',
      timeoutMs: 1_000,
      retries: 0,
    });
    await expect(client({ model: 'm', messages: [] })).rejects.toThrow();
    expect(elsewhere.requests).toHaveLength(0);
  });
});
