/**
 * Counting the summary region (docs/policies.md §Common, summary). A summary is re-counted after
 * every compression, and with a BPE tokenizer that was most of a long replay's time: the summary
 * grows by folding, so each count re-encoded the text of every earlier one.
 *
 * A BPE encoding (js-tiktoken's o200k_base and cl100k_base: a pre-tokenizing regex, then merges
 * inside each piece) counts a text as the sum of its pieces' counts, so a text may be cut wherever
 * a piece always ends and nothing before the cut looks past it. Two such places, for both patterns:
 * - after a line break followed by a non-space: a piece holding the break is a run of white space
 *   ending in line breaks (`\s*[\r\n]+`) or punctuation with trailing line breaks (`[\r\n/]*`), and
 *   neither takes a non-space after it; a letter run's optional prefix is never a line break;
 * - between a comma and a space: no piece holds ", " (punctuation takes only an optional *leading*
 *   space, and a comma prefixes a letter run only when a letter follows).
 * Neither piece before such a cut is `\s+(?!\S)`, the one alternative that looks ahead. A summary
 * (summarize/extractive.ts) is lines of items and one line of facts separated by ", ", mostly
 * carried from the previous summary: segments are memoized, so only new items are encoded. The
 * heuristics (chars/4, runes × 2/5, ...) round per text and are linear anyway: they count whole.
 */
import { chars4 } from '../tokens/heuristics';
import { getTokenizer, CALIBRATION_BASE, type Tokenizer } from '../tokens/index';

/** Bounded so a long-lived process (the app) does not keep every line it ever counted. */
const MEMO_LIMIT = 50_000;

/** Where a segment ends: after "\n" before a non-space, or after "," before " " (see above). */
function isCut(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  if (c === 10) {
    const next = text.charCodeAt(at + 1);
    return next === next && !isSpace(next);
  }
  return c === 44 && text.charCodeAt(at + 1) === 32;
}

/** JavaScript's `\s` (what the split patterns use), for the character after a line break. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Which cut points are taken: a union of exact segments is exact, so any subset will do. Taking
 * one where the item since the previous cut point hashes to 0 mod CHUNK (content-defined, as in
 * rsync) makes segments a few items long, and after an item is inserted or removed the cuts fall
 * where they fell before: only the segment around the change is new to the memo.
 */
const CHUNK = 4;
/** FNV-1a over the first and the last few characters of [from, to): enough to tell items apart, bounded per item. */
function hashOf(text: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  const head = Math.min(to, from + 16);
  for (let i = from; i < head; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  for (let i = Math.max(head, to - 4); i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

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
    let previous = 0;
    // Candidates found with indexOf (native) rather than a loop over every character.
    let nl = text.indexOf('\n');
    let comma = text.indexOf(', ');
    while (nl >= 0 || comma >= 0) {
      const at = nl >= 0 && (comma < 0 || nl < comma) ? nl : comma;
      if (at === nl) nl = text.indexOf('\n', at + 1);
      else comma = text.indexOf(', ', at + 1);
      if (at + 1 >= text.length || !isCut(text, at)) continue;
      const take = hashOf(text, previous, at) % CHUNK === 0;
      previous = at + 1;
      if (take) {
        total += count(text.slice(start, at + 1));
        start = at + 1;
      }
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
