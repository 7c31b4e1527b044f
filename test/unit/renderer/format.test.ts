import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Part } from '../../../src/core/model';
import { fmtInt, fmtTokens, preview } from '../../../src/renderer/src/format';

/** What the list showed before the fast paths: the whole text joined, collapsed, cut (the spec). */
function previewSpec(parts: readonly Part[]): string {
  const bits: string[] = [];
  for (const p of parts) {
    if (p.kind === 'text' && p.text.trim()) bits.push(p.text);
    else if (p.kind === 'reasoning') bits.push(p.redacted ? '[reasoning, redacted]' : `[reasoning] ${p.text}`);
    else if (p.kind === 'tool_call') bits.push(`→ ${p.name}(${p.args})`);
    else if (p.kind === 'tool_result') bits.push(`${p.isError ? '✗' : '←'} ${p.text}`);
    else if (p.kind === 'media') bits.push(`[${p.mediaType}]`);
  }
  const flat = bits.join('  ').replace(/\s+/g, ' ').trim();
  return flat.length > 240 ? flat.slice(0, 239) + '…' : flat;
}

describe('fmtInt', () => {
  it('writes integers as en-US does, with thousands separators', () => {
    expect(fmtInt(0)).toBe('0');
    expect(fmtInt(999)).toBe('999');
    expect(fmtInt(1000)).toBe('1,000');
    expect(fmtInt(123456)).toBe('123,456');
    expect(fmtInt(-1234567)).toBe('-1,234,567');
    // Rounded first: 1,999.5 rounds up to 2,000.
    expect(fmtInt(1999.5)).toBe('2,000');
  });

  it('agrees with toLocaleString("en-US") of the rounded number everywhere', () => {
    const odd = fc.constantFrom(-0, -0.4, NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 60), 1e21);
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.double({ noNaN: false }), odd), (n) => {
        expect(fmtInt(n)).toBe(Math.round(n).toLocaleString('en-US'));
      }),
      { numRuns: 3000 },
    );
  });

  it('fmtTokens keeps its short forms', () => {
    expect(fmtTokens(9_999)).toBe('9,999');
    expect(fmtTokens(12_345)).toBe('12.3k');
    expect(fmtTokens(2_500_000)).toBe('2.50M');
  });
});

describe('preview', () => {
  const ws = fc.constantFrom(' ', '  ', '\n', '\t', '\r\n', '\u00a0', '\u2028', '          ');
  const word = fc.string({ minLength: 1, maxLength: 12 });
  // Texts of words and white space runs, from empty to several times the line's length.
  const text = fc.array(fc.oneof(word, ws), { maxLength: 400, size: 'max' }).map((xs) => xs.join(''));
  const part: fc.Arbitrary<Part> = fc.oneof(
    text.map((t): Part => ({ kind: 'text', text: t })),
    fc.record({ text, redacted: fc.boolean() }).map(({ text: t, redacted }): Part => ({ kind: 'reasoning', text: t, redacted })),
    fc.record({ name: word, args: text }).map(({ name, args }): Part => ({ kind: 'tool_call', id: 'c', name, args })),
    fc.record({ t: text, isError: fc.boolean() }).map(({ t, isError }): Part => ({ kind: 'tool_result', callId: 'c', isError, text: t })),
    word.map((mediaType): Part => ({ kind: 'media', mediaType })),
  );

  it('is the whole text joined, white space collapsed and cut at 240 characters', () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), (parts) => {
        expect(preview(parts)).toBe(previewSpec(parts));
      }),
      { numRuns: 2000 },
    );
  });

  it('is the same where white space runs are long (a prefix collapses to about the line)', () => {
    // Words of 1–6 characters between runs of 10–60 spaces: the first 960 characters collapse to
    // roughly 60–300, on both sides of the line's 240.
    const sparse = fc
      .array(
        fc.tuple(
          fc.string({ minLength: 1, maxLength: 6 }).filter((w) => w.trim() === w && w.length > 0),
          fc.integer({ min: 10, max: 60 }),
        ),
        { minLength: 1, maxLength: 200, size: 'max' },
      )
      .map((xs) => xs.map(([w, n]) => w + ' '.repeat(n)).join(''));
    fc.assert(
      fc.property(sparse, (t) => {
        const parts: Part[] = [{ kind: 'text', text: t }];
        expect(preview(parts)).toBe(previewSpec(parts));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads only the head of a huge tool result, with the same line', () => {
    const huge: Part[] = [{ kind: 'tool_result', callId: 'c', isError: false, text: 'line of output\n'.repeat(200_000) }];
    const line = preview(huge);
    expect(line).toBe(previewSpec(huge));
    expect(line).toHaveLength(240);
    expect(line.endsWith('…')).toBe(true);
  });

  it('decides from a prefix only once the collapsed head is longer than the line', () => {
    // 960 characters of spaces first (the first prefix tried), then the words: the head collapses
    // to nothing, so the line must come from further on.
    const parts: Part[] = [{ kind: 'text', text: ' '.repeat(960) + 'word '.repeat(100) }];
    expect(preview(parts)).toBe(previewSpec(parts));
    expect(preview(parts).startsWith('word word')).toBe(true);
  });

  it('keeps a line of exactly 240 characters whole when only white space follows it', () => {
    const parts: Part[] = [{ kind: 'text', text: 'x'.repeat(240) + ' '.repeat(2000) }];
    expect(preview(parts)).toBe('x'.repeat(240));
  });

  it('is made once per message parts array', () => {
    const parts: Part[] = [{ kind: 'text', text: 'hello   world' }];
    expect(preview(parts)).toBe('hello world');
    expect(preview(parts)).toBe(preview(parts));
  });
});
