/**
 * The default summarizer: extractive, deterministic and offline, so replays are reproducible.
 * Structured like S4's summary (docs/policies.md §S4) — goal, decisions and findings, errors,
 * files touched, facts to keep — built from the folded messages' own sentences, within the
 * target size.
 *
 * It is a rolling summary: each compression hands it only the messages it folds and the summary
 * the window already had. The previous summary is re-summarized into a share of the budget — what
 * it covered, against what is folded now, but never more than half — so the newest material always
 * has room and older material fades by halves instead of crowding it out. Files touched and facts
 * carry over from the previous summary (file tracking, docs/policies.md §S4) as long as their share holds them.
 * Work per call is proportional to what is folded and what the summary drops, never the session
 * nor the items it carries: a summary written here keeps each section as a version of a
 * persistent log (lane.ts), and the next one is filled from the log's trees.
 */
import { lowerBound } from '../sorted';
import type { Message } from '../model';
import { BoundedCache } from '../bounded-cache';
import { factsOfMessage, ownString } from './facts';
import { Lane, LaneView } from './lane';
import { recentInts, renderLayout, sectionCount, SummaryText, type SummaryLayout, type SummarySection } from './summary-text';
import type { FoldSource, Summarizer, SummaryRequest, SummaryTextRequest } from './types';

const DECISION =
  /\b(decid|fix|fixed|root cause|because|found|the (?:bug|issue|problem)|will|should|must|plan|instead|switch|conclud|result|pass|fail)/i;
// No leading \b on error/exception: "TypeError", "ValueError", "NullPointerException" count.
const ERROR = /(error|exception)s?\b|\b(failed|failure|traceback|panic|assert)/i;

/** Characters per token the budget assumes: chars4's (docs/policies.md §Tokenizers and estimates). */
const CHARS_PER_TOKEN = 4;
const MIN_CHARS = 200;
/** Longest item kept verbatim; longer ones are cut with an ellipsis. */
const ITEM_CHARS = 200;
const HEADER = /^Summary of (\d+) earlier messages:$/;

/** Sections in the order they are shown; the goal is the task as first given and stays first. */
const SECTIONS = ['Earlier summary', 'Goal', 'Decisions and findings', 'Errors seen', 'Files', 'Facts to keep'] as const;
type Section = (typeof SECTIONS)[number];
/** Facts are short keys shown on one line; every other section shows one item per line. */
const INLINE: ReadonlySet<Section> = new Set(['Facts to keep']);

type Sections = Map<Section, string[]>;

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 12 && s.length < 400);
}

function clip(s: string, n = ITEM_CHARS): string {
  return s.length <= n ? s : s.slice(0, n - 1) + '…';
}

/** What one message contributes to each section, in the message's order. */
interface MessageItems {
  readonly decisions: readonly string[];
  readonly errors: readonly string[];
  readonly files: readonly string[];
  readonly facts: readonly string[];
  /** Every item reads back from `render`'s output as itself (see readsBack): a summary of such messages needs no check. */
  readonly readsBack: boolean;
}

/**
 * What a message contributes, read from its text. Kept per message only as interned numbers
 * (`idsOf`): the strings of a message's items live once in the intern table, so what a long
 * session keeps per message is a few numbers, never its text or slices of it.
 */
function itemsOf(m: Message): MessageItems {
  const decisions: string[] = [];
  const errors: string[] = [];
  const files: string[] = [];
  for (const p of m.parts) {
    if (p.kind === 'tool_call') {
      const path = /"(?:file_path|path|filename|file)"\s*:\s*"([^"]+)"/.exec(p.args)?.[1];
      if (path) files.push(`${path} (${p.name})`);
      continue;
    }
    const text = p.kind === 'text' ? p.text : p.kind === 'tool_result' ? p.text : '';
    if (!text) continue;
    if (p.kind === 'text' && m.role === 'assistant') for (const s of sentences(text)) if (DECISION.test(s)) decisions.push(clip(s));
    if ((p.kind === 'tool_result' && p.isError) || ERROR.test(text)) {
      // A result the tool flagged as an error leads with its first line when no line names it.
      const line =
        text.split('\n').find((l) => ERROR.test(l)) ??
        (p.kind === 'tool_result' && p.isError ? text.split('\n').find((l) => l.trim() !== '') : undefined);
      if (line) errors.push(clip(line.trim()));
    }
  }
  // What the user or the agent said or did (not raw tool output): facts shared with retention.
  const facts = m.parts.every((p) => p.kind === 'tool_result') ? [] : factsOfMessage(m).map((f) => f.key);
  const plain = (x: string): boolean => x !== '' && x === x.trim() && !x.includes('\n') && !x.includes('\r');
  const readsBack =
    decisions.every(plain) &&
    errors.every(plain) &&
    files.every(plain) &&
    facts.every((f) => plain(f) && !f.includes(', ') && !f.endsWith('…'));
  return { decisions, errors, files, facts, readsBack };
}

/** The four item sections extract() fills, in MessageItems' field order. */
const ITEM_FIELDS = ['decisions', 'errors', 'files', 'facts'] as const;

/** `next` of a mention with no later mention laid out: past any run's end. */
const NO_NEXT = 0xffffffff;

/**
 * One section of a laid-out list: every mention in list order with its item's interned number
 * (`ids`), where each message's mentions start (`start`, by message index), and per mention the
 * position of the next mention of the same item (`next`, NO_NEXT while none is laid out).
 */
interface SectionLayout {
  ids: Int32Array;
  next: Uint32Array;
  /** Mentions laid out. */
  count: number;
  readonly start: Uint32Array;
  /** Per interned number, its latest mention laid out + 1 (0: none yet): where the next mention links from. */
  last: Int32Array;
}

/**
 * A message list's items laid out for folds that are one contiguous run of it, built forward as
 * far as a fold needs (messages [0, n)) and kept as long as the list: a mention is the newest of
 * its item in a run [a, b) exactly when its next mention lies at or past b's first mention, so a
 * fold's distinct items newest first come from one scan of integers — no set of strings, no look-up
 * per message. A later replay of the same list (a slider move) finds it made; a list a live-tail
 * append grew from it starts from a copy of its shared part (carryLayout).
 */
interface ListLayout {
  /** The list's length when it was made (a list that changed length is laid out again). */
  readonly size: number;
  n: number;
  readonly sections: readonly SectionLayout[];
  /** Messages before i whose items do not all read back. */
  readonly unsafeBefore: Uint32Array;
  /** The messages that state a goal (isGoal) among [0, n), ascending. */
  readonly goals: number[];
  /** The intern table's generation `ids` are of: after a restart of the table the list is laid out again. */
  readonly generation: number;
}
const layouts = new WeakMap<readonly Message[], ListLayout>();
/** Lists a live-tail append made, whose layout is to be copied from the list they grew from when a fold first needs it. */
const carried = new WeakMap<readonly Message[], { readonly from: ListLayout; readonly messages: number }>();

