/**
 * A summary the replay holds without its text (summarize/summary-text.ts): every answer it gives
 * from its layout must be the one its text gives, and a replay must not write the texts of the
 * summaries nobody reads.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { replay } from '../../../src/core/replay/index';
import { toView, withoutSummary } from '../../../src/core/replay/serialize';
import { chartView } from '../../../src/core/replay/chart-view';
import { stepDetail } from '../../../src/core/replay/step-detail';
import {
  attachSummary,
  recentInts,
  renderLayout,
  sameSummary,
  summaryOf,
  SummaryText,
  type SummaryLayout,
} from '../../../src/core/summarize/summary-text';
import { countWith } from '../../../src/core/tokens/index';
import { codingTurns, session } from '../../helpers/session';
import { compressions, policy } from '../../helpers/replay';

// Items as the extractive summarizer writes them: no line break, no surrounding space, and no
// ", " in an inline (facts) item; short words so that keys often hit and straddle pieces.
const word = fc.constantFrom('a', 'b', 'ab', 'x-1', '#', 'port', 'src/a.ts', 'A', '- ', 'é', '1,2');
const item = fc
  .array(word, { minLength: 1, maxLength: 3 })
  .map((w) => w.join(' '))
  .filter((x) => x === x.trim());
const layout: fc.Arbitrary<SummaryLayout> = fc
  .record({
    messages: fc.nat(50),
    sections: fc.array(
      fc.record({
        title: fc.constantFrom('Goal', 'Errors seen', 'Facts to keep'),
        inline: fc.boolean(),
        items: fc.array(item, { minLength: 1, maxLength: 5 }),
      }),
      { maxLength: 4 },
    ),
  })
  .map(({ messages, sections }) => ({
    header: `Summary of ${messages} earlier messages:`,
    messages,
    sections: sections
      .map((s) => (s.inline ? { ...s, items: s.items.filter((x) => !x.includes(', ')) } : s))
      .filter((s) => s.items.length > 0),
  }));
// Keys cut out of rendered text (so they straddle pieces) and free ones (with separators).
const key = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.array(fc.constantFrom('a', ' ', '-', '#', ',', '\n', 'b', '1', ':'), { maxLength: 5 }).map((c) => c.join('')),
);

describe('SummaryText', () => {
  afterEach(() => vi.restoreAllMocks());

  it('finds a key in its layout exactly where its text has it', () => {
    fc.assert(
      fc.property(layout, key, fc.nat(200), fc.nat(8), (l, k, at, len) => {
        const text = renderLayout(l);
        const cut = text.slice(at % (text.length + 1), (at % (text.length + 1)) + len);
        for (const probe of [k, cut]) expect(SummaryText.laidOut(l).includes(probe)).toBe(text.includes(probe));
        expect(SummaryText.laidOut(l).length).toBe(text.length);
      }),
      { numRuns: 400 },
    );
  });

  it('is the same summary exactly when the text is the same', () => {
    fc.assert(
      fc.property(layout, layout, (a, b) => {
        const same = renderLayout(a) === renderLayout(b);
        expect(sameSummary(SummaryText.laidOut(a), SummaryText.laidOut(b))).toBe(same);
        expect(sameSummary(SummaryText.laidOut(a), SummaryText.of(renderLayout(b)))).toBe(same);
      }),
      { numRuns: 300 },
    );
    // The same layout (item for item) gives the same object, so memos keyed by summary hit.
    const l: SummaryLayout = {
      header: 'Summary of 2 earlier messages:',
      messages: 2,
      sections: [{ title: 'Goal', inline: false, items: ['fix it'] }],
    };
    expect(SummaryText.laidOut({ ...l, sections: [{ ...l.sections[0]!, items: ['fix it'] }] })).toBe(SummaryText.laidOut(l));
  });

  it('reads as its text on an event, in JSON and through structured clone, and is dropped without being written', () => {
    const l: SummaryLayout = {
      header: 'Summary of 1 earlier messages:',
      messages: 1,
      sections: [{ title: 'Facts to keep', inline: true, items: ['ORD-1187', 'port'] }],
    };
    const event = attachSummary(
      { kind: 'compression' as const, step: 3 } as { kind: 'compression'; step: number; note?: string; summary?: string },
      SummaryText.laidOut(l),
    );
    event.note = 'after';
    const text = 'Summary of 1 earlier messages:\n## Facts to keep\n- ORD-1187, port';
    // In the place it was attached at, before the note (as compress.ts records an event).
    expect(JSON.stringify(event)).toBe(JSON.stringify({ kind: 'compression', step: 3, summary: text, note: 'after' }));
    expect(structuredClone(event).summary).toBe(text);
    expect(summaryOf(event)?.text).toBe(text);
    expect(summaryOf({ summary: 'plain' })?.text).toBe('plain');
    // Two events share the one getter, each reading its own summary (and so does a spread copy).
    const other = attachSummary({ kind: 'compression' as const, step: 4 } as { summary?: string }, SummaryText.of('other'));
    expect([event.summary, other.summary, { ...other }.summary]).toEqual([text, 'other', 'other']);
  });

  it('lets a replay count, search and fold summaries without writing their texts; one call’s detail writes only its own', async () => {
    const s = session(codingTurns(120));
    const tokenizer = 'tiktoken:o200k_base';
    const counts = countWith(s, tokenizer);
    const written = vi.spyOn(SummaryText.prototype, 'text', 'get');
    // letta below its target compresses at nearly every call: a rolling summary each time.
    const r = await replay(s, policy('letta', { tokenizer, window: 16_000, maxOutput: 2_000, trigger: 0.4 }), { counts });
    const cs = compressions(r);
    expect(cs.length).toBeGreaterThan(20);
    toView(r);
    chartView(r, { key: 'k', buckets: 100 });
    cs.map(withoutSummary);
    expect(written).not.toHaveBeenCalled();
    const last = cs[cs.length - 1]!;
    const d = stepDetail(r, s, last.step, { key: 'k', perMessage: counts.perMessage });
    expect(d.compression?.summary).toBe(last.summary);
    // The call's summary and the one before it: two texts, not one per compression (the loss ledger
    // at this call reads its own summary's text more than once; still those two summaries only).
    expect(new Set(written.mock.contexts).size).toBeLessThanOrEqual(2);
    expect(last.summary).toMatch(/^Summary of \d+ earlier messages:/);
  });
});

describe('recentInts', () => {
  it('hands out zeroed arrays of the size asked, none sharing an element with another', () => {
    const arrays = [3, 0, 1_000, 5_000, 70_000, 2_048, 2_049, 17].flatMap((n) => Array.from({ length: 12 }, () => recentInts(n)));
    for (const a of arrays) expect(a.every((x) => x === 0)).toBe(true);
    // Each written with its own mark: a shared element would show another array's mark.
    arrays.forEach((a, i) => a.fill(i + 1));
    arrays.forEach((a, i) => expect(a.every((x) => x === i + 1)).toBe(true));
    expect(arrays.map((a) => a.length).slice(0, 13)).toEqual([...Array.from({ length: 12 }, () => 3), 0]);
  });
});
