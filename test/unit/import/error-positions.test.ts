/**
 * Every bad-input import error says where: a NUL byte and a first byte that is not UTF-8 by line,
 * column and byte offset; text of an unknown shape by where its content starts; a line longer
 * than the import's line bound (MAX_LINE_BYTES, scaled down here through `maxLineBytes`) by its
 * line and the byte it starts at, naming the bound — refused before the line is decoded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importSource } from '../../../src/core/import/index';
import { MAX_LINE_BYTES } from '../../../src/core/import/read';
import { type ImportError, type ByteSource } from '../../../src/core/import/types';
import { maxLineBytesFromEnv } from '../../../src/main/io/file-source';

const enc = new TextEncoder();
/** The bytes in chunks of `step` (a file stream's reads), optionally with a line bound. */
function source(name: string, bytes: Uint8Array, step = bytes.length || 1, maxLineBytes?: number): ByteSource {
  return {
    name,
    size: bytes.length,
    ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
    async *chunks() {
      for (let i = 0; i < bytes.length; i += step) yield bytes.subarray(i, i + step);
    },
  };
}
const errorOf = async (p: Promise<unknown>): Promise<ImportError> =>
  p.then(
    () => {
      throw new Error('the import succeeded');
    },
    (e: unknown) => e as ImportError,
  );
const chat = (n: number, text = 'hi'): string =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: text })).join('\n') + '\n';

describe('import error positions', () => {
  it('a NUL byte: its line, column and byte offset', async () => {
    // Line 1 is `{"role":"user","content":"hi"}` (30 bytes + newline = 31); the NUL is the 6th byte of line 2, byte 31 + 5 = 36.
    const text = chat(1) + '{"rol\u0000e":"assistant","content":"x"}\n';
    const e = await errorOf(importSource(source('n.jsonl', enc.encode(text))));
    expect(e.message).toBe('n.jsonl:2:6: a text transcript, found binary data (a NUL byte at byte 36)');
    expect([e.line, e.column]).toEqual([2, 6]);
  });

  it('a first byte that is not UTF-8 is named with its offset, not as an unknown shape', async () => {
    for (const bad of [0xff, 0x80, 0xfe, 0xc3]) {
      const bytes = new Uint8Array([bad, ...enc.encode(chat(2))]);
      const e = await errorOf(importSource(source('b.jsonl', bytes, 7)));
      expect(e.message).toBe(`b.jsonl:1:1: valid UTF-8 text, found an invalid byte sequence at byte 0 (0x${bad.toString(16)})`);
    }
  });

  it('text of an unknown shape: where its content starts and what it starts with', async () => {
    const e = await errorOf(importSource(source('t.txt', enc.encode('\n\n   x{"role":"user"}\n'))));
    expect(e.message).toMatch(
      /^t\.txt:3:4: a known transcript format, found text of an unknown shape starting "x\{\\"role\\":\\"user\\"\}\\n"/,
    );
  });
});

describe('the line bound', () => {
  it('is 10 MiB by default; a host may set another (CTXSCOPE_MAX_LINE_MB)', () => {
    expect(MAX_LINE_BYTES).toBe(10 * 1024 * 1024);
    expect(maxLineBytesFromEnv({})).toBeUndefined();
    expect(maxLineBytesFromEnv({ CTXSCOPE_MAX_LINE_MB: '64' })).toBe(64 * 1024 * 1024);
    expect(maxLineBytesFromEnv({ CTXSCOPE_MAX_LINE_MB: 'lots' })).toBeUndefined();
  });

  it('a line over the bound is refused with its line, its first byte and the bound', async () => {
    // Lines 1–2 are 30 and 35 bytes plus newlines (31 + 36 = 67): line 3 starts at byte 67.
    const long = JSON.stringify({ role: 'user', content: 'y'.repeat(500) });
    const text = chat(2) + long + '\n' + chat(1);
    const e = await errorOf(importSource(source('l.jsonl', enc.encode(text), 64, 256)));
    expect(e.message).toBe(
      "l.jsonl:3:1: a line of at most 256 bytes, found a longer line starting at byte 67: a longer line would take the import past its memory bound of 4× the input or 500 MB (the host's CTXSCOPE_MAX_LINE_MB raises the line bound, and the memory an import may take with it)",
    );
  });

  it('a last line with no newline over the bound, and one inside a single big chunk, are refused too', async () => {
    const long = JSON.stringify({ role: 'user', content: 'z'.repeat(400) });
    const noNewline = chat(1) + long;
    const a = await errorOf(importSource(source('a.jsonl', enc.encode(noNewline), 50, 256)));
    expect([a.line, a.message]).toEqual([2, expect.stringMatching(/found a longer line starting at byte 31:/)]);
    // One chunk holding every line (a source that does not cut the file up).
    const inside = chat(2) + long + '\n' + chat(2);
    const b = await errorOf(importSource(source('b.jsonl', enc.encode(inside), Number.MAX_SAFE_INTEGER, 256)));
    expect([b.line, b.message]).toEqual([3, expect.stringMatching(/starting at byte 67:/)]);
  });

  it('a first line past the bound is refused while the head is read (a one-line document too)', async () => {
    // 100 KB of one line: longer than the 64 KB head, so the head grows to its end — and stops at the bound.
    const doc = JSON.stringify({ messages: [{ role: 'user', content: 'w'.repeat(100_000) }] });
    const e = await errorOf(importSource(source('d.json', enc.encode(doc), 4096, 80_000)));
    expect(e.message).toMatch(/^d\.json:1:1: a line of at most 80,000 bytes, found a longer line starting at byte 0: /);
  });

  it('lines within the bound import whole, however the file is chunked (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 60 }), { minLength: 2, maxLength: 12 }),
        fc.integer({ min: 1, max: 97 }),
        async (texts, step) => {
          const text = texts.map((t, i) => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `m${i} ${t}` })).join('\n') + '\n';
          const bytes = enc.encode(text);
          const longest = Math.max(...text.split('\n').map((l) => enc.encode(l).length));
          // Exactly the longest line's length is allowed.
          const out = await importSource(source('p.jsonl', bytes, step, longest));
          expect(out.sessions[0]!.messages).toHaveLength(texts.length);
          // One byte less and the longest line is refused, by its line number.
          const e = await errorOf(importSource(source('p.jsonl', bytes, step, longest - 1)));
          const firstLongest = text.split('\n').findIndex((l) => enc.encode(l).length === longest) + 1;
          expect(e.line).toBe(firstLongest);
        },
      ),
      { numRuns: 60 },
    );
  });
});