/** A provided list and each message's index in it (provideMessageList): a fold handed without its place finds it here. */
const listOf = new WeakMap<Message, { readonly list: readonly Message[]; readonly index: number }>();

/**
 * Registers a message list so that folds handed as bare runs of it (no `source`) are laid out as
 * the replay's are (the tuner's, tests). Summaries are the same with or without it.
 */
export function provideMessageList(list: readonly Message[]): void {
  if (list.length === 0 || listOf.get(list[0]!)?.list === list) return;
  list.forEach((m, index) => listOf.set(m, { list, index }));
}

function emptySection(messages: number, mentions: number): SectionLayout {
  return {
    ids: new Int32Array(Math.max(64, mentions)),
    next: new Uint32Array(Math.max(64, mentions)),
    count: 0,
    start: new Uint32Array(messages + 1),
    last: new Int32Array(Math.max(1024, internStrings.length)),
  };
}

/** `list`'s layout of items (of the intern table's current generation), as far as it is made: carried over or new. */
function listLayoutOf(list: readonly Message[]): ListLayout {
  const held = layouts.get(list);
  if (held && held.generation === internGeneration && held.size === list.length) return held;
  const from = carried.get(list);
  carried.delete(list);
  const made =
    from && from.from.generation === internGeneration ? copyLayout(from.from, from.messages, list.length) : newLayout(list.length);
  layouts.set(list, made);
  return made;
}

function newLayout(messages: number): ListLayout {
  return {
    size: messages,
    n: 0,
    sections: ITEM_FIELDS.map(() => emptySection(messages, 256)),
    unsafeBefore: new Uint32Array(messages + 1),
    goals: [],
    generation: internGeneration,
  };
}

/**
 * The layout of `from`'s first `upTo` messages (as far as made) for a list of `messages` messages
 * that holds them as the same objects: its tables copied, links past the cut undone, each item's
 * latest mention found again. Linear in the mentions copied, typed arrays only.
 */
function copyLayout(from: ListLayout, upTo: number, messages: number): ListLayout {
  const n = Math.min(from.n, upTo, messages);
  const sections = from.sections.map((sec) => {
    const count = sec.start[n]!;
    const out = emptySection(messages, count * 2);
    out.ids.set(sec.ids.subarray(0, count));
    out.start.set(sec.start.subarray(0, n + 1));
    const next = out.next;
    next.set(sec.next.subarray(0, count));
    for (let q = 0; q < count; q++) if (next[q]! >= count) next[q] = NO_NEXT;
    if (out.last.length < sec.last.length) out.last = new Int32Array(sec.last.length);
    const last = out.last;
    for (let q = 0; q < count; q++) last[out.ids[q]!] = q + 1;
    out.count = count;
    return out;
  });
  const unsafeBefore = new Uint32Array(messages + 1);
  unsafeBefore.set(from.unsafeBefore.subarray(0, n + 1));
  return { size: messages, n, sections, unsafeBefore, goals: from.goals.filter((i) => i < n), generation: from.generation };
}

/**
 * The layout of a list a live-tail append made (`next`, holding `old`'s first `from` messages as the
 * same objects) starts from `old`'s: copied when a fold of `next` first needs it.
 */
export function carryLayout(old: readonly Message[], next: readonly Message[], from: number): void {
  const held = layouts.get(old);
  if (held && held.n > 0 && held.size === old.length && !layouts.has(next)) carried.set(next, { from: held, messages: from });
}

/** Lays `list` out up to message `to` (exclusive), or until `enough()` (asked after each message): true once it reaches `to`. */
function extendLayout(list: readonly Message[], at: ListLayout, to: number, enough?: () => boolean): boolean {
  const { sections, unsafeBefore, goals } = at;
  for (let i = at.n; i < to;) {
    const m = list[i]!;
    const ids = idsOf(m);
    let p = IDS_HEADER;
    for (let f = 0; f < ITEM_FIELDS.length; f++) {
      const sec = sections[f]!;
      const k = ids[IDS_COUNT + f]!;
      if (sec.count + k > sec.ids.length) growMentions(sec, sec.count + k);
      for (const end = p + k; p < end; p++) {
        const id = ids[p]!;
        if (id >= sec.last.length) {
          const grown = new Int32Array(Math.max(id + 1, sec.last.length * 2));
          grown.set(sec.last);
          sec.last = grown;
        }
        const q = sec.count++;
        sec.ids[q] = id;
        sec.next[q] = NO_NEXT;
        const before = sec.last[id]!;
        if (before > 0) sec.next[before - 1] = q;
        sec.last[id] = q + 1;
      }
      sec.start[i + 1] = sec.count;
    }
    unsafeBefore[i + 1] = unsafeBefore[i]! + (ids[IDS_READS_BACK] === 1 ? 0 : 1);
    if (isGoal(m)) goals.push(i);
    at.n = ++i;
    if (enough?.() && i < to) return false;
  }
  return true;
}

function growMentions(sec: SectionLayout, need: number): void {
  let size = sec.ids.length * 2;
  while (size < need) size *= 2;
  const ids = new Int32Array(size);
  ids.set(sec.ids.subarray(0, sec.count));
  const next = new Uint32Array(size);
  next.set(sec.next.subarray(0, sec.count));
  sec.ids = ids;
  sec.next = next;
}

/**
 * Lays out `list` for folds (as its first folds would) until `enough()` — the replay worker's idle
 * time, a slice per turn of its event loop (main/host/replay-prewarm.ts): true once it is whole.
 * A fold never waits for it (it lays out what it needs itself), and summaries are the same with or
 * without it.
 */
export function prepareMessageList(list: readonly Message[], enough: () => boolean): boolean {
  if (list.length === 0) return true;
  return extendLayout(list, listLayoutOf(list), list.length, enough);
}

/**
 * The distinct items of a list `prepareMessageList` laid out, per section as a summary shows them
 * (`inline`: on one line, facts) — for counting them ahead (replay/summary-tokens.ts
 * `precountSummaryItems`). Undefined until the list is laid out whole.
 */
export function preparedItems(
  list: readonly Message[],
): readonly { readonly items: readonly string[]; readonly inline: boolean }[] | undefined {
  const at = list.length > 0 ? layouts.get(list) : undefined;
  if (!at || at.generation !== internGeneration || at.size !== list.length || at.n < list.length) return undefined;
  return at.sections.map(({ ids, next, count }, f) => {
    // Each item once: at its latest mention, the one with no next.
    const items: string[] = [];
    for (let q = 0; q < count; q++) if (next[q] === NO_NEXT) items.push(internStrings[ids[q]!]!);
    return { items, inline: IS_INLINE[f + ITEM_SECTION]! };
  });
}

