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
import { recentItemIds } from '../summarize/extractive';
import type { LaneView } from '../summarize/lane';
import type { SummaryLayout, SummaryText } from '../summarize/summary-text';
import { chars4 } from '../tokens/heuristics';
import { getTokenizer, CALIBRATION_BASE, type Tokenizer } from '../tokens/index';
import { isJsSpace } from '../tokens/js-space';

/** Bounded so a long-lived process (the app) does not keep every line it ever counted. */
const MEMO_LIMIT = 50_000;

/**
 * Items are fewer than texts but a long session has tens of thousands (every error line); a memo
 * cleared mid-replay recounted them all. The items themselves are held by the summaries anyway.
 */
const ITEM_MEMO_LIMIT = 200_000;

/** Where a segment ends: after "\n" before a non-space, or after "," before " " (see above). */
function isCut(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  if (c === 10) {
    const next = text.charCodeAt(at + 1);
    return next === next && !isJsSpace(next);
  }
  return c === 44 && text.charCodeAt(at + 1) === 32;
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

/** `tokenizer.countText`, memoized in `memo` (cleared whole when it reaches MEMO_LIMIT entries). */
function memoCount(tokenizer: Tokenizer, memo: Map<string, number>): (text: string) => number {
  return (seg) => {
    let n = memo.get(seg);
    if (n === undefined) {
      n = tokenizer.countText(seg);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(seg, n);
    }
    return n;
  };
}

function segmentSum(tokenizer: Tokenizer, memo: Map<string, number>): (text: string) => number {
  const count = memoCount(tokenizer, memo);
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

/** The header extractive.ts writes, around its number of messages (layoutSum's headerCount). */
const HEADER_HEAD = 'Summary of ';
const HEADER_TAIL = ' earlier messages:';
const HEADER_TAIL_NL = HEADER_TAIL + '\n';

/**
 * Per shape memo, its counts by interned item number (summarize/extractive.ts `recentItemIds`; -1:
 * not yet), for the intern table's generation `generation`. The same counts as the memo's: a
 * number names one item's string while its generation lasts.
 */
interface CountsById {
  generation: number;
  counts: Int32Array;
}
const byIdOf = new WeakMap<Map<string, number>, CountsById>();

/**
 * A summary the extractive summarizer just wrote, counted from its layout instead of its text:
 * `header`, then per section "\n## title\n" and its items, "- item" one per line, or inline as
 * "- a, b, c". Every line break there is followed by "#" or "-" and every ", " is a cut (see
 * above), so the text's count is the sum of these segments': "header\n", "## title\n",
 * "- item\n" (the text's last one without "\n"), and inline "- a," " b," … " z". Each segment is
 * memoized by its item — the very string object the previous summaries held (V8 keeps a string's
 * hash in it) — so a summary costs a lookup per item, not a read of its text: 10,000 calls at a
 * compression per call made 50 MB of summary text per replay. A rolling summary's sections, kept
 * as lanes (summarize/lane.ts), cost less still: their middle items' counts are a running sum the
 * lane keeps as it grows, so only its fresh items are counted (laneCount).
 */
function layoutSum(
  tokenizer: Tokenizer,
  memo: Map<string, number>,
  shapes: Map<string, Map<string, number>>,
  chunks: Int32Array,
): (layout: SummaryLayout) => number {
  // One memo per (prefix, suffix), looked up once per section rather than once per item: a
  // rolling summary holds thousands of items, and building the shape's name for each was most of
  // a count's cost (and garbage).
  const shapeOf = (prefix: string, suffix: string): Map<string, number> => {
    const shape = prefix + suffix;
    let m = shapes.get(shape);
    if (!m) shapes.set(shape, (m = new Map()));
    return m;
  };
  /** `count` of items[i] in shape m, read by its number when `ids` has it (see CountsById). */
  const countAt = (
    m: Map<string, number>,
    prefix: string,
    items: readonly string[],
    i: number,
    suffix: string,
    ids: { readonly ids: Int32Array; readonly generation: number } | undefined,
  ): number => {
    if (!ids) return count(m, prefix, items[i]!, suffix);
    return countById(m, prefix, items[i]!, suffix, ids.ids[i]!, ids.generation);
  };
  /** `count` of `item`, whose interned number is `id` in the table's `generation`, read by number (see CountsById). */
  const countById = (m: Map<string, number>, prefix: string, item: string, suffix: string, id: number, generation: number): number => {
    let t = byIdOf.get(m);
    if (!t || t.generation !== generation) byIdOf.set(m, (t = { generation, counts: new Int32Array(1024).fill(-1) }));
    if (id >= t.counts.length) {
      const grown = new Int32Array(Math.max(id + 1, 2 * t.counts.length)).fill(-1);
      grown.set(t.counts);
      t.counts = grown;
    }
    let n = t.counts[id]!;
    if (n < 0) t.counts[id] = n = count(m, prefix, item, suffix);
    return n;
  };
  const count = (m: Map<string, number>, prefix: string, item: string, suffix: string): number => {
    let n = m.get(item);
    if (n === undefined) {
      n = tokenizer.countText(prefix + item + suffix);
      if (m.size >= ITEM_MEMO_LIMIT) m.clear();
      m.set(item, n);
    }
    return n;
  };
  const whole = memoCount(tokenizer, memo);
  const titles = shapeOf('## ', '\n');
  /**
   * The header, "Summary of N earlier messages:" and "\n" when sections follow, counted in pieces:
   * each summary has its own N, and a BPE count of each header was most of the counting of a
   * replay's first rolling summaries. Both split patterns make "Summary", " of", " " (a space
   * before a digit is a piece of its own), N's digits three at a time from the left, " earlier",
   * " messages" and ":" with its line break — the same pieces as "Summary of ", each three digits
   * and " earlier messages:\n" each alone, so the count is theirs summed (the digits' memoized by
   * number, allocation-free). Any other header is counted whole.
   */
  const headerCount = (header: string, end: string): number => {
    const d = header.length - HEADER_TAIL.length;
    if (d <= HEADER_HEAD.length || !header.startsWith(HEADER_HEAD) || !header.endsWith(HEADER_TAIL)) return whole(header + end);
    for (let i = HEADER_HEAD.length; i < d; i++) {
      const c = header.charCodeAt(i);
      if (c < 48 || c > 57) return whole(header + end);
    }
    let total = whole(HEADER_HEAD) + whole(end === '' ? HEADER_TAIL : HEADER_TAIL_NL);
    for (let i = HEADER_HEAD.length; i < d; i += 3) {
      const to = Math.min(d, i + 3);
      let value = 0;
      for (let k = i; k < to; k++) value = value * 10 + header.charCodeAt(k) - 48;
      // "7", "07" and "007" are different pieces: the chunk's length is part of its slot.
      const slot = (to - i - 1) * 1000 + value;
      let n = chunks[slot]!;
      if (n < 0) chunks[slot] = n = tokenizer.countText(header.slice(i, to));
      total += n;
    }
    return total;
  };
  /**
   * A section that is the head of its lane (summarize/lane.ts), counted as the loop below counts
   * items: its first and last item in their shapes, and the middle ones as the lane's running sum
   * of their middle-shape counts (kept by the lane as it grows: each fresh item counted once when
   * appended, each dropped one taken off) less the first and the last — no item carried is read.
   */
  const laneCount = (view: LaneView, end: string, midPrefix: string, midSuffix: string): number => {
    const lane = view.lane;
    const first = lane.items[lane.top]!;
    if (view.count === 1) return count(shapeOf('- ', end), '- ', first, end);
    const last = lane.items[lane.bottom]!;
    let total = count(shapeOf('- ', midSuffix), '- ', first, midSuffix) + count(shapeOf(midPrefix, end), midPrefix, last, end);
    if (view.count > 2) {
      const m = shapeOf(midPrefix, midSuffix);
      const generation = lane.generation;
      const all = lane.sum(m, (item, id) => countById(m, midPrefix, item, midSuffix, id, generation));
      total += all - lane.valueAt(m, lane.top) - lane.valueAt(m, lane.bottom);
    }
    return total;
  };
  return ({ header, sections }) => {
    if (sections.length === 0) return headerCount(header, '');
    let total = headerCount(header, '\n');
    for (let si = 0; si < sections.length; si++) {
      const section = sections[si]!;
      const { title, inline } = section;
      const lastSection = si === sections.length - 1;
      total += count(titles, '## ', title, '\n');
      const end = lastSection ? '' : '\n';
      const midSuffix = inline ? ',' : '\n';
      const midPrefix = inline ? ' ' : '- ';
      const view = section.lane;
      if (view?.isHead) {
        total += laneCount(view, end, midPrefix, midSuffix);
        continue;
      }
      const items = section.items;
      const n = items.length;
      if (n === 0) continue;
      const ids = recentItemIds(items);
      // The first item takes "- ", the last one the section's end; the rest share one shape.
      if (n === 1) {
        total += countAt(shapeOf('- ', end), '- ', items, 0, end, ids);
        continue;
      }
      total += countAt(shapeOf('- ', midSuffix), '- ', items, 0, midSuffix, ids);
      if (n > 2) {
        const m = shapeOf(midPrefix, midSuffix);
        for (let i = 1; i < n - 1; i++) total += countAt(m, midPrefix, items, i, midSuffix, ids);
      }
      total += countAt(shapeOf(midPrefix, end), midPrefix, items, n - 1, end, ids);
    }
    return total;
  };
}

const memos = new Map<string, Map<string, number>>();
/**
 * Whole summary texts counted, per BPE tokenizer (a summary known only as text: a remote model's,
 * a cut one). Bounded by characters.
 */
const wholeMemos = new Map<string, { readonly counts: Map<string, number>; chars: number }>();
const WHOLE_CHARS = 64 * 1024 * 1024;
/** Per BPE tokenizer, one memo per (prefix, suffix) around an item (layoutSum). */
const shapeMemos = new Map<string, Map<string, Map<string, number>>>();
/** Per BPE tokenizer, the counts of a header's digit pieces by length and value (layoutSum's headerCount; -1: not yet). */
const chunkMemos = new Map<string, Int32Array>();
/**
 * Per BPE tokenizer, the count of each summary object: a re-run after a slider move gets most of
 * its summaries back from compress.ts's fold memo, the same objects, and looks each up once.
 */
const docMemos = new Map<string, WeakMap<SummaryText, number>>();

function bpeOf(tokenizerId: string): { base: string; bpeId: string | undefined } {
  const base = tokenizerId === 'calibrated' ? CALIBRATION_BASE : tokenizerId;
  const bpeId = base.startsWith('max:') ? base.slice(4) : base;
  return { base, bpeId: bpeId.startsWith('tiktoken:') ? bpeId : undefined };
}

function memoOf<V>(all: Map<string, V>, id: string, make: () => V): V {
  let m = all.get(id);
  if (!m) all.set(id, (m = make()));
  return m;
}

/**
 * Counts summary items ahead of any summary, as `summaryTextCounter(tokenizerId)` will count them
 * in the middle of a section ("- item\n", or " item," inline): the replay worker's idle time
 * (main/host/replay-prewarm.ts) spends it on the session's items, so that the first replay
 * writing rolling summaries finds its fresh items counted — their first BPE counts were most of
 * that replay's counting (letta at trigger 0.4 and openhands-summary at 60 messages, 10,000 calls).
 * From `from` until `enough()` (asked every 64 items); returns where it stopped (`items.length`
 * when done). Nothing to do for a tokenizer that is not BPE, and it stops short of filling the
 * memo (a memo cleared mid-replay would count everything again). No count changes, only when it is made.
 */
export function precountSummaryItems(
  tokenizerId: string,
  items: readonly string[],
  inline: boolean,
  from: number,
  enough: () => boolean,
): number {
  const { base, bpeId } = bpeOf(tokenizerId);
  if (!bpeId || base === chars4.id) return items.length;
  const tokenizer = getTokenizer(bpeId);
  const shapes = memoOf(shapeMemos, bpeId, () => new Map());
  const prefix = inline ? ' ' : '- ';
  const suffix = inline ? ',' : '\n';
  let m = shapes.get(prefix + suffix);
  if (!m) shapes.set(prefix + suffix, (m = new Map()));
  let q = from;
  while (q < items.length) {
    if (m.size >= PRECOUNT_LIMIT) return items.length;
    const stop = Math.min(items.length, q + 64);
    for (; q < stop; q++) {
      const item = items[q]!;
      if (!m.has(item)) m.set(item, tokenizer.countText(prefix + item + suffix));
    }
    if (enough()) break;
  }
  return q;
}

/** Items counted ahead per shape at most: well short of ITEM_MEMO_LIMIT, so replays' own items still fit. */
const PRECOUNT_LIMIT = ITEM_MEMO_LIMIT / 2;

/** A function counting summary text as `tokenizerId` would count it, exactly. */
export function summaryCounter(tokenizerId: string): (text: string) => number {
  const { base, bpeId } = bpeOf(tokenizerId);
  if (!bpeId) {
    const t = getTokenizer(base);
    return (text) => t.countText(text);
  }
  const segments = segmentSum(
    getTokenizer(bpeId),
    memoOf(memos, bpeId, () => new Map()),
  );
  const known = memoOf(wholeMemos, bpeId, () => ({ counts: new Map<string, number>(), chars: 0 }));
  const sum = (text: string): number => {
    let n = known.counts.get(text);
    if (n !== undefined) return n;
    n = segments(text);
    known.chars += text.length;
    if (known.chars > WHOLE_CHARS) {
      known.counts.clear();
      known.chars = text.length;
    }
    known.counts.set(text, n);
    return n;
  };
  // S1's max(tokenizer, chars/4) takes the maximum over the whole text, not per segment.
  return base.startsWith('max:') ? (text) => Math.max(sum(text), chars4.countText(text)) : sum;
}

/**
 * A function counting a summary (summary-text.ts) as `tokenizerId` would count its text, exactly:
 * one laid out by the extractive summarizer from its layout, without writing its text; any other
 * from its text.
 */
export function summaryTextCounter(tokenizerId: string): (summary: SummaryText) => number {
  const ofText = summaryCounter(tokenizerId);
  const { base, bpeId } = bpeOf(tokenizerId);
  // chars4 counts the text's length, which a summary knows without writing its text.
  if (base === chars4.id) return (summary) => Math.ceil(summary.length / 4);
  if (!bpeId) return (summary) => ofText(summary.text);
  const byLayout = layoutSum(
    getTokenizer(bpeId),
    memoOf(memos, bpeId, () => new Map()),
    memoOf(shapeMemos, bpeId, () => new Map()),
    memoOf(chunkMemos, bpeId, () => new Int32Array(3000).fill(-1)),
  );
  const counted = memoOf(docMemos, bpeId, () => new WeakMap());
  const max = base.startsWith('max:');
  return (summary) => {
    const layout = summary.layout;
    if (!layout) return ofText(summary.text);
    let n = counted.get(summary);
    if (n === undefined) counted.set(summary, (n = byLayout(layout)));
    // chars4 of the text is its length over 4, which the summary knows without its text.
    return max ? Math.max(n, Math.ceil(summary.length / 4)) : n;
  };
}
