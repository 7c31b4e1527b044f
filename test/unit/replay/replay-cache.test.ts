/**
 * What a re-run after a slider move may skip: a replay with another threshold asks the summarizer
 * only for folds it has not seen (same messages, same earlier summary, same target) and
 * tokenizes no summary text it counted before — only what is new in each summary.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { replay } from '../../../src/core/replay/index';
import { extractiveSummarizer } from '../../../src/core/summarize/extractive';
import type { Summarizer, SummaryTextRequest } from '../../../src/core/summarize/types';
import { countWith, getTokenizer } from '../../../src/core/tokens/index';
import { codingTurns, session } from '../../helpers/session';
import { compressions, policy } from '../../helpers/replay';

describe('a re-run after a threshold change', () => {
  afterEach(() => vi.restoreAllMocks());

  it('summarizes only new folds and tokenizes no summary text it has seen', async () => {
    const s = session(codingTurns(80));
    const tokenizer = 'tiktoken:o200k_base';
    const counts = countWith(s, tokenizer);
    const asked: SummaryTextRequest[] = [];
    // The replay asks a local summarizer for its laid-out summary (summarizeText).
    const spySummarizer: Summarizer = {
      ...extractiveSummarizer,
      summarizeText: (req) => (asked.push(req), extractiveSummarizer.summarizeText!(req)),
    };
    const encoded: string[] = [];
    const bpe = getTokenizer(tokenizer);
    const real = bpe.countText.bind(bpe);
    vi.spyOn(bpe, 'countText').mockImplementation((text: string) => (encoded.push(text), real(text)));
    const run = (trigger: number) =>
      replay(s, policy('letta', { tokenizer, window: 16_000, maxOutput: 2_000, trigger }), { counts, summarizer: spySummarizer });

    const first = await run(0.5);
    expect(compressions(first).length).toBeGreaterThan(3);
    const seenTexts = new Set(encoded);
    const seenFolds = new Set(asked.map(foldKey));
    expect(seenTexts.size).toBeGreaterThan(0);

    // The same replay again: nothing is summarized or tokenized.
    asked.length = 0;
    encoded.length = 0;
    await run(0.5);
    expect([asked.length, encoded.length]).toEqual([0, 0]);

    // Another trigger: other folds, but never one asked before, and never a text encoded before.
    const other = await run(0.6);
    expect(compressions(other).map((c) => c.step)).not.toEqual(compressions(first).map((c) => c.step));
    expect(asked.length).toBeGreaterThan(0);
    for (const r of asked) expect(seenFolds.has(foldKey(r))).toBe(false);
    for (const t of encoded) expect(seenTexts.has(t)).toBe(false);
    // And a summary is counted by its new parts: less is encoded than the summaries hold.
    const summaryChars = compressions(other).reduce((n, c) => n + (c.summary?.length ?? 0), 0);
    expect(encoded.reduce((n, t) => n + t.length, 0)).toBeLessThan(summaryChars);
  });
});

function foldKey(r: SummaryTextRequest): string {
  return JSON.stringify([r.targetTokens, r.previous?.text ?? null, r.messages.map((m) => m.id)]);
}
