/**
 * Rolling summaries kept as lanes (summarize/lane.ts): a section is a version of a persistent
 * log, and the next summary's section is made from the head's trees instead of from its items.
 *
 * Checked against plain definitions: every version reads back as the items a model of arrays
 * holds (also after later versions were made, for forks, and for heads packed into lanes of
 * their own, which then go on); the trees' answers (`find`,
 * `reach`, `countIn`, `costIn`) equal a walk over the present items; and, through the summarizer,
 * a chain of summaries rolled forward from their layouts (the lanes) — also branching from older
 * summaries, which forks a lane — writes the very text the text path writes (parseSummary, arrays),
 * and counts to what its text counts.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Message } from '../../../src/core/model';
import { summaryCounter, summaryTextCounter } from '../../../src/core/replay/summary-tokens';
import { extractiveSummary, extractiveSummaryText } from '../../../src/core/summarize/extractive';
import { Lane, type LaneView } from '../../../src/core/summarize/lane';
import type { SummaryText } from '../../../src/core/summarize/summary-text';
import { assistant, call, msg, result, user } from '../../helpers/session';

/** The model: a version is an array of [id, text], newest first. */
type Item = readonly [number, string];
const textOf = (id: number): string => `item ${id} ${'x'.repeat((id * 7) % 23)}`;

function laneOfModel(items: readonly Item[]): LaneView {
  return Lane.of(
    items.map((x) => x[1]),
    items.map((x) => x[0]),
    items.map((x) => x[1].length),
    0,
  ).head;
}

/** Positions present in the head, highest first, by walking its list (the plain definition the trees must agree with). */
function presentPositions(lane: Lane): number[] {
  const out: number[] = [];
  for (let p = lane.top; p >= 0; p = lane.below[p]!) out.push(p);
  return out;
}

describe('lane', () => {
  // Small steps (most lanes keep their first capacity), and big ones: a lane starts with room for
  // twice its first items (at least 64 positions) and grows past it, its tables copied to a buffer
  // twice the size — versions made before must read back the same after.
  for (const [label, ids, fresh, runs] of [
    ['small steps', 60, 8, 150],
    ['steps past the first capacity', 400, 60, 40],
  ] as const) {
    it(`every version reads back as the model, trees agree with a walk over the items (${label})`, () => {
      const step = fc.record({
        keep: fc.array(fc.boolean(), { maxLength: 80 }),
        fresh: fc.array(fc.integer({ min: 0, max: ids }), { maxLength: fresh }),
        // The head packed into a lane of its own after the step (Lane.packed): the same items, and it goes on from there.
        pack: fc.boolean(),
      });
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.integer({ min: 0, max: ids }), { maxLength: 40 }),
          fc.array(step, { maxLength: 12 }),
          fc.integer({ min: 0, max: 11 }),
          (first, steps, forkAt) => {
            let model: Item[] = first.map((id) => [id, textOf(id)]);
            let view = laneOfModel(model);
            const versions: { view: LaneView; model: Item[] }[] = [{ view, model }];
            for (const [s, { keep, fresh, pack }] of steps.entries()) {
              const lane = view.lane;
              // Kept: the present positions the step's flags keep, as runs [a, u) highest first.
              const present = presentPositions(lane);
              const runs: number[] = [];
              const keptIds = new Set<number>();
              present.forEach((p, i) => {
                if (!(keep[i] ?? false)) return;
                keptIds.add(lane.ids[p]!);
                const n = runs.length;
                // A kept position right below the previous run's bottom extends it only when nothing present lies between (they are consecutive in `present`).
                if (n > 0 && i > 0 && (keep[i - 1] ?? false)) runs[n - 2] = p;
                else runs.push(p, p + 1);
              });
              const freshIds = [...new Set(fresh)];
              const freshItems = freshIds.map(textOf);
              const next = lane.extend(
                Int32Array.from(runs),
                runs.length / 2,
                freshItems,
                freshIds,
                freshItems.map((x) => x.length),
              );
              // Model: kept items not repeated by a fresh one, behind the fresh ones.
              model = [
                ...freshIds.map((id): Item => [id, textOf(id)]),
                ...model.filter(([id]) => keptIds.has(id) && !freshIds.includes(id)),
              ];
              view = next;
              versions.push({ view, model });
              expect(view.isHead).toBe(true);
              if (pack) {
                view = Lane.packed(view).head;
                expect(view.lane).not.toBe(next.lane);
                expect(view.lane.n).toBe(model.length);
                // The lane it left is retired: no version of it can be extended any more (a summary going on from one forks it).
                expect(next.isHead).toBe(false);
                versions.push({ view, model });
              }
              if (s === forkAt) {
                // A version that is no longer the head is forked into a lane of its own, the same items.
                const older = versions[Math.floor(versions.length / 2) - 1]!;
                if (!older.view.isHead) {
                  const forked = Lane.fork(older.view).head;
                  expect(forked.items).toEqual(older.model.map((x) => x[1]));
                  expect(forked.sameItems(older.view)).toBe(true);
                }
              }
            }
            for (const v of versions) {
              expect(v.view.count).toBe(v.model.length);
              expect(v.view.chars).toBe(v.model.reduce((n, x) => n + x[1].length, 0));
              expect(v.view.items).toEqual(v.model.map((x) => x[1]));
              expect(v.view.some((x) => x === v.model[0]?.[1])).toBe(v.model.length > 0);
            }
            // The head's trees against the items.
            const lane = view.lane;
            const present = presentPositions(lane);
            for (let u = 0; u <= lane.n; u++) {
              for (const maxLen of [-1, 0, 8, 12, 20, 40]) {
                const want = present.find((p) => p < u && lane.lens[p]! <= maxLen) ?? -1;
                expect(lane.find(u, maxLen)).toBe(want);
              }
              const below = present.filter((p) => p < u);
              for (const budget of [0, 5, 17, 40, 100, 10_000]) {
                // Lowest a: the longest run of items from u down that costs at most the budget.
                let spent = 0;
                let a = u;
                for (const p of below) {
                  if (spent + lane.lens[p]! + 3 > budget) break;
                  spent += lane.lens[p]! + 3;
                  a = p;
                }
                const got = lane.reach(u, budget);
                expect(got).toBeLessThanOrEqual(u);
                expect(lane.countIn(got, u)).toBe(below.filter((p) => p >= a).length);
                expect(lane.costIn(got, u)).toBe(spent);
              }
            }
          },
        ),
        { numRuns: runs },
      );
    });
  }
});

