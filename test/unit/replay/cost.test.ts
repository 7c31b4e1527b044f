/**
 * Billed input, cached input and cost, checked by hand against the catalog's gpt-4o row
 * ($2.50 input, $1.25 cached input, $10 output per 1M tokens). chars4: 400 characters = 100 tokens.
 */
import { describe, expect, it } from 'vitest';
import { lookupModel } from '../../../src/core/catalog';
import type { Message, ToolDef } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import { assistant, session, user } from '../../helpers/session';

const words = (tokens: number): string => 'ab '.repeat(tokens * 2).slice(0, tokens * 4);
function chat(turns: number): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) out.push(user(words(100)), assistant(words(100)));
  return out;
}

describe('cost', () => {
  it('bills the stable prefix since the previous call as cached input', async () => {
    expect(lookupModel('gpt-4o')).toMatchObject({ input: 2.5, cachedInput: 1.25, output: 10 });
    const r = await replay(session(chat(3), { systemPrompt: words(50) }), { model: 'gpt-4o', tokenizer: 'chars4', buffer: 0, summarizer: 'none', paths: { proactive: false } });
    // Requests 150, 350, 550. Cached: 0 (first call), then the whole previous request: 150, 350.
    expect(r.totals).toMatchObject({ billedInputTokens: 1_050, cachedInputTokens: 500, outputTokens: 300, peak: 550 });
    // (550 uncached × 2.5 + 500 cached × 1.25 + 300 output × 10) / 1M = $0.005
    expect(r.totals.cost).toBeCloseTo(0.005, 12);
  });

  it('after a compression only system prompt and tool definitions stay cached', async () => {
    const r = await replay(session(chat(10), { systemPrompt: words(50) }), { model: 'gpt-4o', window: 2_000, maxOutput: 200, tokenizer: 'chars4', buffer: 0, summarizer: 'none', pipeline: ['drop-oldest'], trigger: 0.5, target: 0.3 });
    const c = r.events.find((e) => e.kind === 'compression')!;
    // 50% of 2,000: the call at message 11 (50 + 1,100) is the first over; drop-oldest keeps messages 6..10 (550 ≤ 550).
    expect(c).toMatchObject({ step: 5, tokensBefore: 1_150, tokensAfter: 550 });
    // Steps 0..4: requests 150 + 200 j; cached = previous request. Step 5: 550, cached 50 (the system prompt).
    // Steps 6..9 grow by 200 from 550 with the previous request cached: 750, 950, 1,150 → step 9 compresses again.
    const requests = Array.from(r.steps.total);
    expect(requests.slice(0, 6)).toEqual([150, 350, 550, 750, 950, 550]);
    let cached = 0;
    for (let j = 1; j < requests.length; j++) cached += r.events.some((e) => e.kind === 'compression' && e.step === j) ? 50 : Math.min(requests[j - 1]!, requests[j]!);
    expect(r.totals.cachedInputTokens).toBe(cached);
    expect(r.totals.billedInputTokens).toBe(requests.reduce((a, b) => a + b, 0));
  });

  it('prices nothing for a model the catalog does not know', async () => {
    const r = await replay(session(chat(2)), { model: 'my-local-llm', tokenizer: 'chars4', summarizer: 'none' });
    expect(r.totals.cost).toBe(0);
    expect(r.totals.billedInputTokens).toBe(100 + 300);
  });
});

describe('S1 schema-only overflow', () => {
  it('lets a call through when only the tool schemas push it over the limit', async () => {
    const tools: ToolDef[] = [{ name: 'big', description: words(700), parameters: { type: 'object' } }];
    const r = await replay(session(chat(3), { tools }), { tokenizer: 'chars4', window: 2_000, maxOutput: 500, buffer: 500, summarizer: 'none', paths: { proactive: false, guard: true } });
    // limit 1,000; history at the last call 500 ≤ 1,000, but with ~700 tokens of schema it is over.
    const last = r.steps.count - 1;
    expect(r.steps.total[last]!).toBeGreaterThan(1_000);
    expect(r.events.find((e) => e.kind === 'guard' && e.step === last)).toMatchObject({ decision: 'ok', reason: 'only the tool schemas overflow: allowed (S1 special case)' });
    expect(r.totals.forcedFinals).toBe(0);
  });
});