/**
 * The layout and first index when `messages` is one contiguous run of a list: the one `source`
 * names (the replay's), else a provided one (provideMessageList). Laid out up to the run's end.
 */
function runOf(messages: readonly Message[], source: FoldSource | undefined): { at: ListLayout; a: number } | undefined {
  if (messages.length === 0) return undefined;
  const hit = source ?? listOf.get(messages[0]!);
  if (!hit) return undefined;
  const list = hit.list;
  const a = source ? source.from : (hit as { readonly index: number }).index;
  if (!(a >= 0) || a + messages.length > list.length) return undefined;
  for (let k = 0; k < messages.length; k++) if (list[a + k] !== messages[k]) return undefined;
  const at = listLayoutOf(list);
  if (at.n < a + messages.length) extendLayout(list, at, a + messages.length);
  return { at, a };
}

/** The first goal at or after message `a` (binary search), or -1. */
function goalFrom(goals: readonly number[], a: number): number {
  const at = lowerBound(goals, a);
  return at < goals.length ? goals[at]! : -1;
}

/**
 * What the folded messages say, section by section, newest first (a share that runs out drops the
 * oldest); the goal is the first request. `readsBack`: every folded message's items do (see readsBack).
 */
function extract(
  messages: readonly Message[],
  source?: FoldSource,
): { sections: Sections; ids: readonly (readonly number[])[]; readsBack: boolean } {
  const out: string[][] = [[], [], [], []];
  // Each item's interned number beside it (by SECTIONS index, as `fill` reads them): the merge
  // with the carried items tells them apart by number without interning every fresh item again.
  const ids: number[][] = SECTIONS.map(() => []);
  let readsBack = true;
  // Started again only here, between folds: every number of one fold is from one table (its
  // items' here, its carried sections' in their lanes, which carriedLanes makes again for a new table).
  if (internStrings.length > INTERN_LIMIT) {
    internGeneration++;
    internIds = new Map();
    internStrings = [];
    recentIds.clear();
  }
  const run = runOf(messages, source);
  // The first request: in a laid-out run, read from its table instead of testing each message.
  const g = run ? goalFrom(run.at.goals, run.a) - run.a : -1;
  const goal = run ? (g >= 0 && g < messages.length ? messages[g] : undefined) : messages.find(isGoal);
  if (run) {
    const b = run.a + messages.length;
    const sections = run.at.sections;
    for (let f = 0; f < sections.length; f++) {
      const { ids: itemIds, start, next } = sections[f]!;
      const A = start[run.a]!;
      const B = start[b]!;
      const into = out[f]!;
      const intoIds = ids[f + ITEM_SECTION]!;
      for (let q = B - 1; q >= A; q--) {
        if (next[q]! < B) continue;
        const id = itemIds[q]!;
        // The interned string, not this mention's own: every summary then holds one string object
        // per item, which the counter's memo (replay/summary-tokens.ts) finds by identity where
        // another mention's equal string was compared character by character.
        into.push(internStrings[id]!);
        intoIds.push(id);
      }
    }
    readsBack = run.at.unsafeBefore[b] === run.at.unsafeBefore[run.a];
  } else {
    const interned = messages.map(idsOf);
    for (let k = 0; k < ITEM_FIELDS.length; k++) out[k] = newestFirstOf(interned, k, ids[k + ITEM_SECTION]!);
    readsBack = interned.every((m) => m[IDS_READS_BACK] === 1);
  }
  const sections = new Map<Section, string[]>([
    ['Goal', goal ? goalOf(goal) : []],
    ['Decisions and findings', out[0]!],
    ['Errors seen', out[1]!],
    ['Files', out[2]!],
    ['Facts to keep', out[3]!],
  ]);
  return { sections, ids, readsBack };
}

/**
 * The goal item a message states (its first text, clipped), kept per message: every fold reads its
 * goal again, and a session held a page at a time (main/store/lazy-session.ts) would read a page
 * per fold for it. Only the messages that start a fold's goal are kept, a few per session.
 */
const goals = new WeakMap<Message, string | null>();
function goalOf(m: Message): string[] {
  let g = goals.get(m);
  if (g === undefined) {
    const text = m.parts.find((p) => p.kind === 'text');
    g = text && text.kind === 'text' ? ownString(clip(text.text, 400)) : null;
    goals.set(m, g);
  }
  return g === null ? [] : [g];
}

/** A user message with text: the first of a fold states its goal. */
function isGoal(m: Message): boolean {
  return m.role === 'user' && m.parts.some((p) => p.kind === 'text');
}

/** SECTIONS index of ITEM_FIELDS' first ('decisions' is 'Decisions and findings'). */
const ITEM_SECTION = 2;

/**
 * Items interned as numbers, so that the distinct items of a fold, newest first, are found with a
 * stamp per number instead of a Set of strings: a fold of Claude Code's (everything since the last
 * compaction) holds tens of thousands of items, and de-duplicating them was most of a summary.
 * The table is started again past INTERN_LIMIT items (a long-lived process); a message's numbers
 * name the table's generation, and are made again when it changed.
 */
const INTERN_LIMIT = 2_000_000;
let internGeneration = 0;
let internIds = new Map<string, number>();
let internStrings: string[] = [];
/**
 * A stamp per interned number: emptied in O(1) by taking the next stamp (a number is in it while
 * it holds the current one).
 */
interface StampTable {
  marks: Int32Array;
  stamp: number;
}
/** Sizes `t` for every interned number so far. */
function sizeFor(t: StampTable): void {
  if (t.marks.length < internStrings.length) {
    const grown = new Int32Array(Math.max(internStrings.length, t.marks.length * 2));
    grown.set(t.marks);
    t.marks = grown;
  }
}

/** Sizes `t` for every interned number so far and takes its next stamp (the table emptied). */
function nextStamp(t: StampTable): number {
  sizeFor(t);
  if (++t.stamp === 0x7fffffff) {
    t.marks.fill(0);
    t.stamp = 1;
  }
  return t.stamp;
}
const seen: StampTable = { marks: new Int32Array(1024), stamp: 0 };
/**
 * Per message, once: a replay folds the same messages again at every threshold the user tries,
 * and splitting sentences and testing them was most of a summary's cost. Messages are immutable
 * once imported, so the numbers are kept as long as the message is — one small array of numbers
 * per message (`MessageIds`): four typed arrays and the item strings per message were most of what
 * a replay of a long session kept.
 */
