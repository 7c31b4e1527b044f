/**
 * Counting the summary region (docs/policies.md §Common, summary). A summary is re-counted after
 * every compression, and with a BPE tokenizer that was most of a long replay's time: the summary
 * grows by folding, so each count re-encoded the text of every earlier one.
 *
 * A BPE encoding (js-tiktoken: pre-tokenizing regex, then merges inside each piece) never lets a
 * piece run from a line break into the character after it unless that character is a letter
 * run's optional prefix — and `#` after a line break always starts a new piece — so the count of a
 * text is the sum of the counts of its segments cut before each line that starts with `#`: the
 * sections of a summary (summarize/extractive.ts writes `## Section` headers, and an earlier
 * summary is carried inside a new one section by section). Segments are memoized, so an old
 * summary carried into a new one is not encoded again; cutting by section rather than by line
 * keeps the number of encoder calls (each with a fixed setup cost) small. The heuristics
 * (chars/4, runes × 2/5, ...) round per text and are linear anyway: they count whole.
 */
import { chars4 } from '../tokens/heuristics';
import { getTokenizer, CALIBRATION_BASE, type Tokenizer } from '../tokens/index';

/** Bounded so a long-lived process (the app) does not keep every line it ever counted. */
const MEMO_LIMIT = 50_000;

function segmentSum(tokenizer: Tokenizer, memo: Map<string, number>): (text: string) => number {
  const count = (seg: string): number => {
    let n = memo.get(seg);
    if (n === undefined) {
      n = tokenizer.countText(seg);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(seg, n);
    }
    return n;
  };
  return (text) => {
    let total = 0;
    let start = 0;
    for (let at = text.indexOf('\n#'); at >= 0; at = text.indexOf('\n#', at + 1)) {
      total += count(text.slice(start, at + 1));
      start = at + 1;
    }
    return start < text.length ? total + count(text.slice(start)) : total;
  };
}

const memos = new Map<string, Map<string, number>>();

/** A function counting summary text as `tokenizerId` would count it, exactly. */
export function summaryCounter(tokenizerId: string): (text: string) => number {
  const base = tokenizerId === 'calibrated' ? CALIBRATION_BASE : tokenizerId;
  const bpeId = base.startsWith('max:') ? base.slice(4) : base;
  if (!bpeId.startsWith('tiktoken:')) {
    const t = getTokenizer(base);
    return (text) => t.countText(text);
  }
  let memo = memos.get(bpeId);
  if (!memo) memos.set(bpeId, (memo = new Map()));
  const sum = segmentSum(getTokenizer(bpeId), memo);
  // S1's max(tokenizer, chars/4) takes the maximum over the whole text, not per segment.
  return base.startsWith('max:') ? (text) => Math.max(sum(text), chars4.countText(text)) : sum;
}
