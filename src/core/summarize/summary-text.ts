/**
 * A summary as the replay holds it: its text is written out only when something reads it.
 *
 * A rolling summary (summarize/extractive.ts) is tens of KB, and a policy that compresses at
 * nearly every call (letta below its target) writes one per call: 10,000 calls made ~50 MB of
 * summary text per replay, kept alive by the compression events, of which the window shows one
 * (the selected call's detail). The replay needs of a summary only its token count (counted from
 * its layout, replay/summary-tokens.ts), whether a fact's key is in it (searched item by item,
 * `includes`) and the next summary's input (its sections) — none of which needs the text.
 *
 * Public results keep `summary?: string` on their events: `attachSummary` defines it as a getter
 * that writes the text on first read (JSON, structured clone and the API read it as a string),
 * while the engine reads the summary itself with `summaryOf`, which never writes the text.
 */

import type { LaneView } from './lane';

/** A summary the extractive summarizer wrote, as `render` lays it out: the header line, then each non-empty section's items. */
export interface SummaryLayout {
  readonly header: string;
  readonly sections: readonly SummarySection[];
  /** Messages the summary covers (the header's number), for the next rolling summary. */
  readonly messages: number;
}

export interface SummarySection {
  readonly title: string;
  /** Items on one line, "- a, b, c" (facts); else one "- item" per line. */
  readonly inline: boolean;
  readonly items: readonly string[];
  /**
   * Present when the items are a version of a rolling summary's log (lane.ts): its count and
   * characters are known without reading them, and `items` reads them from the log on first use.
   */
  readonly lane?: LaneView;
}

/** A section's number of items, without reading a lane's items. */
export function sectionCount(s: SummarySection): number {
  return s.lane ? s.lane.count : s.items.length;
}

/**
 * A zeroed Int32Array of `n` for numbers about the summary just written that the next one reads
 * (item numbers, where carried items came from, their counts): cut from a shared slab, so that
 * the several such arrays per section of every rolling summary are views of one buffer instead
 * of a buffer each (a typed array's own buffer is memory outside the heap, slow to allocate and
 * to free, and a compression per call made thousands per replay). A slab lives while any of its
 * views does: these are held only by small bounded caches (src/core/bounded-cache.ts), a few summaries long. 64 KB a slab: small
 * enough to come from malloc's reused memory, where 256 KB slabs were fresh pages (mmap) each.
 */
export function recentInts(n: number): Int32Array {
  // Nothing can be written to an empty one: one for all (a small rolling summary leaves most of
  // its sections' picks empty, and a view per empty section was most of this function's time).
  if (n === 0) return NO_INTS;
  if (n > SLAB_INTS / 8) return new Int32Array(n);
  if (slabAt + n > SLAB_INTS) {
    slab = new Int32Array(SLAB_INTS);
    slabAt = 0;
  }
  const out = slab.subarray(slabAt, slabAt + n);
  slabAt += n;
  return out;
}
const SLAB_INTS = 1 << 14;
const NO_INTS = new Int32Array(0);
let slab = new Int32Array(SLAB_INTS);
let slabAt = 0;

/** The text `layout` stands for: "header", then per section "\n## title\n- " and its items joined. */
export function renderLayout(layout: SummaryLayout): string {
  let out = layout.header;
  // One join per section (not a "- item" string per item first): a rolling summary is tens of KB.
  for (const s of layout.sections) out += `\n## ${s.title}\n- ` + s.items.join(s.inline ? ', ' : '\n- ');
  return out;
}

/** Characters `renderLayout` writes, counted without writing them. */
export function layoutLength(layout: SummaryLayout): number {
  let n = layout.header.length;
  for (const s of layout.sections) {
    // "\n## title\n", then "- a, b" (inline) or "- a\n- b".
    const count = sectionCount(s);
    n += s.title.length + 5 + (s.inline ? 2 + 2 * (count - 1) : 3 * count - 1);
    if (s.lane) n += s.lane.chars;
    else for (const i of s.items) n += i.length;
  }
  return n;
}

