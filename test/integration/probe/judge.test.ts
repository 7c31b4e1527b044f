/**
 * The optional judge (src/core/probe/judge.ts) against two real HTTP servers on 127.0.0.1, one
 * playing the probed model and one the judge (test/helpers/fake-model.ts): every recall answer is
 * graded CORRECT/INCORRECT beside the deterministic match, the judge sees the question, the
 * reference and the answer but never the transcript, each endpoint gets only its own key, and a
 * judge that answers neither word leaves a per-answer error, not a hang.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  judgeEstimate,
  parseGrade,
  planProbe,
  probeClient,
  runProbe,
  type ProbeQuestion,
  type ProbeSettings,
} from '../../../src/core/probe/index';
import { replay } from '../../../src/core/replay/index';
import { closeTestServers, startTestServer } from '../../helpers/http-server';
import { fakeModel } from '../../helpers/fake-model';
import { probeSession } from '../../helpers/probe-session';

afterEach(closeTestServers);

/**
 * The reference is longer than what the conversation lets the model say: the model answers
 * "src/invoices/format.ts", which does not hold "/repo/src/invoices/format.ts", so the
 * deterministic match says incorrect; the judge accepts the same file named by a shorter path.
 */
const QUESTION: ProbeQuestion = {
  id: 'q1',
  kind: 'path',
  text: 'Which file path was mentioned together with `formatMoney`? Answer with the path only.',
  expected: '/repo/src/invoices/format.ts',
  messageIndex: 0,
};

async function setup(judgeApi: 'openai' | 'anthropic', judgeReply?: string) {
  const model = await startTestServer(fakeModel());
  const judgeServer = await startTestServer(fakeModel(judgeReply !== undefined ? { judgeReply } : {}));
  const s = probeSession();
  const r = await replay(s, { window: 100_000, tokenizer: 'chars4', pipeline: ['sliding-window'], slidingWindow: 6, triggerMessages: 8 });
  const judgeEndpoint = judgeApi === 'openai' ? judgeServer.url : judgeServer.origin;
  const settings: ProbeSettings = {
    api: 'openai',
    endpoint: model.url,
    model: 'fake-model',
    replicates: 5,
    temperature: 0,
    maxAnswerTokens: 64,
    judge: { api: judgeApi, endpoint: judgeEndpoint, model: 'fake-judge' },
  };
  const plan = planProbe(s, r, r.steps.count - 1, settings, [QUESTION]);
  const client = probeClient({ api: 'openai', endpoint: model.url, apiKey: 'sk-probe-key', timeoutMs: 2_000, retries: 1, backoffMs: 10 });
  const judge = probeClient({
    api: judgeApi,
    endpoint: judgeEndpoint,
    apiKey: 'sk-judge-key',
    timeoutMs: 2_000,
    retries: 1,
    backoffMs: 10,
  });
  return { model, judgeServer, plan, settings, client, judge };
}

