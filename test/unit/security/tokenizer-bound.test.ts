/**
 * The BPE counter is exact (js-tiktoken's `encode(text).length`, the reference) and bounded: a
 * giant single piece is counted in O(n log n), where the reference merge is quadratic (one 20 KB
 * word took about a minute). Speed itself is measured in test/bench/tokens.bench.ts, not here.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base';
import { describe, expect, it } from 'vitest';
import { hasLongRun } from '../../../src/core/tokens/bpe';
import { getTokenizer } from '../../../src/core/tokens/index';

const reference = { o200k_base: new Tiktoken(o200kRanks), cl100k_base: new Tiktoken(cl100kRanks) };
const refCount = (enc: keyof typeof reference, text: string): number => reference[enc].encode(text, [], []).length;

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const corpusFiles = [...filesUnder(join(__dirname, '../../../../shared/corpus')), ...filesUnder(join(__dirname, '../../fixtures'))];

describe.each(['o200k_base', 'cl100k_base'] as const)('%s: exact', (enc) => {
  const ours = getTokenizer(`tiktoken:${enc}`);

  it('counts every corpus and fixture file exactly like js-tiktoken', () => {
    expect(corpusFiles.length).toBeGreaterThan(10);
    for (const f of corpusFiles) {
      const text = readFileSync(f, 'utf8');
      expect(ours.countText(text), f).toBe(refCount(enc, text));
    }
  });

  it('counts random mixed text exactly like js-tiktoken (letters, case runs, digits, CJK, emoji, spaces, contractions)', () => {
    const pieces = [
      'a',
      'Z',
      'é',
      'ß',
      '漢',
      'ア',
      '😀',
      '\u0301',
      '7',
      ' ',
      '  ',
      '\n',
      '\t',
      "'s",
      "'LL",
      '!',
      '/',
      '{"',
      '<|endoftext|>',
      'AAAA',
      'xyz',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(ours.countText(text)).toBe(refCount(enc, text));
      }),
      { numRuns: 300 },
    );
  });

  it('counts long runs of one character class exactly like js-tiktoken (sizes the reference can still do)', () => {
    for (const text of ['A'.repeat(700), 'q'.repeat(513), ' '.repeat(600) + 'x', '!'.repeat(400), '漢'.repeat(300), 'ab'.repeat(300)]) {
      expect(ours.countText(text)).toBe(refCount(enc, text));
    }
  });
});

describe('bounded time on a giant piece', () => {
  it('counts a 400 KB single word of one letter (the reference merge would take hours)', () => {
    const o200k = getTokenizer('tiktoken:o200k_base');
    // A run of one letter is periodic under BPE: the reference packs 8 A's per token
    // (800 A's -> 100 tokens), so 400,000 A's -> 50,000 tokens.
    expect(refCount('o200k_base', 'A'.repeat(800))).toBe(100);
    expect(o200k.countText('A'.repeat(400_000))).toBe(50_000);
  }, 20_000);
});

describe('hasLongRun (which texts the bulk workers hand to the bounded counter)', () => {
  it('finds runs of more than the limit of whitespace or of non-whitespace, and nothing else', () => {
    expect(hasLongRun('word '.repeat(1000), 8)).toBe(false);
    expect(hasLongRun('x'.repeat(9), 8)).toBe(true);
    expect(hasLongRun('x'.repeat(8), 8)).toBe(false);
    expect(hasLongRun('a ' + ' '.repeat(9), 8)).toBe(true);
    expect(hasLongRun('a\u3000'.repeat(50), 8)).toBe(false);
  });
});
