/** Exact counts through the bulk pool are the numbers countWith gives, for every BPE tokenizer id. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource } from '../../../src/core/import/index';
import { countWith, mediaTokensFor } from '../../../src/core/tokens/index';
import { createBulkCounter } from '../../../src/main/count/bulk';
import { bpeEncodingOf, countExact } from '../../../src/main/count/exact';
import { fileSource } from '../../../src/main/io/file-source';

const sample = join(__dirname, '..', '..', '..', 'resources', 'sample', 'sample-session.jsonl');

describe('exact counts on the bulk pool', () => {
  it('match countWith for every BPE-based tokenizer', async () => {
    const { sessions } = await importSource(fileSource(sample));
    const session = sessions[0]!;
    const options = { mediaTokens: mediaTokensFor(session.provider) };
    const bulk = createBulkCounter(2);
    try {
      for (const id of [
        'tiktoken:o200k_base',
        'tiktoken:cl100k_base',
        'max:tiktoken:o200k_base',
        'max:tiktoken:cl100k_base',
        'calibrated',
      ]) {
        expect(bpeEncodingOf(id)).toBeDefined();
        const want = countWith(session, id, options);
        // Whole, and a slice of a few messages at a time (each slice's texts counted, then dropped).
        for (const batchChars of [undefined, 2_000]) {
          const got = await countExact(session, id, options, bulk, batchChars);
          expect(got.tokenizer).toBe(want.tokenizer);
          expect(got.approximate).toBe(want.approximate);
          expect(Array.from(got.perMessage)).toEqual(Array.from(want.perMessage));
          expect([got.system, got.tools, got.unlogged]).toEqual([want.system, want.tools, want.unlogged]);
        }
      }
      // Heuristic tokenizers are not BPE based: counted as before.
      expect(bpeEncodingOf('chars4')).toBeUndefined();
      expect(Array.from((await countExact(session, 'shannon', options, bulk)).perMessage)).toEqual(
        Array.from(countWith(session, 'shannon', options).perMessage),
      );
    } finally {
      await bulk.close();
    }
  }, 60_000);
});