const idsCache = new WeakMap<Message, MessageIds>();

/**
 * A message's items as interned numbers, in one array: the intern table's generation, whether
 * every item reads back (1) or not (0), the count of each section's items (decisions, errors,
 * files, facts), then the numbers, section after section.
 */
type MessageIds = readonly number[];
const IDS_GENERATION = 0;
const IDS_READS_BACK = 1;
const IDS_COUNT = 2;
const IDS_HEADER = IDS_COUNT + ITEM_FIELDS.length;
/** The MessageIds of a message without items, per generation and readsBack (most tool results): shared. */
const noIds = new Map<number, MessageIds>();

function intern(x: string): number {
  let id = internIds.get(x);
  if (id === undefined) {
    id = internStrings.length;
    // A string of its own: an item sliced from a message's text would keep all of it.
    const own = ownString(x);
    internIds.set(own, id);
    internStrings.push(own);
  }
  return id;
}

/** A message's items per section (decisions, errors, files, facts) as interned numbers (MessageIds). */
function idsOf(m: Message): MessageIds {
  const hit = idsCache.get(m);
  if (hit && hit[IDS_GENERATION] === internGeneration) return hit;
  const items = itemsOf(m);
  const sections = [items.decisions, items.errors, items.files, items.facts];
  const readsBack = items.readsBack ? 1 : 0;
  let ids: MessageIds;
  if (sections.every((xs) => xs.length === 0)) {
    const key = internGeneration * 2 + readsBack;
    ids = noIds.get(key) ?? [internGeneration, readsBack, 0, 0, 0, 0];
    if (noIds.size > 4) noIds.clear();
    noIds.set(key, ids);
  } else {
    const out = [internGeneration, readsBack, ...sections.map((xs) => xs.length)];
    for (const xs of sections) for (const x of xs) out.push(intern(x));
    ids = out;
  }
  idsCache.set(m, ids);
  return ids;
}

/**
 * Reads what a fold and retention take from a message's text — its summary items, its facts
 * (summarize/facts.ts) and, for a user request, its goal item — now, once: a host that holds a session's text a page at a time
 * (main/store/lazy-session.ts) calls it while the message's page is at hand, so that the first
 * replay does not read every page again. Summaries are the same with or without it.
 */
export function prepareMessage(m: Message): void {
  idsOf(m);
  factsOfMessage(m);
  // A fold may start its goal at any user request: each one's goal item is kept (one per turn).
  if (isGoal(m)) goalOf(m);
}

/** The distinct items of one section over the messages, the latest mention first (as `newestFirst` of them all in order). */
function newestFirstOf(interned: readonly MessageIds[], section: number, outIds: number[]): string[] {
  const stamp = nextStamp(seen);
  const marks = seen.marks;
  const out: string[] = [];
  for (let i = interned.length - 1; i >= 0; i--) {
    const ids = interned[i]!;
    let from = IDS_HEADER;
    for (let f = 0; f < section; f++) from += ids[IDS_COUNT + f]!;
    for (let k = from + ids[IDS_COUNT + section]! - 1; k >= from; k--) {
      const id = ids[k]!;
      if (marks[id] === stamp) continue;
      marks[id] = stamp;
      out.push(internStrings[id]!);
      outIds.push(id);
    }
  }
  return out;
}

/**
 * The interned numbers of the last few array sections written (a chain's first summary, the text
 * path), by items array: the next summary starts its lanes from them (carriedLanes). Only the last
 * few: numbers kept for every summary would live as long as the summaries (the fold memo keeps
 * them), and be promoted and kept.
 */
const recentIds = new BoundedCache<readonly string[], Int32Array>({ max: 16 });

/**
 * The characters of each item of the last few sections written, by items array (as recentIds):
 * the next summary's fill reads them from one typed array instead of from thousands of strings
 * scattered over the heap, and its length is their sum.
 */
const recentLens = new BoundedCache<readonly string[], Int32Array>({ max: 16 });

function lensOfItems(items: readonly string[]): Int32Array {
  let lens = recentLens.get(items);
  if (!lens) {
    lens = recentInts(items.length);
    for (let q = 0; q < items.length; q++) lens[q] = items[q]!.length;
    recentLens.set(items, lens);
  }
  return lens;
}

function idsOfItems(items: readonly string[]): Int32Array {
  let ids = recentIds.get(items);
  if (!ids) {
    ids = recentInts(items.length);
    for (let q = 0; q < items.length; q++) ids[q] = intern(items[q]!);
    recentIds.set(items, ids);
  }
  return ids;
}

/**
 * The interned numbers of a section's items, index for index, while the summarizer still knows
 * them (the last few sections it wrote), with the intern table's generation they belong to: a
 * counter (replay/summary-tokens.ts) keeps counts by number, a typed read where a string was
 * looked up in a map of every item it ever counted.
 */
export function recentItemIds(items: readonly string[]): { readonly ids: Int32Array; readonly generation: number } | undefined {
  const ids = recentIds.get(items);
  return ids && ids.length === items.length ? { ids, generation: internGeneration } : undefined;
}

/**
 * `laidOut` hands back the summary written before when this one is the same (same items, other
 * arrays): the next summary carries that one's arrays, so they get the numbers just made.
 */
function sameIds(t: SummaryText, layout: SummaryLayout): SummaryText {
  const kept = t.layout;
  if (kept && kept !== layout && kept.sections.length === layout.sections.length) {
    for (let k = 0; k < layout.sections.length; k++) {
      // A lane's numbers and lengths are in its log (lane.ts), not in these maps. The summary kept
      // stands for this one from now on: the next fold from it goes on in this one's lane, the
      // head, instead of starting a lane of its own from the kept one's items.
      const made = layout.sections[k]!.lane;
      const old = kept.sections[k]!.lane;
      if (made && old) laneTwins.set(old, made);
      if (made || old) continue;
      const ids = recentIds.get(layout.sections[k]!.items);
      if (ids) recentIds.set(kept.sections[k]!.items, ids);
      const lens = recentLens.get(layout.sections[k]!.items);
      if (lens) recentLens.set(kept.sections[k]!.items, lens);
    }
  }
  return t;
}

/** The numbers of the items the last `pick` kept, by SECTIONS index (`ids`: every item's, by the same index). */
function pickedIds(ids: readonly (readonly number[])[]): Int32Array[] {
  return SECTIONS.map((_, k) => {
    const count = picked[k]!;
    const at = picks[k]!;
    const from = ids[k]!;
    const out = recentInts(count);
    for (let j = 0; j < count; j++) out[j] = from[at[j]!]!;
    return out;
  });
}

/**
 * Reads a summary this summarizer wrote back into its sections. Anything else (a remote model's
 * summary, the emergency path's overflow note) becomes lines of 'Earlier summary'.
 */
