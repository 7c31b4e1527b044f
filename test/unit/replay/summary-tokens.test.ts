/**
 * A summary the extractive summarizer wrote is counted from its layout (item by item, memoized),
 * not from its text: the count must equal the tokenizer's count of the whole text, exactly, for
 * every summary of a rolling series (sections of lines, the inline facts line, the header).
 */
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { summaryCounter } from '../../../src/core/replay/summary-tokens';
import { extractiveSummary, writtenLayout } from '../../../src/core/summarize/extractive';
import { getTokenizer } from '../../../src/core/tokens/index';
import { claudeCodeText } from '../../bench/corpus';

async function rollingSummaries(): Promise<string[]> {
  const { sessions } = await importSource(stringSource('s.jsonl', claudeCodeText({ calls: 400 })));
  const messages = sessions[0]!.messages;
  const out: string[] = [];
  let previous: string | null = null;
  // Folds of a few messages each, with growing and shrinking targets: items carried, faded, new.
  for (let at = 0, i = 0; at < messages.length; at += 7 + (i % 5), i++) {
    previous = extractiveSummary({ messages: messages.slice(at, at + 7 + (i % 5)), previousSummary: previous, targetTokens: [300, 2_000, 8_000][i % 3]! });
    out.push(previous);
  }
  return out;
}

describe('summaryCounter on extractive summaries', () => {
  it.each(['tiktoken:o200k_base', 'tiktoken:cl100k_base', 'calibrated', 'max:tiktoken:o200k_base'])('counts each summary by its layout exactly as %s counts its text', async (id) => {
    const summaries = await rollingSummaries();
    expect(summaries.length).toBeGreaterThan(50);
    const count = summaryCounter(id);
    const base = id === 'calibrated' ? getTokenizer('tiktoken:o200k_base') : getTokenizer(id.replace(/^max:/, ''));
    let viaLayout = 0;
    for (const text of summaries) {
      if (writtenLayout(text)) viaLayout++;
      const exact = id.startsWith('max:') ? Math.max(base.countText(text), Math.ceil(text.length / 4)) : base.countText(text);
      expect(count(text)).toBe(exact);
    }
    // The layout path was taken (the last summaries written are remembered), not only the text path.
    expect(viaLayout).toBeGreaterThan(0);
  });

  it('counts a summary it did not write (cut, or from elsewhere) from its text', () => {
    const count = summaryCounter('tiktoken:o200k_base');
    const text = 'Summary of 3 earlier messages:\n## Facts to keep\n- a, b, c\n[Context overflow: 2 earlier turns were dropped.]';
    expect(writtenLayout(text)).toBeUndefined();
    expect(count(text)).toBe(getTokenizer('tiktoken:o200k_base').countText(text));
  });
});
