/**
 * A summary the extractive summarizer wrote is counted from its layout (item by item, memoized),
 * not from its text: the count must equal the tokenizer's count of the whole text, exactly, for
 * every summary of a rolling series (sections of lines, the inline facts line, the header).
 */
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { summaryCounter, summaryTextCounter } from '../../../src/core/replay/summary-tokens';
import { extractiveSummaryText } from '../../../src/core/summarize/extractive';
import { SummaryText } from '../../../src/core/summarize/summary-text';
import { getTokenizer } from '../../../src/core/tokens/index';
import { claudeCodeText } from '../../bench/corpus';

async function rollingSummaries(): Promise<SummaryText[]> {
  const { sessions } = await importSource(stringSource('s.jsonl', claudeCodeText({ calls: 400 })));
  const messages = sessions[0]!.messages;
  const out: SummaryText[] = [];
  let previous: SummaryText | null = null;
  // Folds of a few messages each, with growing and shrinking targets: items carried, faded, new.
  for (let at = 0, i = 0; at < messages.length; at += 7 + (i % 5), i++) {
    previous = extractiveSummaryText({
      messages: messages.slice(at, at + 7 + (i % 5)),
      previous,
      targetTokens: [300, 2_000, 8_000][i % 3]!,
    });
    out.push(previous);
  }
  return out;
}

describe('summaryCounter on extractive summaries', () => {
  it.each(['tiktoken:o200k_base', 'tiktoken:cl100k_base'])(
    'counts the header, whatever its number of messages, exactly as %s counts the text',
    (id) => {
      // The header is counted in pieces (its digits three at a time): numbers of every length,
      // zeros inside a group ("1000", "1007": "100" and "0", "100" and "7"), with and without sections.
      const count = summaryTextCounter(id);
      const base = getTokenizer(id);
      const numbers = [
        1, 7, 9, 10, 42, 99, 100, 101, 999, 1000, 1007, 1010, 4096, 10000, 10070, 12345, 99999, 100000, 100007, 1234567, 1000000000,
      ];
      for (const n of numbers) {
        for (const sections of [[], [{ title: 'Facts to keep', inline: true, items: ['ORD-1187', 'port 8080'] }]]) {
          const summary = SummaryText.laidOut({ header: `Summary of ${n} earlier messages:`, messages: n, sections });
          expect([n, count(summary)]).toEqual([n, base.countText(summary.text)]);
        }
      }
    },
  );

  it.each(['tiktoken:o200k_base', 'tiktoken:cl100k_base', 'calibrated', 'max:tiktoken:o200k_base'])(
    'counts each summary by its layout exactly as %s counts its text',
    async (id) => {
      const summaries = await rollingSummaries();
      expect(summaries.length).toBeGreaterThan(50);
      const count = summaryTextCounter(id);
      const countText = summaryCounter(id);
      const base = id === 'calibrated' ? getTokenizer('tiktoken:o200k_base') : getTokenizer(id.replace(/^max:/, ''));
      let viaLayout = 0;
      for (const summary of summaries) {
        // Counted before the text is read: a laid-out summary is counted without writing it.
        const n = count(summary);
        if (summary.layout) viaLayout++;
        const text = summary.text;
        const exact = id.startsWith('max:') ? Math.max(base.countText(text), Math.ceil(text.length / 4)) : base.countText(text);
        expect([n, countText(text)]).toEqual([exact, exact]);
        expect(summary.length).toBe(text.length);
      }
      // The layout path was taken for every summary here (their items all read back), not the text path.
      expect(viaLayout).toBe(summaries.length);
    },
  );

  it.each(['tiktoken:o200k_base', 'calibrated'])(
    'counts each rolling summary right after writing it, as a replay does (carried items read from the previous count), exactly as %s counts its text',
    async (id) => {
      // The replay counts a summary before the next is written: the items the next one carries are
      // then added from the counts just made (noteCarried), not looked up one by one.
      const { sessions } = await importSource(stringSource('s.jsonl', claudeCodeText({ calls: 400 })));
      const messages = sessions[0]!.messages;
      const count = summaryTextCounter(id);
      const base = getTokenizer('tiktoken:o200k_base');
      let previous: SummaryText | null = null;
      let checked = 0;
      let carried = 0;
      for (let at = 0, i = 0; at < messages.length; at += 3 + (i % 4), i++) {
        const next: SummaryText = extractiveSummaryText({
          messages: messages.slice(at, at + 3 + (i % 4)),
          previous,
          targetTokens: [1_500, 4_000][i % 2]!,
        });
        const n = count(next);
        expect(n).toBe(base.countText(next.text));
        if (previous?.layout && next.layout) carried++;
        previous = next;
        checked++;
      }
      expect(checked).toBeGreaterThan(100);
      expect(carried).toBeGreaterThan(100);
    },
  );

  it('counts a summary it did not write (cut, or from elsewhere) from its text', () => {
    const count = summaryCounter('tiktoken:o200k_base');
    const text = 'Summary of 3 earlier messages:\n## Facts to keep\n- a, b, c\n[Context overflow: 2 earlier turns were dropped.]';
    expect(SummaryText.of(text).layout).toBeUndefined();
    expect(count(text)).toBe(getTokenizer('tiktoken:o200k_base').countText(text));
    expect(summaryTextCounter('tiktoken:o200k_base')(SummaryText.of(text))).toBe(getTokenizer('tiktoken:o200k_base').countText(text));
  });
});
