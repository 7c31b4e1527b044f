/**
 * docs/policies.md §S2, Summarize: "Takes messages 0..N-10 (old messages) … Replaces old messages
 * with a single summary message … Keeps last 10 messages intact for recency". chars4: a
 * 400-character message is 100 tokens, no per-message overhead.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import { chat, compressions, policy, prose, reasonAt } from '../../helpers/replay';
import { assistant, call, msg, result, session, user } from '../../helpers/session';

describe('S2 Summarize keeps the last 10 messages', () => {
  it('folds messages 0..N-10 and keeps the last 10, whatever the target', async () => {
    const r = await replay(session(chat(20)), policy('s2', { window: 4_000, pipeline: ['summarize'], summarizer: 'none' }));
    const [first] = compressions(r);
    // The trigger is 85% of 4,000 = 3,400; the call at message k sends k × 100 tokens: first over it at k = 35
    // (3,500), the 18th call (step 17). N = 35 messages before it: 0..24 are folded, 25..34 — the last 10 — stay.
    expect(first).toMatchObject({ step: 17, tokensBefore: 3_500, tokensAfter: 1_000 });
    expect(first!.dropped).toEqual([[0, 24]]);
    expect(first!.kept).toEqual([[25, 34]]);
    expect(first!.note).toContain('summarized 25 messages, kept the last 10 (N = 10)');
    // S2's status line: int(3,500 / 4,000 × 100) = 87%.
    expect(reasonAt(r, 17)).toBe('context window at 87% capacity (3,500/4,000 tokens), compaction applied: 3,500 before → 1,000 after');
    expect(r.steps.regions.history[17]).toBe(1_000);
  });

  it('moves a cut that would part a tool call from its result by the fewest messages, earlier: never fewer than 10', async () => {
    // 0 user (100 tokens); 1..30: call c_j (odd, "c_j" 1 + "Read" 1 + "{}" 1 = 3 tokens) and its result (even, 1 + 100);
    // 31 a user message (100), 32 the call under test.
    const messages: Message[] = [user(prose(400, 'u'))];
    for (let j = 0; j < 15; j++)
      messages.push(assistant([call(`c${j}`, 'Read', '{}')]), msg('user', [result(`c${j}`, prose(400, `r${j}`))]));
    messages.push(user(prose(400, 'thanks')), assistant('done'));
    const r = await replay(session(messages), policy('s2', { window: 2_000, pipeline: ['summarize'], summarizer: 'none' }));
    const all = compressions(r);
    // Trigger 85% of 2,000 = 1,700. Call j (message 2j + 1) sends 100 + 104 j ≤ 1,556; message 32 sends
    // 100 + 15 × 104 + 100 = 1,760 > 1,700: one compression, at the last call (step 15).
    expect(all).toHaveLength(1);
    // 32 − 10 = 22 is c10's result: the cut moves one message earlier, onto the call (21); 11 messages stay.
    // Kept: 5 calls × 3 + 5 results × 101 + 100 = 620.
    expect(all[0]).toMatchObject({ step: 15, tokensBefore: 1_760, tokensAfter: 620 });
    expect(all[0]!.kept).toEqual([[21, 31]]);
    expect(all[0]!.dropped).toEqual([[0, 20]]);
    expect(all[0]!.note).toContain('summarized 21 messages, kept the last 11 (N = 10)');
    expect(all[0]!.note).toContain('1 message earlier');
  });

  it('another policy’s summarize (no keep-last setting) still folds toward its target', async () => {
    const r = await replay(session(chat(20)), policy('letta', { tokenizer: 'chars4', window: 4_000, summarizer: 'none' }));
    const [first] = compressions(r);
    // Letta: trigger 0.9 × 4,000 = 3,600 → first over it at k = 37 (3,700); target 0.7 × 4,000 = 2,800, the kept
    // history aimed at 80% of it = 2,240: the first turn start whose tail fits is message 16 (37 − 16 = 21 messages, 2,100).
    expect(first).toMatchObject({ step: 18, tokensBefore: 3_700, tokensAfter: 2_100 });
  });
});

describe('the config panel', () => {
  it('says S2’s summarize ignores the token target and uses its keep-last count', async () => {
    const { configFields } = await import('../../../src/core/config-fields');
    const fields = configFields(policy('s2', { pipeline: ['summarize'] }));
    expect(fields.find((f) => f.key === 'summarizeKeepLast')).toMatchObject({ value: 10, applies: true });
    expect(fields.find((f) => f.key === 'target')).toMatchObject({
      applies: false,
      why: 'the pipeline keeps message counts, not a token target',
    });
    // With its default SlidingWindow the count does nothing.
    expect(configFields(policy('s2')).find((f) => f.key === 'summarizeKeepLast')).toMatchObject({
      applies: false,
      why: 'the pipeline has no summarize',
    });
  });
});
