/** The summary cache key: it must change with anything the summary depends on, and only then. */
import { describe, expect, it } from 'vitest';
import { cached, memoryStore, summaryKey } from '../../../src/core/summarize/cache';
import { extractiveSummarizer } from '../../../src/core/summarize/extractive';
import type { Summarizer } from '../../../src/core/summarize/types';
import { assistant, user } from '../../helpers/session';

const s = extractiveSummarizer;
const folded = () => [user('fix parseConfig in src/a.ts'), assistant('done, it was the default port')];

describe('summaryKey', () => {
  it('is the same for equal content in new objects, and differs with the text, the previous summary, the target or the summarizer', () => {
    const base = summaryKey(s, { messages: folded(), previousSummary: 'earlier', targetTokens: 400 });
    expect(summaryKey(s, { messages: folded(), previousSummary: 'earl' + 'ier', targetTokens: 400 })).toBe(base);
    const others = [
      summaryKey(s, { messages: [user('fix parseConfig in src/b.ts'), folded()[1]!], previousSummary: 'earlier', targetTokens: 400 }),
      summaryKey(s, { messages: folded(), previousSummary: 'earlier.', targetTokens: 400 }),
      summaryKey(s, { messages: folded(), previousSummary: null, targetTokens: 400 }),
      summaryKey(s, { messages: folded(), previousSummary: '', targetTokens: 400 }),
      summaryKey(s, { messages: folded(), previousSummary: 'earlier', targetTokens: 401 }),
      summaryKey(s, { messages: folded().slice(0, 1), previousSummary: 'earlier', targetTokens: 400 }),
      summaryKey({ ...s, model: 'other' }, { messages: folded(), previousSummary: 'earlier', targetTokens: 400 }),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
  });

  it('answers a repeated request from the store without summarizing again', async () => {
    let calls = 0;
    // A summarizer that is not local (a remote one: costly) is answered from the store.
    const counting: Summarizer = { ...s, local: false, summarize: async (req) => (calls++, s.summarize(req)) };
    const store = memoryStore();
    const c = cached(counting, store);
    const a = await c.summarize({ messages: folded(), previousSummary: null, targetTokens: 400 });
    const b = await c.summarize({ messages: folded(), previousSummary: null, targetTokens: 400 });
    expect([a === b, calls, store.size]).toEqual([true, 1, 1]);
  });

  it('passes a local summarizer through: recomputing the extractive summary is cheaper than hashing and storing it', async () => {
    const store = memoryStore();
    const c = cached(extractiveSummarizer, store);
    await c.summarize({ messages: folded(), previousSummary: null, targetTokens: 400 });
    expect([c, store.size]).toEqual([extractiveSummarizer, 0]);
  });
});
