import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countWith, createCounter, defaultTokenizerFor, getTokenizer, TOKENIZER_IDS } from '../../../src/core/tokens/index';
import { runeCount } from '../../../src/core/tokens/heuristics';
import { assistant, call, msg, result, session, usage, user } from '../../helpers/session';

describe('heuristic tokenizers of the seeds', () => {
  it('chars4 is ceil(chars / 4) (S1)', () => {
    const t = getTokenizer('chars4');
    expect(t.countText('')).toBe(0);
    expect(t.countText('abcd')).toBe(1);
    expect(t.countText('abcde')).toBe(2);
    expect(t.countText('a'.repeat(400))).toBe(100);
  });

  it('runes2.5 counts runes, not UTF-16 units (S0: chars × 2 / 5 on rune count)', () => {
    const t = getTokenizer('runes2.5');
    expect(runeCount('😀😀')).toBe(2);
    expect('😀😀'.length).toBe(4);
    expect(t.countText('a'.repeat(10))).toBe(4);
    expect(t.countText('😀'.repeat(10))).toBe(4);
    expect(t.countText('漢字'.repeat(5))).toBe(4);
  });

  it('shannon counts prose at 4 and code at 3 chars per token, +5 per message, ×1.1 (S3)', () => {
    const t = getTokenizer('shannon');
    const prose = 'the quick brown fox jumps over the lazy dog again and again '.repeat(4);
    const code = 'function f(a) { return [a, b].map((x) => x * 2); } // (); {} [];'.repeat(4);
    expect(t.countText(prose)).toBe(Math.floor(prose.length / 4));
    expect(t.countText(code)).toBe(Math.floor(code.length / 3));
    const counter = createCounter(t);
    const m = user('a'.repeat(400));
    // (400/4 + 5) × 1.1 = 115.5 → 115 for the message on its own
    expect(counter.message(m).total).toBe(115);
  });

  it('tiktoken encodings count known strings, CJK, emoji, and special-token text as text', () => {
    const o200k = getTokenizer('tiktoken:o200k_base');
    const cl100k = getTokenizer('tiktoken:cl100k_base');
    expect(o200k.countText('hello world')).toBe(2);
    expect(cl100k.countText('hello world')).toBe(2);
    expect(o200k.countText('<|endoftext|>')).toBeGreaterThan(1);
    expect(cl100k.countText('<|endoftext|>')).toBeGreaterThan(1);
    expect(o200k.countText('日本語のテキスト')).toBeGreaterThan(1);
    expect(o200k.countText('😀')).toBeGreaterThanOrEqual(1);
    expect(o200k.approximate).toBe(false);
  });

  it('max:<id> is the higher of the tokenizer and chars/4 (S1)', () => {
    const max = getTokenizer('max:tiktoken:o200k_base');
    const spaces = ' '.repeat(400); // BPE packs runs of spaces: chars/4 wins
    expect(max.countText(spaces)).toBe(Math.max(getTokenizer('tiktoken:o200k_base').countText(spaces), 100));
    expect(max.countText(spaces)).toBe(100);
    const cjk = '漢'.repeat(8); // BPE counts more than chars/4 here
    expect(max.countText(cjk)).toBe(getTokenizer('tiktoken:o200k_base').countText(cjk));
  });

  it('every listed id resolves and an unknown id is a clear error', () => {
    for (const id of TOKENIZER_IDS) expect(getTokenizer(id).id).toBe(id);
    expect(() => getTokenizer('nope')).toThrow(/unknown tokenizer "nope"/);
  });

  it('picks a sensible default per model family', () => {
    expect(defaultTokenizerFor('gpt-4o-2024-08-06', true)).toBe('tiktoken:o200k_base');
    expect(defaultTokenizerFor('gpt-4-0613', false)).toBe('tiktoken:cl100k_base');
    expect(defaultTokenizerFor('claude-sonnet-4-5', true)).toBe('calibrated');
    expect(defaultTokenizerFor('gemini-2.5-pro', false)).toBe('max:tiktoken:o200k_base');
  });
});