export class SummaryText {
  #text: string | undefined;
  /**
   * Present when the text is exactly `renderLayout(layout)` and every item reads back from it as
   * itself (no line break, no ", " in an inline item): then the layout may stand for the text in
   * counting, searching and the next summary's input.
   */
  readonly layout: SummaryLayout | undefined;
  /** The text's length in UTF-16 code units. */
  readonly length: number;

  private constructor(text: string | undefined, layout: SummaryLayout | undefined, length: number) {
    this.#text = text;
    this.layout = layout;
    this.length = length;
  }

  /**
   * A summary known only as text (a remote model's, an agent's own, one cut or noted). The same
   * text gives the same object while it is remembered, so memos keyed by summary (the fold memo
   * in replay/compress.ts) hit as they did when summaries were strings.
   */
  static of(text: string): SummaryText {
    let t = plain.get(text);
    if (!t) {
      if (plain.size >= PLAIN_KEPT || plainChars + text.length > PLAIN_CHARS) {
        plain.clear();
        plainChars = 0;
      }
      plain.set(text, (t = new SummaryText(text, undefined, text.length)));
      plainChars += text.length;
    }
    return t;
  }

  /**
   * A summary laid out by the extractive summarizer (see `layout` for what it must satisfy). The
   * same layout gives the same object while it is remembered, as `of` does for texts: a re-run at
   * another threshold often writes a summary it wrote before from other folds (a budget full of the
   * newest items), and the folds after it then hit the fold memo.
   */
  static laidOut(layout: SummaryLayout, length = layoutLength(layout)): SummaryText {
    const print = fingerprint(layout, length);
    const bucket = laidOutByPrint.get(print);
    if (bucket) for (const t of bucket) if (sameLayout(t.layout!, layout)) return t;
    const t = new SummaryText(undefined, layout, length);
    laidOutItems += 1 + layout.sections.reduce((n, s) => n + sectionCount(s), 0);
    if (laidOutItems > LAID_OUT_ITEMS) forgetLaidOut();
    if (bucket) bucket.push(t);
    else laidOutByPrint.set(print, [t]);
    return t;
  }