describe('the judge', () => {
  it.each(['openai', 'anthropic'] as const)(
    'grades every recall answer over the %s protocol, beside the deterministic match',
    async (api) => {
      const { model, judgeServer, plan, settings, client, judge } = await setup(api);
      const r = await runProbe(plan, 'sliding', settings, client, { judge });
      const t = r.tallies.find((x) => x.task === 'q1')!;
      // Deterministic: "src/invoices/format.ts" does not hold the reference, on either side.
      expect([t.original.k, t.policy.k]).toEqual([0, 0]);
      expect(t.verdict).toBe('inconclusive');
      // The judge: CORRECT 5 of 5 as sent, INCORRECT 5 of 5 once the policy dropped the message.
      // Wilson 95%: 5/5 → [0.566, 1] and 0/5 → [0, 0.434] do not overlap: policy-worse.
      expect(t.judge).toMatchObject({ original: { k: 5, n: 5, errors: 0 }, policy: { k: 0, n: 5, errors: 0 }, verdict: 'policy-worse' });
      const graded = r.answers.filter((a) => a.task === 'q1');
      expect(graded.filter((a) => a.side === 'original').every((a) => a.correct === false && a.judged === true)).toBe(true);
      expect(graded.filter((a) => a.side === 'policy').every((a) => a.judged === false && a.judgeAnswer === 'INCORRECT')).toBe(true);
      // The next action is not graded.
      expect(r.tallies.find((x) => x.task === 'next')!.judge).toBeUndefined();
      // One grade per answer to a question: 2 sides × 5 replicates × 1 question.
      expect(judgeServer.requests).toHaveLength(10);
      expect(judgeServer.requests.every((q) => q.path === (api === 'openai' ? '/v1/chat/completions' : '/v1/messages'))).toBe(true);
      for (const q of judgeServer.requests) {
        const body = JSON.parse(q.body) as { model: string; temperature: number; messages: { content: string }[] };
        expect(body).toMatchObject({ model: 'fake-judge', temperature: 0 });
        expect(body.messages).toHaveLength(1);
        expect(body.messages[0]!.content).toContain('Reference: /repo/src/invoices/format.ts');
        // Never the transcript: none of its messages' words reach the judge.
        expect(q.body).not.toContain('u0 u0');
        expect(q.body).not.toContain('TypeError');
        // Each endpoint gets its own key only.
        expect(q.body + JSON.stringify(q.headers)).not.toContain('sk-probe-key');
        expect(api === 'openai' ? q.headers['authorization'] : q.headers['x-api-key']).toBe(
          api === 'openai' ? 'Bearer sk-judge-key' : 'sk-judge-key',
        );
      }
      expect(model.requests.length).toBe(2 * 5 * 2);
      for (const q of model.requests) expect(q.body + JSON.stringify(q.headers)).not.toContain('sk-judge-key');
    },
  );

  it('a judge that answers neither word: a per-answer grading error, the deterministic score intact', async () => {
    const { plan, settings, client, judge } = await setup('openai', 'Probably fine.');
    const r = await runProbe(plan, 'sliding', settings, client, { judge });
    const graded = r.answers.filter((a) => a.task === 'q1');
    expect(graded).toHaveLength(10);
    for (const a of graded) {
      expect(a.judged).toBeUndefined();
      expect(a.judgeError).toMatch(/the judge answered neither CORRECT nor INCORRECT: "Probably fine\."/);
      expect(a.correct).toBe(false);
      expect(a.error).toBeUndefined();
    }
    expect(r.tallies.find((x) => x.task === 'q1')!.judge).toMatchObject({ original: { n: 0, errors: 5 }, policy: { n: 0, errors: 5 } });
  });

  it('without a judge client nothing is graded and the judge server hears nothing', async () => {
    const { judgeServer, plan, settings, client } = await setup('openai');
    const r = await runProbe(plan, 'sliding', settings, client);
    expect(r.answers.some((a) => a.judged !== undefined || a.judgeError !== undefined)).toBe(false);
    expect(judgeServer.requests).toHaveLength(0);
  });
});

describe('grades and the judge estimate', () => {
  it('INCORRECT is read before CORRECT; anything else is malformed', () => {
    expect(parseGrade('CORRECT')).toBe(true);
    expect(parseGrade('Incorrect.')).toBe(false);
    expect(parseGrade('The answer is correct')).toBe(true);
    expect(() => parseGrade('5/5')).toThrow(/neither CORRECT nor INCORRECT/);
  });

  it('one request per answer to a question, its prompt and the longest answer as input', () => {
    const judge = { api: 'openai' as const, endpoint: 'http://127.0.0.1:9/v1', model: 'qwen2.5:7b' };
    const e = judgeEstimate(judge, [QUESTION], 3, 100);
    // 2 sides × 3 replicates × 1 question = 6 requests; output at most 6 × 16 tokens.
    expect(e.requests).toBe(6);
    expect(e.outputTokens).toBe(96);
    expect(e.cost).toBeNull();
    const priced = judgeEstimate({ ...judge, model: 'claude-sonnet-4-5' }, [QUESTION], 3, 100);
    expect(priced.cost).toBeGreaterThan(0);
    expect(priced.inputTokens).toBe(e.inputTokens);
  });

  it('the plan carries the judge estimate when a judge is set', async () => {
    const { plan } = await setup('openai');
    expect(plan.estimate.judge).toMatchObject({ requests: 10, outputTokens: 160 });
    expect(plan.estimate.judge!.summary).toMatch(
      /10 grading requests to http:\/\/127\.0\.0\.1:\d+\/v1 \(fake-judge\): each a question, the item's value and one answer, no transcript/,
    );
  });
});