export function parseSummary(text: string): { messages: number; sections: Sections } {
  const sections: Sections = new Map();
  let messages = 0;
  let current: Section = 'Earlier summary';
  const add = (s: Section, item: string): void => {
    if (item) (sections.get(s) ?? sections.set(s, []).get(s)!).push(item);
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const header = HEADER.exec(line);
    if (header) {
      messages += Number(header[1]);
      continue;
    }
    if (line.startsWith('## ')) {
      const title = line.slice(3) as Section;
      current = SECTIONS.includes(title) ? title : 'Earlier summary';
      continue;
    }
    // Only "- " lines are items of the section above them; any other line (an overflow note
    // appended by the emergency path, a remote summary's prose) is earlier text.
    if (!line.startsWith('- ')) add('Earlier summary', clip(line, 2 * ITEM_CHARS));
    else if (INLINE.has(current)) for (const k of line.slice(2).replace(/…$/, '').split(', ')) add(current, k);
    else add(current, line.slice(2));
  }
  return { messages, sections };
}

/**
 * Picks items to fill `budget` characters fairly: every section first gets its top item, then
 * each section with items left gets an equal share of the characters left, takes its items in priority order while they fit its share, and
 * what a section does not use is shared again. A section of long items (decisions) cannot starve
 * one of short items (facts), nor the reverse.
 */
function fill(sections: Sections, budget: number): Sections {
  const items = itemLists(sections);
  pick(items, budget, true);
  const out: Sections = new Map();
  for (let k = 0; k < SECTIONS.length; k++) if (picked[k]! > 0) out.set(SECTIONS[k]!, pickedItems(items[k]!, k));
  return out;
}

/** What `render` spends on a section's title ("\n## title\n"), by SECTIONS index. */
const TITLE_COST = SECTIONS.map((s) => s.length + 5);
const IS_INLINE = SECTIONS.map((s) => INLINE.has(s));

function itemLists(sections: Sections): (readonly string[])[] {
  return SECTIONS.map((s) => sections.get(s) ?? []);
}

/**
 * What `pick` took, by SECTIONS index: how many items (`picked`) and, when it was asked to keep
 * them, their indices in order (`picks`). Scratch shared by every fill and read right after it: a
 * rolling summary carries thousands of items and is filled three times per compression, and
 * arrays grown item by item were most of a summary's garbage (letta at 716 compressions: 47 MB
 * per replay).
 */
const picked = new Int32Array(SECTIONS.length);
const picks: Int32Array[] = SECTIONS.map(() => new Int32Array(256));

/**
 * The fill: every section first gets its top item, then each section with items left gets an
 * equal share of the characters left and takes its items in priority order while they fit its
 * share; what a section does not use is shared again. Returns the characters `render` writes for
 * what it took; `keep`: record the items' indices in `picks`.
 */
function pick(items: readonly (readonly string[])[], budget: number, keep: boolean, lens?: readonly (Int32Array | undefined)[]): number {
  const n = SECTIONS.length;
  if (keep)
    for (let k = 0; k < n; k++)
      if (picks[k]!.length < items[k]!.length) picks[k] = new Int32Array(Math.max(items[k]!.length, 2 * picks[k]!.length));
  // Per section: the next item's index; a section's first item also pays for its title. Plain
  // loops (no closure per item).
  const next = [0, 0, 0, 0, 0, 0];
  picked.fill(0);
  let spentAll = 0;
  let left = budget;
  // Every section first shows its top item (the newest), where it fits at all.
  for (let k = 0; k < n; k++) {
    const list = items[k]!;
    const len = lens?.[k];
    const title = TITLE_COST[k]!;
    let q = next[k]!;
    // What `render` spends on an item: "- item" and a separator; a section's first also pays for "\n## title\n".
    while (q < list.length && (len ? len[q]! : list[q]!.length) + 3 + title > left) q++;
    if (q < list.length) {
      const c = (len ? len[q]! : list[q]!.length) + 3 + title;
      if (keep) picks[k]![0] = q;
      picked[k] = 1;
      q++;
      spentAll += c;
      left -= c;
    }
    next[k] = q;
  }
  for (;;) {
    // An item that cannot fit in what is left never will: skip it.
    let active = 0;
    for (let k = 0; k < n; k++) {
      const list = items[k]!;
      const len = lens?.[k];
      const extra = 3 + (picked[k]! > 0 ? 0 : TITLE_COST[k]!);
      let q = next[k]!;
      while (q < list.length && (len ? len[q]! : list[q]!.length) + extra > left) q++;
      next[k] = q;
      if (q < list.length) active++;
    }
    if (active === 0) break;
    const share = Math.floor(left / active);
    let took = false;
    for (let k = 0; k < n; k++) {
      const list = items[k]!;
      const len = lens?.[k];
      let q = next[k]!;
      if (q >= list.length) continue;
      let spent = 0;
      let count = picked[k]!;
      for (;;) {
        if (q >= list.length) break;
        const c = (len ? len[q]! : list[q]!.length) + 3 + (count > 0 ? 0 : TITLE_COST[k]!);
        if (spent + c > share) break;
        if (keep) picks[k]![count] = q;
        count++;
        q++;
        spentAll += c;
        spent += c;
        left -= c;
        took = true;
      }
      picked[k] = count;
      next[k] = q;
    }
    if (!took) {
      // Every next item is over its share: the cheapest one still goes in (the first of equals).
      let best = -1;
      let bestCost = 0;
      for (let k = 0; k < n; k++) {
        const list = items[k]!;
        if (next[k]! >= list.length) continue;
        const len = lens?.[k];
        const c = (len ? len[next[k]!]! : list[next[k]!]!.length) + 3 + (picked[k]! > 0 ? 0 : TITLE_COST[k]!);
        if (best < 0 || c < bestCost) {
          best = k;
          bestCost = c;
        }
      }
      if (keep) picks[best]![picked[best]!] = next[best]!;
      picked[best]!++;
      next[best]!++;
      spentAll += bestCost;
      left -= bestCost;
    }
  }
  let size = spentAll;
  // `size` counts ", " (2) between inline items and no separator after the last line item.
  for (let k = 0; k < n; k++) if (picked[k]! > 0) size -= IS_INLINE[k] ? picked[k]! : 1;
  return size;
}

/** The items `pick` kept of section k, in an array of their exact number (a slice when they are one run). */
function pickedItems(list: readonly string[], k: number): string[] {
  const count = picked[k]!;
  const at = picks[k]!;
  if (at[count - 1]! - at[0]! === count - 1) return list.slice(at[0]!, at[0]! + count);
  const out = new Array<string>(count);
  for (let j = 0; j < count; j++) out[j] = list[at[j]!]!;
  return out;
}

