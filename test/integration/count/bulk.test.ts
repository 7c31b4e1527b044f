/** Bulk counting on worker threads matches js-tiktoken (the reference) on a fixture corpus. */
import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../../../src/core/tokens/index';
import { BACKGROUND_THREADS_MAX, backgroundCountThreads, createBulkCounter } from '../../../src/main/count/bulk';

const corpus = [
  'hello world',
  'function add(a: number, b: number): number {\n  return a + b;\n}',
  '日本語のテキストと中文文本，还有한국어 텍스트。',
  'emoji 😀🎉👩‍💻 and <|endoftext|> and <|im_start|>user',
  '    indented    with    lots     of   spaces\t\ttabs\n\n\n',
  'URL https://example.com/a/b?c=d&e=f#g and e-mail a.b@example.org',
  'Ünïcödé façade naïve café — “quotes” and ‘single’ … ellipsis',
  JSON.stringify({ nested: { array: [1, 2, 3], text: 'value' } }),
  '',
];

describe('bulk counting', () => {
  it('counts in the background on every core, but never on more than four threads', () => {
    // Each thread holds its own BPE tables: the pool's memory must not grow with the machine's cores.
    expect(BACKGROUND_THREADS_MAX).toBe(4);
    expect([1, 2, 3, 4, 8, 16, 64].map((cores) => backgroundCountThreads(cores))).toEqual([1, 2, 3, 4, 4, 4, 4]);
    expect(backgroundCountThreads(0)).toBe(1);
  });

  it('counts exactly like js-tiktoken, on both encodings', async () => {
    const bulk = createBulkCounter(2);
    try {
      const texts = Array.from({ length: 600 }, (_, i) => corpus[i % corpus.length]! + (i % 7 ? ` #${i}` : ''));
      for (const enc of ['o200k_base', 'cl100k_base'] as const) {
        const ref = getTokenizer(`tiktoken:${enc}`);
        const got = await bulk.count(texts, enc);
        expect(Array.from(got)).toEqual(texts.map((t) => ref.countText(t)));
      }
    } finally {
      await bulk.close();
    }
  }, 60_000);
});