describe('message cost model', () => {
  it('breaks a message down into content, reasoning, tool calls, results, media and overhead', () => {
    const c = createCounter(getTokenizer('chars4'), { mediaTokens: 1000 });
    const m = msg('assistant', [
      { kind: 'text', text: 'a'.repeat(40) },
      { kind: 'reasoning', text: 'b'.repeat(80) },
      call('id12', 'Read', '{"path":"/x"}'),
      { kind: 'media', mediaType: 'image/png' },
    ]);
    const b = c.message(m);
    expect(b).toMatchObject({ content: 10, reasoning: 20, toolCalls: 1 + 1 + 4, media: 1000 });
    expect(b.total).toBe(10 + 20 + 6 + 1000 + b.overhead);
    const r = c.message(msg('user', [result('id12', 'c'.repeat(8))]));
    expect(r.toolResults).toBe(1 + 2);
  });

  it('counts a message once and reuses the breakdown', () => {
    let calls = 0;
    const t = { id: 'spy', label: 'spy', approximate: true, countText: (s: string) => (calls++, s.length) };
    const c = createCounter(t);
    const m = user('hello');
    c.message(m);
    const after = calls;
    c.message(m);
    expect(calls).toBe(after);
  });

  it("scales tool schemas by S1's ×2.09 when asked", () => {
    const tools = [{ name: 'read', description: 'reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
    const plain = createCounter(getTokenizer('chars4')).tools(tools);
    const scaled = createCounter(getTokenizer('chars4'), { schemaScale: 2.09 }).tools(tools);
    expect(scaled).toBe(Math.ceil(plain * 2.09));
  });

  it("session counts are additive over messages; shannon's prefix is the floored total (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 200 }), { minLength: 1, maxLength: 30 }),
        fc.constantFrom('chars4', 'runes2.5', 'shannon', 's4'),
        (texts, id) => {
          const s = session(texts.map((t, i) => (i % 2 ? assistant(t) : user(t))));
          const counts = countWith(s, id);
          const c = createCounter(getTokenizer(id));
          let sum = 0;
          let units = 0;
          s.messages.forEach((m, i) => {
            sum += c.message(m).total;
            units += c.message(m).units;
            expect(counts.prefix[i + 1]).toBe(counts.prefix[i]! + counts.perMessage[i]!);
            // S3: floor(1.1 × Σ units), taken once on the total (as ×11 / 10 on integers).
            expect(counts.prefix[i + 1]).toBe(id === 'shannon' ? Math.floor((units * 11) / 10) : sum);
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('S3 estimate: chars/4 (code chars/3) + 5 per message, ×1.1 floored on the total (docs/policies.md §Tokenizers and estimates)', () => {
  const ten = 'abcdefghij'; // 10 runes of prose: floor(10 / 4) = 2, + 5 = 7 units
  it('floors the total, not each message', () => {
    const c = countWith(session([user(ten), assistant(ten), user(ten)]), 'shannon');
    // 7 → floor(7.7) = 7; 14 → floor(15.4) = 15; 21 → floor(23.1) = 23. Per-message floors would give 7 × 3 = 21.
    expect(Array.from(c.prefix)).toEqual([0, 7, 15, 23]);
    expect(Array.from(c.perMessage)).toEqual([7, 8, 8]);
  });
  it('counts the system prompt with the same +5 and ×1.1', () => {
    const c = countWith(session([user(ten)], { systemPrompt: 'a'.repeat(39) }), 'shannon');
    // System: floor(39 / 4) = 9, + 5 = 14 units → floor(15.4) = 15. With the message: 14 + 7 = 21 → floor(23.1) = 23.
    expect(c.system).toBe(15);
    expect(c.system + c.prefix[1]!).toBe(23);
  });
  it("floors a message's text once, not per part, and counts code at 3 chars per token", () => {
    const b = createCounter(getTokenizer('shannon')).message(
      msg('user', [
        { kind: 'text', text: 'abcdef' },
        { kind: 'text', text: 'ghijkl' },
      ]),
    );
    // floor(12 / 4) = 3 (per part: 1 + 1 = 2); + 5 = 8 → floor(8.8) = 8.
    expect(b).toMatchObject({ content: 3, units: 8, total: 8 });
    const code = 'if (a[i] == b[j]) { x = f(y); } else { z = g(w); };;';
    // 52 runes, brackets and operators dense → floor(52 / 3) = 17.
    expect(code.length).toBe(52);
    expect(getTokenizer('shannon').countText(code)).toBe(17);
  });
});

describe('S4 estimate: system prompt + message content + tool-call arguments (docs/policies.md §Tokenizers and estimates)', () => {
  it('counts content and arguments at chars/4, not ids, names, reasoning, media or a per-message overhead', () => {
    const c = createCounter(getTokenizer('s4'), { mediaTokens: 1_000 });
    const b = c.message(
      msg('assistant', [
        { kind: 'text', text: 'hello' },
        { kind: 'reasoning', text: 'x'.repeat(400) },
        call('call_123456', 'Read', '{"path":"a.ts"}'),
        { kind: 'media', mediaType: 'image/png' },
      ]),
    );
    // ceil(5 / 4) = 2 for the content, ceil(15 / 4) = 4 for the arguments; nothing else.
    expect(b.total).toBe(6);
    // A result is its message's content: ceil(7 / 4) = 2, its call id not counted.
    expect(c.message(msg('user', [result('call_123456', 'ok then')])).total).toBe(2);
    // One content string per message: ceil((2 + 2) / 4) = 1, not 1 + 1.
    expect(
      c.message(
        msg('user', [
          { kind: 'text', text: 'ab' },
          { kind: 'text', text: 'cd' },
        ]),
      ).total,
    ).toBe(1);
  });
  it('counts the system prompt as it is, with no overhead', () => {
    const counts = countWith(session([user('abcd')], { systemPrompt: 'abcdefghij' }), 's4');
    // ceil(10 / 4) = 3; the message ceil(4 / 4) = 1.
    expect([counts.system, counts.prefix[1]]).toEqual([3, 1]);
  });
});

describe('calibrated tokenizer', () => {
  it('fits the unlogged overhead so estimates meet the reported prompt sizes', () => {
    // Each call's reported prompt = 18,000 unlogged + what the transcript holds.
    const msgs = [];
    for (let i = 0; i < 6; i++) {
      msgs.push(user('question '.repeat(50 + i * 20)));
      msgs.push(assistant('answer '.repeat(30)));
    }
    const base = countWith(session(msgs), 'tiktoken:o200k_base');
    const withUsage = msgs.map((m, i) => (m.role === 'assistant' ? { ...m, usage: usage(18_000 + base.prefix[i]!) } : m));
    const s = session(withUsage);
    const c = countWith(s, 'calibrated');
    expect(c.tokenizer).toBe('calibrated');
    expect(c.unlogged).toBeGreaterThan(17_500);
    expect(c.unlogged).toBeLessThan(18_500);
    s.messages.forEach((m, i) => {
      if (m.role !== 'assistant') return;
      const estimate = c.prefix[i]! + c.unlogged;
      expect(Math.abs(estimate - (18_000 + base.prefix[i]!))).toBeLessThan(60);
    });
  });

  it('without reported usage it is the base count with no overhead', () => {
    const s = session([user('hello there'), assistant('hi')]);
    const c = countWith(s, 'calibrated');
    expect(c.unlogged).toBe(0);
    expect([...c.perMessage]).toEqual([...countWith(s, 'tiktoken:o200k_base').perMessage]);
  });
});