/** Characters `render` writes for what `fill` would take, without taking it. */
function fillSize(sections: Sections, budget: number): number {
  const items = itemLists(sections);
  return pick(items, budget, false, items.map(lensOfItems));
}

/**
 * `pick` over carried sections held as lanes (lane.ts; undefined: an empty section), the same fill
 * step for step — the same items taken, the same size returned — answered by the lanes' trees
 * instead of a walk over every item: a section's cursor is a position (`laneAt`, exclusive; the
 * next item is the highest present one below it), "skip what cannot fit" is the highest item
 * below the cursor short enough (`find`), and "take items while they fit the share" the lowest
 * position from which the items up to the cursor cost at most what is left of it (`reach`).
 * `keep`: record what it took as runs of positions, highest first (`laneRuns`), per section.
 */
function pickLanes(lanes: readonly (LaneView | undefined)[], budget: number, keep: boolean): number {
  const n = SECTIONS.length;
  const at = laneAt;
  for (let k = 0; k < n; k++) {
    at[k] = lanes[k]?.lane.n ?? 0;
    laneRunCount[k] = 0;
  }
  picked.fill(0);
  let spentAll = 0;
  let left = budget;
  // A function of the module, not a closure per call: pickLanes runs up to twice per compression.
  const take = keep ? takeRun : skipRun;
  // Every section first shows its top item (the newest), where it fits at all.
  for (let k = 0; k < n; k++) {
    const lane = lanes[k]?.lane;
    if (!lane) continue;
    const title = TITLE_COST[k]!;
    const p = lane.find(at[k]!, left - 3 - title);
    if (p < 0) {
      at[k] = 0;
      continue;
    }
    const c = lane.lens[p]! + 3 + title;
    take(k, p, p + 1);
    picked[k] = 1;
    at[k] = p;
    spentAll += c;
    left -= c;
  }
  for (;;) {
    // An item that cannot fit in what is left never will: skip it (the cursor lands just above the next that can).
    let active = 0;
    for (let k = 0; k < n; k++) {
      const lane = lanes[k]?.lane;
      if (!lane || at[k] === 0) continue;
      const p = lane.find(at[k]!, left - 3 - (picked[k]! > 0 ? 0 : TITLE_COST[k]!));
      at[k] = p + 1;
      if (p >= 0) active++;
    }
    if (active === 0) break;
    const share = Math.floor(left / active);
    let took = false;
    for (let k = 0; k < n; k++) {
      const lane = lanes[k]?.lane;
      if (!lane || at[k] === 0) continue;
      let u = at[k]!;
      let spent = 0;
      let count = picked[k]!;
      if (count === 0) {
        // The section's first item also pays for its title.
        const p = u - 1;
        const c = lane.lens[p]! + 3 + TITLE_COST[k]!;
        if (c > share) continue;
        take(k, p, u);
        count = 1;
        u = p;
        spent = c;
        spentAll += c;
        left -= c;
        took = true;
      }
      const a = lane.reach(u, share - spent);
      const got = a < u ? lane.countIn(a, u) : 0;
      if (got > 0) {
        const c = lane.costIn(a, u);
        take(k, a, u);
        count += got;
        spentAll += c;
        left -= c;
        took = true;
        u = a;
      }
      picked[k] = count;
      at[k] = u;
    }
    if (!took) {
      // Every next item is over its share: the cheapest one still goes in (the first of equals).
      let best = -1;
      let bestCost = 0;
      for (let k = 0; k < n; k++) {
        const lane = lanes[k]?.lane;
        if (!lane || at[k] === 0) continue;
        const c = lane.lens[at[k]! - 1]! + 3 + (picked[k]! > 0 ? 0 : TITLE_COST[k]!);
        if (best < 0 || c < bestCost) {
          best = k;
          bestCost = c;
        }
      }
      const p = at[best]! - 1;
      take(best, p, p + 1);
      picked[best]!++;
      at[best] = p;
      spentAll += bestCost;
      left -= bestCost;
    }
  }
  let size = spentAll;
  for (let k = 0; k < n; k++) if (picked[k]! > 0) size -= IS_INLINE[k] ? picked[k]! : 1;
  return size;
}
/** Records positions [a, u) of section `k` as taken (pickLanes with `keep`), in `laneRuns`, highest first. */
function takeRun(k: number, a: number, u: number): void {
  const c = laneRunCount[k]!;
  const runs = laneRuns[k]!;
  // Adjacent to the run before it (the cursor moved down onto it): one run.
  if (c > 0 && runs[2 * c - 2] === u) {
    runs[2 * c - 2] = a;
    return;
  }
  if (runs.length < 2 * c + 2) {
    const grown = new Int32Array(2 * runs.length);
    grown.set(runs);
    laneRuns[k] = grown;
  }
  laneRuns[k]![2 * c] = a;
  laneRuns[k]![2 * c + 1] = u;
  laneRunCount[k] = c + 1;
}
function skipRun(): void {}

/** A section the summarizer wrote again as a kept summary's (sameIds), by the kept one's view: the same items, maybe its lane's head. */
const laneTwins = new WeakMap<LaneView, LaneView>();

/**
 * The fresh items' lengths extendLanes hands a lane, one array for every section of every merge: a
 * typed array of its own per section per compression was a buffer outside the heap each, made
 * and freed ~8,000 times a replay at 300,000 calls.
 */
let freshLens = new Int32Array(256);

/** pickLanes' cursors and, with `keep`, its runs per section ([a, u) pairs, highest first). */
const laneAt = new Int32Array(SECTIONS.length);
const laneRuns: Int32Array[] = SECTIONS.map(() => new Int32Array(64));
const laneRunCount = new Int32Array(SECTIONS.length);

/**
 * The carried sections of a summary laid out here as lane heads, by SECTIONS index ('Goal' and
 * empty sections undefined): a section already the head of its lane as it is; any other (a
 * summary's first sections, an older version, numbers of a restarted intern table) in a lane
 * started from its items.
 */
function carriedLanes(layout: SummaryLayout): (LaneView | undefined)[] {
  const out: (LaneView | undefined)[] = SECTIONS.map(() => undefined);
  for (const s of layout.sections) {
    const k = SECTIONS.indexOf(s.title as Section);
    if (k < 0 || SECTIONS[k] === 'Goal' || sectionCount(s) === 0) continue;
    let v = s.lane;
    const twin = v && !v.isHead ? laneTwins.get(v) : undefined;
    if (twin?.isHead) v = twin;
    if (v && v.isHead && v.lane.generation === internGeneration) out[k] = v;
    else if (v && v.lane.generation === internGeneration) out[k] = Lane.fork(v).head;
    else out[k] = Lane.of(s.items, idsOfItems(s.items), lensOfItems(s.items), internGeneration).head;
  }
  return out;
}

