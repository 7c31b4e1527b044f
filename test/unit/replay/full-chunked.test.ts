/**
 * S1's `full-chunked` tool-output mode (docs/policies.md §S1): "splits large output into chunks
 * for processing via LLM calls". The chunk calls are LLM calls of their own: each reads its chunk
 * (so together the whole output is their input) and writes its part of the extraction that stays
 * in the window; both are billed, and the budgets see them.
 *
 * chars4 (docs/policies.md §Tokenizers), gpt-4o's catalog row ($2.50 input, $1.25 cached, $10 output per 1M):
 *   m0 user, 400 chars → 100; m1 call c0 (id 1 + name "Read" 1 + args "{}" 1) → 3;
 *   m2 its output, 30,000 chars = 30,000 bytes → call id 1 + 7,500 = 7,501; m3 "done" → 1.
 * toolOutputMaxBytes 12,288: chunks = ceil(30,000 / 12,288) = 3; what stays is a 64-byte handle + the
 * extraction, half the limit (6,144 bytes): 6,208 bytes → ceil(7,501 × 6,208 / 30,000) = 1,553 tokens;
 * the extraction alone ceil(7,501 × 6,144 / 30,000) = 1,537 tokens.
 */
import { describe, expect, it } from 'vitest';
import { lookupModel } from '../../../src/core/catalog';
import { replay } from '../../../src/core/replay/index';
import { stepDetail } from '../../../src/core/replay/step-detail';
import { countWith } from '../../../src/core/tokens/index';
import { policy, prose, statusAt } from '../../helpers/replay';
import { assistant, call, session, toolResult, user } from '../../helpers/session';

const msgs = () => [user(prose(400)), assistant([call('c0')]), toolResult('c0', prose(30_000)), assistant('done')];
const config = (extra = {}) =>
  policy('s1', { tokenizer: 'chars4', schemaScale: 1, window: 1_000_000, model: 'gpt-4o', toolOutputMode: 'full-chunked', ...extra });

describe("S1's full-chunked output mode bills its chunk calls", () => {
  it('the chunk calls are billed: the output as input, the extraction as output', async () => {
    expect(lookupModel('gpt-4o')).toMatchObject({ input: 2.5, cachedInput: 1.25, output: 10 });
    const r = await replay(session(msgs()), config());
    expect(r.events.find((e) => e.kind === 'tool-preflight')).toMatchObject({
      action: 'full-chunked',
      step: 1,
      bytesBefore: 30_000,
      bytesAfter: 6_208,
      chunks: 3,
      chunkInput: 7_501,
      chunkOutput: 1_537,
    });
    // Requests: 100, then 100 + 3 + 1,553 = 1,656 (the extraction stays, read again by the later call).
    expect(Array.from(r.steps.total)).toEqual([100, 1_656]);
    // Input: 100 + 1,656 + the chunk calls' 7,501 = 9,257; cached: nothing — OpenAI caches prompts of
    // 1,024 tokens or more (docs/cost.md), and the first request of 100 is shorter.
    // Output: the agent's 3 + 1, and the chunk calls' extraction 1,537 = 1,541.
    expect(r.totals).toMatchObject({ billedInputTokens: 9_257, cachedInputTokens: 0, outputTokens: 1_541 });
    // (9,257 × 2.5 + 1,541 × 10) / 1M = (23,142.5 + 15,410) / 1M
    expect(r.totals.cost).toBeCloseTo(0.0385525, 12);
  });

  it('a token budget counts the chunk calls, and the step detail shows the same figure', async () => {
    const s = session(msgs());
    const r = await replay(s, config({ budget: { tokens: 5_000, mode: 'hard' } }));
    // Before call 1: 100 + 3 (call 0) + 7,501 + 1,537 (chunk calls) = 9,141 used ≥ 5,000: aborted. Without
    // the chunk calls it would be 103, far under.
    expect(statusAt(r, 1)).toBe('abort');
    expect(r.events.find((e) => e.kind === 'abort')).toMatchObject({ step: 1, budget: 'tokens', used: 9_141, max: 5_000 });
    // The detail bills a call without reported usage its own count as output, as the replay does (perMessage).
    expect(stepDetail(r, s, 1, { key: 'k', perMessage: countWith(s, 'chars4').perMessage }).budgets).toEqual([
      { layer: 'session', dimension: 'tokens', used: 9_141, limit: 5_000, pct: 182.8 },
    ]);
  });

  it('other modes make no chunk calls', async () => {
    const r = await replay(session(msgs()), config({ toolOutputMode: 'read-grep' }));
    // read-grep: handle + a quarter of the limit = 64 + 3,072 = 3,136 bytes → ceil(7,501 × 3,136 / 30,000) = 785.
    expect(Array.from(r.steps.total)).toEqual([100, 100 + 3 + 785]);
    expect(r.totals.billedInputTokens).toBe(100 + 888);
  });
});
