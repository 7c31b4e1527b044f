/**
 * docs/policies.md §S0, path 1: maybeSummarize runs after each turn completes; BuildMessages injects
 * the summary "on the next call". The compression happens at the end of the turn, and the call after
 * it also carries the user message that opened the next turn: the reason names both figures, so the
 * step's total is on the screen beside the compression's "after".
 *
 * runes2.5: a 400-character message is floor(400 × 2 / 5) + 4 = 164 tokens.
 */
import { describe, expect, it } from 'vitest';
import { replay } from '../../../src/core/replay/index';
import { chat, compressions, policy, reasonAt } from '../../helpers/replay';
import { session } from '../../helpers/session';

describe('S0: the async summarization reason', () => {
  it('gives before → after at the end of the turn, and what the call sends with the next user message', async () => {
    const r = await replay(
      session(chat(15)),
      policy('s0', { maxOutput: 1_000, summarizer: 'none', paths: { async: true, proactive: false, emergency: false } }),
    );
    const [first] = compressions(r);
    // Window 1,000 × 4 = 4,000; 75% = 3,000. The history before user message i is 164 i > 3,000 first at i = 20
    // (3,280): turn 9 (messages 18, 19) is complete; the call at message 21 is step 10.
    // Target 50% of S0's limit (4,000 − 1,000 = 3,000) = 1,500, the kept history aimed at 80% of it = 1,200:
    // the first turn start b with 164 × (20 − b) ≤ 1,200 is b = 14 (6 messages, 984). Nothing is summarized
    // (summarizer none): 3,280 before → 984 after.
    expect(first).toMatchObject({ step: 10, path: 'async', tokensBefore: 3_280, tokensAfter: 984 });
    // The call sends the 984 kept + the user message 20 (164) = 1,148: the step's total.
    expect(r.steps.total[10]).toBe(1_148);
    expect(reasonAt(r, 10)).toBe(
      'async summarization after turn 9: history 3,280 > 75% of window 4,000 (3,280 before → 984 after at the end of the turn; the call sends 1,148 with the next user message)',
    );
  });
});