/**
 * The merge of a rolling summary: the carried items `pickLanes` keeps within `budget`, those a
 * fresh item repeats left out (as `mergeUnique` leaves them out), behind the fresh ones — each
 * section the next version of its lane (a fresh-only section a lane of its own). Work per
 * section: its fresh items, the items it drops, and the fill's queries; never the items it carries.
 */
function extendLanes(
  fresh: Sections,
  freshIds: readonly Int32Array[],
  lanes: readonly (LaneView | undefined)[],
  budget: number,
): Map<Section, LaneView> {
  pickLanes(lanes, budget, true);
  const out = new Map<Section, LaneView>();
  for (let k = 0; k < SECTIONS.length; k++) {
    const first = fresh.get(SECTIONS[k]!) ?? [];
    const ids = freshIds[k]!;
    // Scratch: a lane copies the lengths it is given (Lane.of, extend), never keeps the array.
    if (freshLens.length < first.length) freshLens = new Int32Array(Math.max(first.length, 2 * freshLens.length));
    const lens = freshLens;
    for (let i = 0; i < first.length; i++) lens[i] = first[i]!.length;
    const view = lanes[k];
    if (view && picked[k]! > 0) {
      let next = view.lane.extend(laneRuns[k]!, laneRunCount[k]!, first, ids, lens);
      // A lane mostly of dropped positions goes on packed (the same items): bounded by what it holds.
      if (next.lane.sparse) next = Lane.packed(next).head;
      if (next.count > 0) out.set(SECTIONS[k]!, next);
    } else if (first.length > 0) out.set(SECTIONS[k]!, Lane.of(first, ids, lens, internGeneration).head);
  }
  return out;
}

/** The summary's text (for callers that hold summaries as strings). */
export function extractiveSummary(req: SummaryRequest): string {
  return extractiveSummaryText({
    messages: req.messages,
    previous: req.previousSummary === null ? null : SummaryText.of(req.previousSummary),
    targetTokens: req.targetTokens,
    ...(req.source ? { source: req.source } : {}),
  }).text;
}

/**
 * The summary, laid out and not yet written as text: the replay counts it from its layout, and
 * the next summary reads its sections, so its text is written only if something shows it.
 */
export function extractiveSummaryText(req: SummaryTextRequest): SummaryText {
  const budgetChars = Math.max(MIN_CHARS, req.targetTokens * CHARS_PER_TOKEN);
  const { sections: fresh, ids: freshIds, readsBack: freshReadsBack } = extract(req.messages, req.source);
  // A summary laid out here stands for its own parse (its items read back, see readsBack); its
  // sections are read as lanes, never as arrays (that would read every item it carries).
  const written = req.previous?.layout;
  const parsed = req.previous && !written ? parseSummary(req.previous.text) : undefined;
  const previousMessages = written ? written.messages : (parsed?.messages ?? 0);
  const hasPrevious = written ? written.sections.length > 0 : parsed !== undefined && parsed.sections.size > 0;
  const covered = previousMessages + req.messages.length;
  const header = `Summary of ${covered} earlier messages:`;
  const room = budgetChars - header.length;
  // The goal is the task as first given: the previous summary's when it had one. It always stays.
  const previousGoal = written ? written.sections.find((x) => x.title === 'Goal')?.items[0] : parsed?.sections.get('Goal')?.[0];
  const goal = clip(previousGoal ?? fresh.get('Goal')?.[0] ?? '', Math.max(80, Math.floor(room / 4)));
  fresh.delete('Goal');
  const goalSections: Sections = new Map(goal ? [['Goal', [goal]]] : []);
  const rest = room - size(goalSections);
  let merged: Map<Section, readonly string[] | LaneView>;
  // What readsBack must read: items carried from a summary written here were checked when it was
  // (a rolling summary holds thousands; reading them all at every compression was a share of each replay).
  let unchecked: Sections[];
  if (!hasPrevious) {
    const fit = fill(fresh, rest);
    unchecked = [fit];
    merged = fit;
    // The next summary carries these sections: their numbers are known now.
    const fitIds = pickedIds(freshIds);
    for (let k = 0; k < SECTIONS.length; k++) {
      const items = fit.get(SECTIONS[k]!);
      if (items) recentIds.set(items, fitIds[k]!);
    }
  } else {
    // The previous summary's share: what it covered against what is folded now, at most half.
    const oldShare = previousMessages > 0 ? Math.min(0.5, previousMessages / covered) : 0.5;
    const oldCap = Math.floor(rest * oldShare);
    if (written) {
      // The carried sections are newest first already, so a share that runs out drops the oldest.
      const lanes = carriedLanes(written);
      // Fresh material that fits beside the most the older share can take is taken whole whatever
      // that share takes (a fill whose budget holds every item takes every item).
      const oldFirst = pickCost(fresh) <= rest - oldCap ? 0 : pickLanes(lanes, oldCap, false);
      const freshFit = fill(fresh, rest - oldFirst);
      // Read right after the fill that picked them (`picks` is scratch of every fill).
      const fitIds = pickedIds(freshIds);
      // What the fresh material left unused goes back to the older material.
      merged = extendLanes(freshFit, fitIds, lanes, rest - size(freshFit));
      unchecked = [freshFit];
    } else {
      const carried: Sections = new Map(SECTIONS.filter((x) => x !== 'Goal').map((x) => [x, parsed!.sections.get(x) ?? []]));
      const oldFirst = pickCost(fresh) <= rest - oldCap ? 0 : fillSize(carried, oldCap);
      const freshFit = fill(fresh, rest - oldFirst);
      const old = fill(carried, rest - size(freshFit));
      const out: Sections = new Map();
      unchecked = [out];
      for (const x of SECTIONS) {
        const items = mergeUnique(freshFit.get(x) ?? [], old.get(x) ?? [], false);
        if (items.length) out.set(x, items);
      }
      merged = out;
    }
  }
  if (goal) merged.set('Goal', [goal]);
  unchecked.push(goalSections);
  const layout = layoutOf(header, covered, merged);
  // The cost estimate above is exact for what it renders; this only guards a bug, never trims in practice.
  const length = lengthOf(layout);
  if (length > budgetChars) return SummaryText.of(renderLayout(layout).slice(0, budgetChars - 1) + '…');
  // Items known to read back spare the item-by-item check: every folded message's with a summary
  // written here (the goal checked now), else whatever was not checked when it was written.
  if ((freshReadsBack && (!req.previous || written !== undefined) && readsBack(goalSections)) || unchecked.every(readsBack))
    return sameIds(SummaryText.laidOut(layout, length), layout);
  return SummaryText.of(renderLayout(layout));
}