/** A session's messages from a small vocabulary: items repeat (the dedupe matters), lengths vary (the fill skips). */
function messagesOf(seeds: readonly number[]): Message[] {
  const out: Message[] = [];
  seeds.forEach((s, i) => {
    const file = `src/m${s % 9}/${'f'.repeat(1 + (s % 5))}${s % 13}.ts`;
    if (s % 6 === 0) out.push(user(`Please fix parser${s % 4} in ${file}, limit ${1000 + (s % 5)}.`));
    const long = s % 7 === 0 ? ' because '.concat('the cache was stale '.repeat(1 + (s % 6))) : '';
    out.push(
      assistant([
        { kind: 'text', text: s % 3 === 0 ? `I decided to switch approach ${s % 11}${long}.` : `Looking at ${file} now.` },
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

describe('rolling summaries over lanes', () => {
  const tokenizer = 'tiktoken:o200k_base';

  it('write what the text path writes, fold after fold and from older summaries, and count as their text', () => {
    const byText = summaryCounter(tokenizer);
    const byLayout = summaryTextCounter(tokenizer);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 20, maxLength: 90 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 4, maxLength: 25 }),
        fc.constantFrom(60, 150, 400, 1_500),
        fc.array(fc.nat(), { maxLength: 4 }),
        (seeds, folds, targetTokens, branches) => {
          const messages = messagesOf(seeds);
          const chain: SummaryText[] = [];
          let previous: SummaryText | null = null;
          let a = 0;
          for (const size of folds) {
            if (a >= messages.length) break;
            const fold = messages.slice(a, a + size);
            a += size;
            const next = extractiveSummaryText({ messages: fold, previous, targetTokens });
            expect(next.text).toBe(extractiveSummary({ messages: fold, previousSummary: previous?.text ?? null, targetTokens }));
            expect(byLayout(next)).toBe(byText(next.text));
            chain.push(next);
            previous = next;
          }
          // From an older summary (its lanes no longer heads: forked), twice from the same one.
          for (const b of branches) {
            const from = chain[b % chain.length]!;
            const fold = messages.slice(b % messages.length, (b % messages.length) + 1 + (b % 9));
            for (let twice = 0; twice < 2; twice++) {
              const next = extractiveSummaryText({ messages: fold, previous: from, targetTokens });
              expect(next.text).toBe(extractiveSummary({ messages: fold, previousSummary: from.text, targetTokens }));
              expect(byLayout(next)).toBe(byText(next.text));
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('write what the text path writes over a long chain, whose lanes are packed as their dropped positions pile up', () => {
    // 1,500 calls folded 4 messages at a time, as a policy compressing every few calls does: each
    // fold appends its items to the lanes and drops as many, so the lanes pass their packing size.
    const byText = summaryCounter(tokenizer);
    const byLayout = summaryTextCounter(tokenizer);
    const messages = messagesOf(Array.from({ length: 1_500 }, (_, i) => (i * 7919) % 401));
    let previous: SummaryText | null = null;
    const packed = vi.spyOn(Lane, 'packed');
    for (let a = 0; a < messages.length; a += 4) {
      const fold = messages.slice(a, a + 4);
      const next = extractiveSummaryText({ messages: fold, previous, targetTokens: 600 });
      expect(next.text).toBe(extractiveSummary({ messages: fold, previousSummary: previous?.text ?? null, targetTokens: 600 }));
      expect(byLayout(next)).toBe(byText(next.text));
      previous = next;
    }
    expect(packed).toHaveBeenCalled();
    packed.mockRestore();
  });
});
