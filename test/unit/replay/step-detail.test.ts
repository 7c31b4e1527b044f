/**
 * stepDetail on small hand-built sessions. chars4 counts 400 characters as 100 tokens with no
 * per-message overhead, so every message below is 100 tokens and a call's history is 100 × the
 * messages it holds.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import { stepDetail, StepDetailError } from '../../../src/core/replay/step-detail';
import { assistant, call, session, toolResult, user } from '../../helpers/session';

const words = (tag: string): string => `${tag} `.repeat(200).slice(0, 400);
function chat(turns: number): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) out.push(user(words(`u${t}`)), assistant(words(`a${t}`)));
  return out;
}
const base = {
  tokenizer: 'chars4',
  window: 4_000,
  maxOutput: 500,
  buffer: 0,
  trigger: 0.5,
  target: 0.5,
  summarizer: 'none' as const,
  pipeline: ['drop-oldest' as const],
};

describe('stepDetail', () => {
  it('shows the compression before a call, what was dropped and what the model receives', async () => {
    const s = session(chat(15), { systemPrompt: null });
    const r = await replay(s, base);
    // Call 10 (message 21) holds messages 0..20 = 2,100 ≥ 0.5 × 4,000 = 2,000; drop-oldest drops the
    // oldest messages until the history fits 2,000 (docs/policies.md §S2): message 0 alone (20 messages,
    // 2,000 tokens). Dropped: 0..0.
    const d = stepDetail(r, s, 10, { key: 'k' });
    expect(d).toMatchObject({ step: 10, stepCount: 15, messageIndex: 21, turn: 10, status: 'compress', request: 2_000 });
    expect(d.compression).toMatchObject({
      path: 'proactive',
      strategy: 'drop-oldest',
      tokensBefore: 2_100,
      tokensAfter: 2_000,
      dropped: [[0, 0]],
      summarised: [],
      masked: [],
      summary: null,
      summaryBefore: null,
      before: [[0, 20]],
    });
    expect(d.context.history).toEqual({ tokens: 2_000, messages: 20, ranges: [[1, 20]], masked: [], reduced: [], sentAs: [] });
    expect(d.context.unlogged.inferred).toBe(true);
    // Messages 21.. (the call's own answer and later) are not sent yet.
    expect(d.messageStates).toEqual([
      [0, 0, 'dropped'],
      [1, 20, 'window'],
      [21, 29, 'future'],
    ]);
    expect(d.trigger).toEqual({ value: 2_000, basis: '50% of the window' });
    expect(d.window).toEqual({ value: 4_000, source: 'policy' });
    expect(d.limit.value).toBe(r.steps.limit[10]);
    expect(d.events.map((e) => e.kind)).toEqual(['compression']);
  });

  it('accumulates the compressions before the call: the next call drops two more messages', async () => {
    const s = session(chat(15));
    const r = await replay(s, base);
    // Call 11 (message 23): window 1..22 = 2,200 ≥ 2,000; dropping 1..2 leaves 3..22 = 2,000 → dropped
    // 1..2 now, 0..2 in all.
    const d = stepDetail(r, s, 11, { key: 'k' });
    expect(d.compression?.dropped).toEqual([[1, 2]]);
    expect(d.compression?.before).toEqual([[1, 22]]);
    expect(d.messageStates).toEqual([
      [0, 2, 'dropped'],
      [3, 22, 'window'],
      [23, 29, 'future'],
    ]);
    // Call 9 (message 19) ran before any compression: 19 messages, all in the window.
    const early = stepDetail(r, s, 9, { key: 'k' });
    expect(early.compression).toBeNull();
    expect(early.messageStates).toEqual([
      [0, 18, 'window'],
      [19, 29, 'future'],
    ]);
    expect(early.context.history).toEqual({ tokens: 1_900, messages: 19, ranges: [[0, 18]], masked: [], reduced: [], sentAs: [] });
  });

  it('marks what a summarizing strategy folded as summarised, with the summary before and after', async () => {
    const s = session(chat(15));
    const r = await replay(s, { ...base, pipeline: ['summarize'], summarizer: 'extractive' });
    // Summarize aims the kept history at 80% of the 2,000 budget = 1,600: the first turn start with
    // [s, 21) ≤ 1,600 is message 6 (15 messages, 1,500 tokens); 0..5 are folded into the summary.
    const d = stepDetail(r, s, 10, { key: 'k' });
    expect(d.compression).toMatchObject({ summarised: [[0, 5]], dropped: [], summaryBefore: null });
    expect(d.compression!.summary).toEqual(expect.any(String));
    expect(d.context.summary.text).toBe(d.compression!.summary);
    expect(d.context.summary.tokens).toBe(r.steps.regions.summary[10]);
    expect(d.messageStates[0]).toEqual([0, 5, 'summarised']);
    // The next compression's "summary before" is this one's summary.
    const next = r.events.find((e) => e.kind === 'compression' && e.step > 10);
    if (next) expect(stepDetail(r, s, next.step, { key: 'k' }).compression!.summaryBefore).toBe(d.compression!.summary);
  });

  it("derives the guard's limit as window − buffer − maxOutput, naming where each part came from", async () => {
    const s = session(chat(3));
    const r = await replay(s, {
      ...base,
      buffer: 1_000,
      maxOutput: undefined,
      paths: { async: false, proactive: false, emergency: false, guard: true },
    });
    // maxOutput = floor(4,000 / 4) = 1,000; limit = 4,000 − 1,000 − 1,000 = 2,000.
    const d = stepDetail(r, s, 0, { key: 'k', overridden: new Set(['window']), policyConfig: { buffer: 1_000 } });
    expect(d.limit).toEqual({
      value: 2_000,
      formula: 'window − buffer − maxOutput',
      parts: [
        { name: 'window', value: 4_000, source: 'override' },
        { name: 'buffer', value: 1_000, source: 'policy' },
        { name: 'maxOutput', value: 1_000, source: 'default: floor(window / 4)' },
      ],
    });
  });

  it('counts every budget in force up to the call', async () => {
    const s = session(chat(5));
    const r = await replay(s, { ...base, trigger: 1, budget: { turns: 10, tokens: 10_000, mode: 'soft' } });
    // Budgets are checked before a call with what the calls before it used. Before call 3 (message 7):
    // calls 0..2 made (turns count LLM calls); their requests 100 + 300 + 500 = 900 billed, outputs
    // (no reported usage: the message's count) 3 × 100 = 300 → 1,200 tokens.
    const d = stepDetail(r, s, 3, { key: 'k', perMessage: new Float64Array(10).fill(100) });
    expect(d.budgets).toEqual([
      { layer: 'session', dimension: 'turns', used: 3, limit: 10, pct: 30 },
      { layer: 'session', dimension: 'tokens', used: 1_200, limit: 10_000, pct: 12 },
    ]);
    // A layer that projects (S3's CheckBudget) adds this call's request: call 3 holds 7 messages = 700
    // tokens, so 1,200 + 700 = 1,900 of 10,000 = 19%.
    const projecting = { ...r, config: { ...r.config, budget: { ...(r.config['budget'] as object), includeRequest: true } } };
    expect(stepDetail(projecting, s, 3, { key: 'k', perMessage: new Float64Array(10).fill(100) }).budgets[1]).toEqual({
      layer: 'session',
      dimension: 'tokens',
      used: 1_200,
      pending: 700,
      limit: 10_000,
      pct: 19,
    });
  });

  it('lists the tool results S1 stored aside that are in the request, as the model receives them', async () => {
    // A 2,000-byte result over toolOutputMaxBytes 1,000 is offloaded (S1): 64 bytes, a handle.
    const messages: Message[] = [user('go'), assistant([call('c1')]), toolResult('c1', 'x'.repeat(2_000)), assistant('done')];
    const s = session(messages);
    const r = await replay(s, { ...base, trigger: 1, toolOutputMaxBytes: 1_000, toolOutputMode: 'offload' });
    const d = stepDetail(r, s, 1, { key: 'k' });
    expect(d.context.history.reduced).toEqual([{ messageIndex: 2, action: 'offload', bytesBefore: 2_000, bytesAfter: 64 }]);
    // The call before the result arrived has nothing reduced.
    expect(stepDetail(r, s, 0, { key: 'k' }).context.history.reduced).toEqual([]);
  });

  it('names the range when asked for a call past the end', async () => {
    const s = session(chat(3));
    const r = await replay(s, base);
    expect(() => stepDetail(r, s, 3, { key: 'k' })).toThrow(StepDetailError);
    expect(() => stepDetail(r, s, 3, { key: 'k' })).toThrow('step 3 does not exist: this replay has 3 calls (0–2)');
    const none = session([user('hello')]);
    const empty = await replay(none, base);
    expect(() => stepDetail(empty, none, 0, { key: 'k' })).toThrow(
      'step 0 does not exist: this replay has no calls (the session has no assistant message)',
    );
  });
});