/** `layoutLength(layout)`: a lane's characters from its running sum, an array section's from its lengths when they are known. */
function lengthOf(layout: SummaryLayout): number {
  let n = layout.header.length;
  for (const s of layout.sections) {
    if (s.lane) {
      n += s.title.length + 5 + (s.inline ? 2 + 2 * (s.lane.count - 1) : 3 * s.lane.count - 1) + s.lane.chars;
      continue;
    }
    const items = s.items;
    n += s.title.length + 5 + (s.inline ? 2 + 2 * (items.length - 1) : 3 * items.length - 1);
    const lens = recentLens.get(items);
    if (lens) for (let q = 0; q < lens.length; q++) n += lens[q]!;
    else for (const i of items) n += i.length;
  }
  return n;
}

/** True when `parseSummary(render(sections))` gives these sections back item for item. */
function readsBack(sections: Sections): boolean {
  for (const [section, items] of sections) {
    for (const item of items) {
      if (item === '' || item !== item.trim() || item.includes('\n') || item.includes('\r')) return false;
      if (INLINE.has(section) && (item.includes(', ') || item.endsWith('…'))) return false;
    }
  }
  return true;
}

/** The sections in the order they are shown, the empty ones left out (render skips them). */
function layoutOf(header: string, messages: number, sections: ReadonlyMap<Section, readonly string[] | LaneView>): SummaryLayout {
  const out: SummarySection[] = [];
  for (const s of SECTIONS) {
    const items = sections.get(s);
    if (!items) continue;
    if (items instanceof LaneView) {
      if (items.count > 0) out.push(laneSection(s, items));
    } else if (items.length > 0) out.push({ title: s, inline: INLINE.has(s), items });
  }
  return { header, sections: out, messages };
}

/**
 * A section held by a lane: its items are read from the log only if something asks for them. A
 * class (the getter on its prototype): an object literal with a getter was made in dictionary
 * mode, one per section of every summary.
 */
class LaneSection implements SummarySection {
  constructor(
    readonly title: Section,
    readonly inline: boolean,
    readonly lane: LaneView,
  ) {}
  get items(): readonly string[] {
    return this.lane.items;
  }
}

function laneSection(title: Section, lane: LaneView): SummarySection {
  return new LaneSection(title, INLINE.has(title), lane);
}

/** Characters `render` will use for these sections, counted without rendering them. */
function size(sections: Sections): number {
  let n = 0;
  for (const s of SECTIONS) {
    const items = sections.get(s);
    if (!items || items.length === 0) continue;
    // "\n## title\n", then "- a, b" (inline) or "- a\n- b".
    n += s.length + 5 + (INLINE.has(s) ? 2 + 2 * (items.length - 1) : 3 * items.length - 1);
    for (const i of items) n += i.length;
  }
  return n;
}

/**
 * What `pick` spends on taking every item of these sections (a separator after each item, which
 * `size` does not count after a section's last): a budget of at least this takes them all.
 */
function pickCost(sections: Sections): number {
  let n = 0;
  for (let k = 0; k < SECTIONS.length; k++) {
    const items = sections.get(SECTIONS[k]!);
    if (!items || items.length === 0) continue;
    n += TITLE_COST[k]! + 3 * items.length;
    for (const i of items) n += i.length;
  }
  return n;
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

/** Slots markFresh sorts items into before it asks a set: from the length and three characters. */
const ITEM_SLOTS = 4096;
function slotOf(x: string): number {
  const n = x.length;
  if (n === 0) return 0;
  return (n * 31 + x.charCodeAt(0) * 7 + x.charCodeAt(n >> 1) * 13 + x.charCodeAt(n - 1)) & (ITEM_SLOTS - 1);
}

/**
 * Which slots hold a fresh item: stamped with the current `markFresh`'s number, so marking a new
 * list of fresh items allocates and clears nothing (a slot table and a set per section per
 * compression were a share of a rolling summary's garbage at a compression per call).
 */
const freshSlots = new Int32Array(ITEM_SLOTS);
let freshStamp = 0;
let freshItems: readonly string[] = [];
/** The fresh items as a set, made only when a slot matches (most old items match none). */
let freshSet: Set<string> | undefined;

/**
 * Marks `fresh` as the items `isFresh` answers for, until the next call: one list at a time (its
 * callers test one section's old items right after marking that section's fresh ones).
 */
function markFresh(fresh: readonly string[]): void {
  if (++freshStamp === 0x7fffffff) {
    freshSlots.fill(0);
    freshStamp = 1;
  }
  for (const x of fresh) freshSlots[slotOf(x)] = freshStamp;
  freshItems = fresh;
  freshSet = undefined;
}

/**
 * Whether an item is one of the marked fresh ones: an old item can equal a fresh one only if it
 * falls in the same slot (a few characters and the length), so most are passed over by one look-up.
 */
function isFresh(x: string): boolean {
  if (freshSlots[slotOf(x)] !== freshStamp) return false;
  return (freshSet ??= new Set(freshItems)).has(x);
}

/**
 * `unique([...fresh, ...old])`. Fresh items are distinct (extract keeps one mention of each), and
 * so are the old ones when they come from a summary laid out here (its items were made unique
 * when it was written): then only an old item that is also fresh can repeat, and a set of the few
 * fresh items finds it — not a set of the thousands a rolling summary carries, built and thrown
 * away at every compression (most of a replay's garbage when it compresses at every call).
 */
function mergeUnique(fresh: readonly string[], old: readonly string[], oldDistinct: boolean): string[] {
  if (!oldDistinct) return unique([...fresh, ...old]);
  // `old` is a list `fill` just made, owned by no one else: it becomes the section as it is.
  if (fresh.length === 0) return old as string[];
  // When none repeats the lists are joined in bulk.
  markFresh(fresh);
  let i = 0;
  while (i < old.length && !isFresh(old[i]!)) i++;
  if (i === old.length) return fresh.concat(old);
  // Old items before the first repeat are kept as they are; after it, each is looked up.
  const out = i > 0 ? fresh.concat(old.slice(0, i)) : fresh.slice();
  for (i++; i < old.length; i++) if (!isFresh(old[i]!)) out.push(old[i]!);
  return out;
}

export const extractiveSummarizer: Summarizer = {
  id: 'extractive',
  // v2: the rolling merge (the previous summary re-summarized into a share) changes every output.
  model: 'extractive-v2',
  prompt: '',
  local: true,
  summarize: async (req) => extractiveSummary(req),
  summarizeText: (req) => extractiveSummaryText(req),
};
