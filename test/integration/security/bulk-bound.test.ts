/**
 * The bulk counting workers (gpt-tokenizer, quadratic per piece) hand texts that may hold a long
 * piece to core's bounded counter: a giant single word comes back at once, with core's numbers.
 */
import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../../../src/core/tokens/index';
import { createBulkCounter } from '../../../src/main/count/bulk';

describe('bulk counting of giant pieces', () => {
  it('counts a 300 KB single word and a 100 KB run of spaces like core does', async () => {
    const bulk = createBulkCounter(1);
    try {
      const texts = ['plain words here', 'A'.repeat(300_000), 'x' + ' '.repeat(100_000) + 'y', 'z'.repeat(129) + ' tail'];
      const ref = getTokenizer('tiktoken:o200k_base');
      const got = await bulk.count(texts, 'o200k_base');
      expect(Array.from(got)).toEqual(texts.map((t) => ref.countText(t)));
      // 8 A's per token under o200k (see test/unit/security/tokenizer-bound.test.ts): 300,000 / 8.
      expect(got[1]).toBe(37_500);
    } finally {
      await bulk.close();
    }
  }, 30_000);
});
