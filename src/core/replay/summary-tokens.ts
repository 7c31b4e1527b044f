/**
 * Counting the summary region (docs/policies.md §Common, summary). A summary is re-counted after
 * every compression, and with a BPE tokenizer that was most of a long replay's time: the summary
 * grows by folding, so each count re-encoded the text of every earlier one.
 *
 * A BPE encoding (js-tiktoken: pre-tokenizing regex, then merges inside each piece) never lets a
 * piece run across the end of a run of line breaks — the regex's `\s*[\r\n]+` alternative closes
 * it — so the count of a text is the sum of the counts of its line-break-terminated segments.
 * Segments are memoized, so an old summary carried into a new one is not encoded again. The
 * heuristics (chars/4, runes × 2/5, ...) round per text and are linear anyway: they count whole.
 */
import { chars4 } from '../tokens/heuristics';
import { getTokenizer, CALIBRATION_BASE, type Tokenizer } from '../tokens/index';

const SEGMENT = /[^\r\n]*(?:[\r\n]+|$)/g;
/** Bounded so a long-lived process (the app) does not keep every line it ever counted. */
const MEMO_LIMIT = 50_000;

function segmentSum(tokenizer: Tokenizer, memo: Map<string, number>): (text: string) => number {
  return (text) => {
    let total = 0;
    SEGMENT.lastIndex = 0;
    for (let m = SEGMENT.exec(text); m !== null && m[0].length > 0; m = SEGMENT.exec(text)) {
      const seg = m[0];
      let n = memo.get(seg);
      if (n === undefined) {
        n = tokenizer.countText(seg);
        if (memo.size >= MEMO_LIMIT) memo.clear();
        memo.set(seg, n);
      }
      total += n;
    }
    return total;
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
