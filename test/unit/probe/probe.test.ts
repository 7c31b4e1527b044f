/** The probe's pure parts (src/core/probe): Wilson intervals and verdicts, scoring, next-action comparison, questions, requests and the estimate. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bodyFor,
  compareAction,
  estimate,
  originalInput,
  planProbe,
  probeSteps,
  questionsFrom,
  scoreAnswer,
  verdict,
  wilson,
  type ProbeSettings,
} from '../../../src/core/probe/index';
import { replay } from '../../../src/core/replay/index';
import type { LossLedger } from '../../../src/core/replay/ledger';
import { assistant, call, msg, result, session, user } from '../../helpers/session';

const settings: ProbeSettings = {
  api: 'openai',
  endpoint: 'http://127.0.0.1:11434/v1',
  model: 'qwen2.5:7b',
  replicates: 3,
  temperature: 0.7,
  maxAnswerTokens: 100,
};

describe('Wilson 95% intervals and verdicts', () => {
  it('matches the formula worked by hand', () => {
    // k = 3, n = 3, z = 1.96: centre = (1 + 3.8416/6) / (1 + 3.8416/3) = 1.6403 / 2.2805 = 0.7193;
    // half = 1.96 × sqrt(0 + 3.8416/36) / 2.2805 = 1.96 × 0.32667 / 2.2805 = 0.2808 → [0.4385, 1].
    const i = wilson(3, 3);
    expect(i.low).toBeCloseTo(0.4385, 3);
    expect(i.high).toBe(1);
    // k = 0 mirrors it: [0, 0.5615].
    expect(wilson(0, 3).high).toBeCloseTo(0.5615, 3);
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 });
  });

  it('a verdict only where the intervals do not overlap', () => {
    expect(verdict({ k: 3, n: 3 }, { k: 0, n: 3 })).toBe('inconclusive');
    expect(verdict({ k: 5, n: 5 }, { k: 0, n: 5 })).toBe('policy-worse');
    expect(verdict({ k: 0, n: 5 }, { k: 5, n: 5 })).toBe('policy-better');
  });

  it('an interval always holds the observed rate, inside [0, 1]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 200 }), (n, k0) => {
        const k = k0 % (n + 1);
        const i = wilson(k, n);
        expect(i.low).toBeGreaterThanOrEqual(0);
        expect(i.high).toBeLessThanOrEqual(1);
        expect(i.low).toBeLessThanOrEqual(k / n + 1e-12);
        expect(i.high).toBeGreaterThanOrEqual(k / n - 1e-12);
      }),
    );
  });
});

describe('scoring', () => {
  it('a path or identifier: contained, case and quotes aside', () => {
    expect(scoreAnswer('path', 'src/invoices/format.ts', 'It is `SRC/invoices/format.ts`.')).toBe(true);
    expect(scoreAnswer('path', 'src/invoices/format.ts', 'src/invoices/render.ts')).toBe(false);
  });
  it('an error: its line, or its message after the exception name', () => {
    expect(scoreAnswer('error', 'TypeError: formatMoney is not a function', 'it said formatMoney is not a function')).toBe(true);
    expect(scoreAnswer('error', 'TypeError: formatMoney is not a function', 'a TypeError')).toBe(false);
  });
  it('a decision: 60% of its longer words', () => {
    // Words of 4+ letters: chose, roundhalfeven, because, banks → the answer has roundhalfeven, because, banks = 3/4.
    expect(scoreAnswer('decision', 'We chose roundHalfEven because banks use it.', 'roundHalfEven, because banks do')).toBe(true);
    expect(scoreAnswer('decision', 'We chose roundHalfEven because banks use it.', 'we used floats')).toBe(false);
  });
});

describe('next action', () => {
  const recorded = { kind: 'tool' as const, name: 'Read', args: '{"file_path":"a.ts","limit":10}' };
  it('same call (arguments compared as JSON), same tool, other tool, text instead', () => {
    expect(compareAction(recorded, { text: '', tool: { name: 'Read', args: '{"limit":10,"file_path":"a.ts"}' } })).toEqual({
      match: 'same-call',
      success: true,
    });
    expect(compareAction(recorded, { text: '', tool: { name: 'Read', args: '{"file_path":"b.ts"}' } })).toEqual({
      match: 'same-tool',
      success: false,
    });
    expect(compareAction(recorded, { text: '', tool: { name: 'Bash', args: '{}' } })).toEqual({ match: 'other-tool', success: false });
    expect(compareAction(recorded, { text: 'done' })).toEqual({ match: 'text-instead', success: false });
  });
  it('a text to a text: word overlap', () => {
    // {fixed, rounding, formatmoney} vs {fixed, rounding, computetotal}: 2 shared of 4 → 0.5.
    expect(compareAction({ kind: 'text', text: 'Fixed rounding in formatMoney' }, { text: 'fixed rounding in computeTotal' })).toEqual({
      match: 'text',
      similarity: 0.5,
      success: true,
    });
  });
});

describe('questions from the ledger', () => {
  const messages = [
    user('Please fix formatMoney in src/invoices/format.ts.'),
    assistant([call('c1', 'Bash', '{"command":"npm test"}')]),
    msg('user', [result('c1', 'TypeError: formatMoney is not a function', true)]),
    assistant('ok'),
  ];
  const ledger = (items: LossLedger['items']): LossLedger[] => [
    {
      step: 1,
      source: 'replay',
      path: 'proactive',
      strategy: 's',
      removed: [[0, 2]],
      items,
      lost: items.length,
      neededLater: items.length,
      byKind: {} as LossLedger['byKind'],
    },
  ];
  it("one template per kind, with a cue from the item's own message", () => {
    const qs = questionsFrom(
      ledger([
        {
          kind: 'error',
          value: 'TypeError: formatMoney is not a function',
          messageIndex: 2,
          fate: 'dropped',
          inSummary: false,
          neededAt: 3,
        },
        { kind: 'path', value: 'src/invoices/format.ts', messageIndex: 0, fate: 'dropped', inSummary: false, neededAt: 3 },
        { kind: 'identifier', value: 'formatMoney', messageIndex: 0, fate: 'dropped', inSummary: true, neededAt: 3 },
        { kind: 'command', value: 'npm test', messageIndex: 1, fate: 'dropped', inSummary: false, neededAt: null },
      ]),
      messages,
    );
    // In message order; the summary's item and the one never needed again are not asked.
    expect(qs.map((q) => [q.kind, q.text])).toEqual([
      ['path', 'Which file path was mentioned together with `formatMoney`? Answer with the path only.'],
      ['error', 'What exact error did `npm test` print? Answer with the error line only.'],
    ]);
  });
});

describe('requests and estimate', () => {
  const messages = [user('first'), assistant('a1'), user('second'), assistant('a2'), user('third'), assistant('a3')];
  it("(a) is the agent's own window since its last compaction, with its summary", () => {
    const s = session(messages, { systemPrompt: 'sys', sourceCompactions: [{ atMessage: 2, trigger: 'auto', summary: 'earlier: first' }] });
    const a = originalInput(s, 5, 'm');
    expect(a.messages.map((m) => m.parts[0]!.kind === 'text' && m.parts[0]!.text)).toEqual(['second', 'a2', 'third']);
    expect(a.summary).toBe('earlier: first');
    const body = bodyFor(a, { ...settings, maxAnswerTokens: 7 }) as {
      messages: { role: string; content: string }[];
      max_tokens: number;
      model: string;
    };
    expect(body.messages[0]).toEqual({ role: 'system', content: 'sys\n\nSummary of the earlier conversation:\nearlier: first' });
    expect(body).toMatchObject({ max_tokens: 7, model: 'qwen2.5:7b', temperature: 0.7 });
  });

  it('counts every side × replicate × task, and prices a catalog model', async () => {
    const s = session(messages);
    const r = await replay(s, { window: 100_000, tokenizer: 'chars4' });
    const p = planProbe(s, r, 2, settings, [{ id: 'q1', kind: 'path', text: 'Which?', expected: 'x', messageIndex: 0 }]);
    // 2 sides × 3 replicates × (next action + 1 question) = 12 requests; output at most 12 × 100.
    expect(p.estimate.requests).toBe(12);
    expect(p.estimate.outputTokens).toBe(1200);
    expect(p.estimate.cost).toBeNull();
    const priced = estimate(p.inputs, p.questions, { ...settings, model: 'claude-sonnet-4-5' });
    expect(priced.cost).toBeGreaterThan(0);
  });

  it('--at names a call, the first compression or each; a wrong one is refused', async () => {
    const s = session(messages);
    const r = await replay(s, { window: 100_000, tokenizer: 'chars4' });
    expect(probeSteps(r, '1')).toEqual([1]);
    expect(() => probeSteps(r, '9')).toThrow(/has 3 calls/);
    expect(() => probeSteps(r, 'next-compression')).toThrow(/never compresses/);
    expect(() => probeSteps(r, 'soon')).toThrow(/expected a call number/);
  });
});