  /** The text, written on first read and kept. */
  get text(): string {
    return (this.#text ??= renderLayout(this.layout!));
  }

  /** `text.includes(key)`, without writing the text when the layout can answer exactly. */
  includes(key: string): boolean {
    const layout = this.layout;
    if (this.#text !== undefined || layout === undefined || !searchableByItem(key)) return this.text.includes(key);
    if (layout.header.includes(key)) return true;
    // Any piece will do: the inline sections (facts, short keys — what retention mostly looks
    // for) are searched first, then the rest, so a fact kept is found without reading every
    // decision before it.
    for (const s of layout.sections) if (s.inline && piecesInclude(s, key)) return true;
    for (const s of layout.sections) if (!s.inline && piecesInclude(s, key)) return true;
    return false;
  }

  toString(): string {
    return this.text;
  }

  toJSON(): string {
    return this.text;
  }
}

/** Whether the section's "## title" or one of its items holds `key`. */
function piecesInclude(s: SummarySection, key: string): boolean {
  if (`## ${s.title}`.includes(key)) return true;
  if (s.lane) return s.lane.some((item) => item.includes(key));
  for (const item of s.items) if (item.includes(key)) return true;
  return false;
}

/**
 * Whether an occurrence of `key` in a rendered layout must lie inside one piece (the header, a
 * "## title" or an item). The glue between pieces is "\n## ", "\n- " or ", ": an occurrence that
 * runs past a piece's end meets the glue's first character ("\n" or ","); one that starts in the
 * glue and runs into the next piece starts with "#", " " or "-". A key with none of those
 * therefore matches the text exactly where it matches a piece.
 */
function searchableByItem(key: string): boolean {
  if (key === '' || key.includes('\n') || key.includes(',')) return false;
  const c = key.charCodeAt(0);
  return c !== 35 /* # */ && c !== 32 /* space */ && c !== 45; /* - */
}

/** Bounded in number and characters: a long-lived process (the app) replays many sessions. */
const PLAIN_KEPT = 4_096;
const PLAIN_CHARS = 32 * 1024 * 1024;
let plainChars = 0;
const plain = new Map<string, SummaryText>();

/**
 * Laid-out summaries by a fingerprint of their shape, bounded by the items they hold (a rolling
 * summary holds thousands; the fold memo holds the same objects, so this adds little).
 */
const LAID_OUT_ITEMS = 4_000_000;
let laidOutItems = 0;
let laidOutByPrint = new Map<number, SummaryText[]>();

function forgetLaidOut(): void {
  laidOutByPrint = new Map();
  laidOutItems = 0;
}

/**
 * A hash of the layout's shape — covered messages, length, and per section its title and number of
 * items — in O(sections): equal layouts get equal prints, and `sameLayout` (which stops at the
 * first item that differs, mostly comparing the same string objects) settles the rest.
 */
function fingerprint(layout: SummaryLayout, length: number): number {
  let h = Math.imul(0x811c9dc5 ^ layout.messages, 0x01000193);
  h = Math.imul(h ^ length, 0x01000193);
  for (const s of layout.sections) h = Math.imul(Math.imul(h ^ s.title.length, 0x01000193) ^ sectionCount(s), 0x01000193);
  return h >>> 0;
}

function sameLayout(x: SummaryLayout, y: SummaryLayout): boolean {
  if (x.header !== y.header || x.messages !== y.messages || x.sections.length !== y.sections.length) return false;
  for (let k = 0; k < x.sections.length; k++) {
    const p = x.sections[k]!;
    const q = y.sections[k]!;
    if (p.title !== q.title || p.inline !== q.inline || sectionCount(p) !== sectionCount(q)) return false;
    // The same version of one log holds the same items (lane.ts); otherwise they are read and compared.
    if (p.lane && q.lane) {
      if (!p.lane.sameItems(q.lane)) return false;
      continue;
    }
    const a = p.items;
    const b = q.items;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  }
  return true;
}

/** Same text: the same object, or (rarely, same length) the same characters. */
export function sameSummary(a: SummaryText | null, b: SummaryText | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  // Two layouts whose items read back (see `layout`) render the same text exactly when they are
  // the same layout: compared item by item (mostly the same string objects), no text written.
  if (a.layout && b.layout) return sameLayout(a.layout, b.layout);
  return a.text === b.text;
}

/** The summaries behind events' `summary` getters (attachSummary). */
const attached = new WeakMap<object, SummaryText>();

/**
 * Gives `event` an enumerable `summary` property that reads as the text (written on first read),
 * in the position it is defined at (JSON keeps the order keys were added).
 */
export function attachSummary<E extends object>(event: E, summary: SummaryText): E {
  attached.set(event, summary);
  // One getter for every event (it finds the summary by its `this`), not a closure per event:
  // events given the same accessor share their shape, where each closure made a shape of its own.
  Object.defineProperty(event, 'summary', SUMMARY_PROPERTY);
  return event;
}

/** The summary attached to `o` or to the nearest object it inherits from. */
function summaryAbove(o: object | null): SummaryText | undefined {
  for (; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const summary = attached.get(o);
    if (summary) return summary;
  }
  return undefined;
}

const SUMMARY_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): string | undefined {
    // `this` is the event, or an object that inherits from it.
    return summaryAbove(this)?.text;
  },
};

/** The summary an event carries, without writing its text: attached ones as they are, plain strings wrapped. */
export function summaryOf(event: { readonly summary?: string }): SummaryText | undefined {
  const hit = attached.get(event);
  if (hit) return hit;
  return event.summary === undefined ? undefined : SummaryText.of(event.summary);
}

/** Whether an event has a summary, without writing its text. */
export function hasSummary(event: object): boolean {
  return attached.has(event) || (event as { summary?: unknown }).summary !== undefined;
}
