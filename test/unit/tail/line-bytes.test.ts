/**
 * What the Claude Code tail parser carries and reads per chunk (src/core/formats): the stored
 * message ids as a set of hashes (IdHashSet), the appended lines one at a time (lineSpans) and
 * the lines a change names, kept as views of the appended bytes (LineBytes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineBytes, lineSpans, lineTexts, parseAppended, textOf } from '../../../src/core/formats/bytes';
import { IdHashSet } from '../../../src/core/formats/id-set';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('IdHashSet', () => {
  it('holds every id added, counts each once, and answers no for ids never added', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { maxLength: 300 }), fc.array(fc.string(), { maxLength: 50 }), (added, more) => {
        const set = new IdHashSet(added);
        for (const id of [...added, ...added.slice(0, 10)]) set.add(id);
        expect(set.count).toBe(added.length);
        for (const id of added) expect(set.has(id)).toBe(true);
        // 52 bits of hash: two ids of a few hundred sharing them is a chance of about 10^-11.
        for (const id of more) expect(set.has(id)).toBe(added.includes(id));
      }),
    );
  });

  it('keeps every id through its growth (uuid-shaped, many times its first table)', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `${i.toString(16).padStart(8, '0')}-7c1e-4f00-9a55-0123456789ab`);
    const set = new IdHashSet();
    ids.forEach((id) => set.add(id));
    expect(set.count).toBe(ids.length);
    expect(ids.every((id) => set.has(id))).toBe(true);
    expect(set.has('00000000-7c1e-4f00-9a55-0123456789ac')).toBe(false);
  });
});

describe('lineSpans and LineBytes', () => {
  it('number and cut lines as parseAppended does, CRs left out, and give back each line as its bytes', () => {
    const line = fc.oneof(
      fc.constant(''),
      fc.constant('   '),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }).map((o) => JSON.stringify(o)),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(line, fc.boolean()), { maxLength: 20 }), fc.nat(1000), (rows, before) => {
        const bytes = utf8(rows.map(([l, cr]) => `${l}${cr ? '\r' : ''}\n`).join(''));
        const spans = [...lineSpans(bytes, before)];
        expect(spans.map((s) => s.line)).toEqual(rows.map((_, i) => before + i + 1));
        expect(spans.map((s) => textOf(bytes, s.from, s.to))).toEqual(rows.map(([l]) => l));
        // The lines parseAppended keeps (the blank ones skipped), under the same numbers.
        const parsed = parseAppended(bytes, before)!;
        const kept = spans.filter((s) => textOf(bytes, s.from, s.to).trim() !== '');
        expect(kept.map((s) => s.line)).toEqual(parsed.lines.map((l) => l.line));
        expect(parsed.total).toBe(before + rows.length);
        // Some lines kept by number (every other one, in order): each comes back as its text's bytes, the others not at all.
        const texts = new LineBytes(bytes);
        kept.filter((_, i) => i % 2 === 0).forEach((s) => texts.add(s));
        for (const [i, s] of kept.entries()) {
          const got = texts.get(s.line);
          if (i % 2 === 0) expect(got && textOf(got)).toBe(textOf(bytes, s.from, s.to));
          else expect(got).toBeUndefined();
        }
        expect(texts.get(before)).toBeUndefined();
        expect(texts.get(before + rows.length + 1)).toBeUndefined();
      }),
    );
  });

  it('lineTexts: the same lines as lineSpans, each with the text of its own bytes, on any bytes (invalid UTF-8, CRs, a BOM, no last newline)', () => {
    // Bytes biased to the awkward ones: newlines, CRs, a BOM's, lead and continuation bytes cut short.
    const byte = fc.oneof(
      fc.constantFrom(10, 13, 0xef, 0xbb, 0xbf, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0xc3, 0xa9, 0x80, 0xff),
      fc.integer({ min: 0, max: 255 }),
    );
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }).chain((a) => fc.array(byte, { maxLength: 200 }).map((b) => Uint8Array.from([...a, ...b]))),
        fc.nat(1000),
        (bytes, before) => {
          const want = [...lineSpans(bytes, before)].map((s) => ({ ...s, text: textOf(bytes, s.from, s.to) }));
          expect([...lineTexts(bytes, before)]).toEqual(want);
        },
      ),
      { numRuns: 500 },
    );
    // Multi-byte characters and replacement characters next to the cuts.
    const mixed = Uint8Array.from([
      0xef,
      0xbb,
      0xbf,
      ...utf8('{"a":"café 🙂"}\r\n'),
      0xe2,
      0x82,
      10,
      0xf0,
      0x9f,
      13,
      10,
      ...utf8('€'),
      0xc3,
    ]);
    expect([...lineTexts(mixed, 7)].map((l) => [l.line, l.text])).toEqual([
      [8, '\ufeff{"a":"café 🙂"}'],
      [9, '\ufffd'],
      [10, '\ufffd'],
      [11, '€\ufffd'],
    ]);
  });
});
