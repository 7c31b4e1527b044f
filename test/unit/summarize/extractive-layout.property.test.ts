/**
 * The list layout the replay's folds read (summarize/extractive.ts, FoldSource): built forward as
 * far as a fold needs, kept with the list, copied for a list a live-tail append grew from it
 * (carryLayout). Every summary written from it must be the one the per-message path writes for
 * the same messages (distinct message objects, which no layout knows), whatever the order the folds
 * come in, with or without an earlier summary.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { carryLayout, extractiveSummary, prepareMessageList, preparedItems } from '../../../src/core/summarize/extractive';
import { assistant, call, msg, result, user } from '../../helpers/session';

/** Messages from a small vocabulary: items repeat across messages (the newest mention counts), goals, errors, facts. */
function messagesOf(seeds: readonly number[], salt = ''): Message[] {
  const out: Message[] = [];
  seeds.forEach((s, i) => {
    const file = `src/m${s % 9}${salt}/${'f'.repeat(1 + (s % 5))}${s % 13}.ts`;
    if (s % 6 === 0) out.push(user(`Please fix parser${s % 4} in ${file}, limit ${1000 + (s % 5)}.`));
    out.push(
      assistant([
        { kind: 'text', text: s % 3 === 0 ? `I decided to switch approach ${s % 11} because it fails.` : `Looking at ${file} now.` },
        call(`c${i}`, 'Read', JSON.stringify({ file_path: file })),
      ]),
    );
    out.push(
      msg('user', [
        result(`c${i}`, s % 4 === 0 ? `TypeError: value ${s % 10} is undefined at ${file}\nmore` : `ok ${s % 5}\n`, s % 8 === 0),
      ]),
    );
  });
  return out;
}

const fold = fc.record({ at: fc.nat(), size: fc.integer({ min: 1, max: 40 }), previous: fc.option(fc.nat(), { nil: undefined }) });

/** Summaries of `folds` over `laid` (named by place) and over `plain` (the same messages, other objects), side by side. */
function both(
  laid: readonly Message[],
  plain: readonly Message[],
  folds: readonly { at: number; size: number; previous: number | undefined }[],
  targetTokens: number,
): { named: string[]; perMessage: string[] } {
  const named: string[] = [];
  const perMessage: string[] = [];
  for (const f of folds) {
    const a = f.at % laid.length;
    const b = Math.min(laid.length, a + f.size);
    const previousSummary = f.previous === undefined || named.length === 0 ? null : perMessage[f.previous % perMessage.length]!;
    named.push(extractiveSummary({ messages: laid.slice(a, b), previousSummary, targetTokens, source: { list: laid, from: a } }));
    perMessage.push(extractiveSummary({ messages: plain.slice(a, b), previousSummary, targetTokens }));
  }
  return { named, perMessage };
}

describe('the list layout folds read', () => {
  it('writes what the per-message path writes, for folds in any order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 5, maxLength: 80 }),
        fc.array(fold, { minLength: 1, maxLength: 15 }),
        fc.constantFrom(80, 400, 5_000),
        (seeds, folds, targetTokens) => {
          const { named, perMessage } = both(messagesOf(seeds), messagesOf(seeds), folds, targetTokens);
          expect(named).toEqual(perMessage);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('a list grown from a laid-out one (carryLayout) folds as the per-message path, inside the shared part and past it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 5, maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc.array(fold, { minLength: 1, maxLength: 6 }),
        fc.array(fold, { minLength: 1, maxLength: 10 }),
        (seeds, more, cut, before, after) => {
          const old = messagesOf(seeds);
          // The old list laid out as far as its folds went (maybe past the cut, maybe short of it).
          both(old, messagesOf(seeds), before, 400);
          // A rewrite from `from` on: the grown list keeps the first `from` messages as the same objects.
          const from = cut % (old.length + 1);
          const tail = messagesOf(more, 'x');
          const grown = [...old.slice(0, from), ...tail];
          carryLayout(old, grown, from);
          const plain = [...messagesOf(seeds).slice(0, from), ...messagesOf(more, 'x')];
          const { named, perMessage } = both(grown, plain, after, 400);
          expect(named).toEqual(perMessage);
          // The old list's own layout is untouched by the copy going on.
          const again = both(old, messagesOf(seeds), before, 400);
          expect(again.named).toEqual(again.perMessage);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('a list that grew in place is laid out again, not read past the layout made for its old length', () => {
    const list = messagesOf(Array.from({ length: 30 }, (_, i) => (i * 13) % 97));
    const plain = messagesOf(Array.from({ length: 30 }, (_, i) => (i * 13) % 97));
    both(list, plain, [{ at: 0, size: list.length, previous: undefined }], 400);
    const more = Array.from({ length: 20 }, (_, i) => (i * 29) % 97);
    list.push(...messagesOf(more, 'y'));
    plain.push(...messagesOf(more, 'y'));
    const { named, perMessage } = both(
      list,
      plain,
      [
        { at: 10, size: 60, previous: undefined },
        { at: 70, size: 40, previous: 0 },
      ],
      400,
    );
    expect(named).toEqual(perMessage);
  });

  it('lists each distinct item once when whole (preparedItems), and nothing before', () => {
    const list = messagesOf(Array.from({ length: 50 }, (_, i) => (i * 37) % 101));
    expect(prepareMessageList(list, () => true)).toBe(false);
    expect(preparedItems(list)).toBeUndefined();
    while (!prepareMessageList(list, () => true));
    const sections = preparedItems(list)!;
    expect(sections.map((s) => s.inline)).toEqual([false, false, false, true]);
    for (const { items } of sections) expect(new Set(items).size).toBe(items.length);
    // Every file a Read names is among the files.
    const files = new Set(sections[2]!.items);
    for (const m of list)
      for (const p of m.parts)
        if (p.kind === 'tool_call') expect(files.has(`${(JSON.parse(p.args) as { file_path: string }).file_path} (Read)`)).toBe(true);
  });
});
