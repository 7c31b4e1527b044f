/**
 * The facts a summary must keep and retention tracks: file paths, identifiers, numbers and
 * names. Deterministic regexes, tuned to be specific (a bare "the" or "1" is not a fact).
 */
import type { Message } from '../model';
import { messageText } from '../model';

export type FactKind = 'path' | 'identifier' | 'number' | 'name';

const PATH =
  /(?:^|[\s"'`(=:])((?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+\.\w{1,8}|[\w-]+\.(?:ts|tsx|js|jsx|mjs|py|go|rs|java|rb|md|json|yaml|yml|toml|sql|sh|css|html|c|h|cpp|txt))\b/g;
const IDENT = /\b([a-z]+(?:[A-Z][a-z0-9]+)+|[a-z]+(?:_[a-z0-9]+)+|[A-Z]{2,}-\d+)\b/g;
// The left edge is matched (not looked behind): a lookbehind at every position costs 2× here.
const NUMBER = /(?:^|[^\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d{3,})(?![\w.])/g;
const NAME = /\b([A-Z][a-z]+(?:[A-Z][a-z]+)+)\b/g;

export interface Fact {
  readonly key: string;
  readonly kind: FactKind;
}

/** Distinct facts in a text, in order of first appearance. */
export function extractFacts(raw: string): Fact[] {
  // JSON keys of tool arguments ("old_string": …) are structure, not facts.
  const unkeyed = raw.includes('":') || raw.includes('" :') ? raw.replace(/"[\w$-]+"\s*:/g, ' ') : raw;
  const text = uniqueLines(unkeyed);
  const seen = new Set<string>();
  const out: Fact[] = [];
  const add = (key: string, kind: FactKind): void => {
    if (key.length < 3 || seen.has(key)) return;
    seen.add(key);
    out.push(factOf(key, kind));
  };
  // Every path has a "/" or a "." before its extension: skip the costly scan when neither occurs.
  if (text.includes('/') || text.includes('.')) for (const m of text.matchAll(PATH)) add(m[1]!, 'path');
  // camelCase identifiers and CamelCase names both need a lower-to-upper transition; snake_case
  // needs "_", ticket ids "AB-1": cheap tests that skip the capturing scans for plain prose.
  const camel = /[a-z][A-Z]/.test(text);
  if (camel || text.includes('_') || /[A-Z]{2,}-\d/.test(text)) for (const m of text.matchAll(IDENT)) add(m[1]!, 'identifier');
  if (camel) for (const m of text.matchAll(NAME)) add(m[1]!, 'name');
  for (const m of text.matchAll(NUMBER)) add(m[1]!, 'number');
  return out;
}

/**
 * `s` as a string of its own. A slice of a long text (a regex match, a clipped sentence) points
 * into the text in V8 and keeps all of it alive: a cache of facts or summary items made of slices
 * would hold every message's text (the text of a session held lazily, main/store/lazy-session.ts,
 * would never leave). Short strings are copies already.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/**
 * Facts interned: one Fact object per distinct fact, its key a string of its own, and a number per
 * fact (`factIds`, `facts`): a long session mentions the same paths and names thousands of times
 * (a generated 100 MB session: 636,349 mentions of 1,976 facts), and each message's facts are kept
 * as numbers (`factsOfMessage`). Everything is started again past FACTS_KEPT facts or MENTIONS_KEPT
 * mentions kept (a long-lived process replays many sessions); a fact is a value, never compared by
 * identity.
 */
const FACTS_KEPT = 1_000_000;
const MENTIONS_KEPT = 32 * 1024 * 1024;
let factIds: Record<FactKind, Map<string, number>> = newFactTables();
let facts: Fact[] = [];
function newFactTables(): Record<FactKind, Map<string, number>> {
  return { path: new Map(), identifier: new Map(), number: new Map(), name: new Map() };
}

function factOf(key: string, kind: FactKind): Fact {
  const id = factIds[kind].get(key);
  return id === undefined ? facts[internFact(key, kind)]! : facts[id]!;
}

/** `key`'s number, given one if new; `room`: the tables may start again first (never while a message's numbers are being written). */
function internFact(key: string, kind: FactKind, room = true): number {
  const known = factIds[kind].get(key);
  if (known !== undefined) return known;
  if (room && facts.length >= FACTS_KEPT) startAgain();
  const f: Fact = { key: ownString(key), kind };
  factIds[kind].set(f.key, facts.length);
  facts.push(f);
  return facts.length - 1;
}

/**
 * Tool output repeats itself (logs, progress lines): a line equal to the one before it adds no
 * fact, so it is skipped before the scans. Compared in place; text without repeats is returned
 * as is, with nothing allocated.
 */
function uniqueLines(text: string): string {
  let prevStart = 0;
  let prevEnd = text.indexOf('\n');
  if (prevEnd < 0) return text;
  let kept: string[] | null = null;
  let segmentStart = 0;
  let pos = prevEnd + 1;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    let same = end - pos === prevEnd - prevStart;
    for (let k = 0; same && k < end - pos; k++) if (text.charCodeAt(pos + k) !== text.charCodeAt(prevStart + k)) same = false;
    if (same) {
      // Keep everything up to this line, then resume after it.
      (kept ??= []).push(text.slice(segmentStart, pos));
      segmentStart = end + 1;
    } else {
      prevStart = pos;
      prevEnd = end;
    }
    pos = end + 1;
  }
  if (!kept) return text;
  if (segmentStart < text.length) kept.push(text.slice(segmentStart));
  return kept.join('');
}

/**
 * Each message's facts as numbers, back to back in one array (`mentions`): the message maps to
 * where its run starts, and the run is its count then its fact numbers. A number per mention and
 * nothing per message but the map's entry, where an array per message was most of what a long
 * session's facts cost.
 */
let perMessage = new WeakMap<Message, number>();
let mentions = new Uint32Array(1024);
let used = 0;

/** Forgets every fact and every message's facts (they are extracted again when asked). */
function startAgain(): void {
  factIds = newFactTables();
  facts = [];
  perMessage = new WeakMap();
  mentions = new Uint32Array(1024);
  used = 0;
}

/** Facts of everything the model reads in a message (text, reasoning, tool calls, results), kept per message. */
export function factsOfMessage(m: Message): readonly Fact[] {
  const at = perMessage.get(m);
  if (at !== undefined) {
    const n = mentions[at]!;
    const out = new Array<Fact>(n);
    for (let k = 0; k < n; k++) out[k] = facts[mentions[at + 1 + k]!]!;
    return out;
  }
  const found = extractFacts(messageText(m));
  if (used + found.length + 1 > MENTIONS_KEPT || facts.length + found.length > FACTS_KEPT) startAgain();
  // Numbered after the room is made: every number of the message is of the same tables.
  const ids = found.map((f) => internFact(f.key, f.kind, false));
  if (used + ids.length + 1 > mentions.length) {
    const grown = new Uint32Array(Math.max(mentions.length * 2, used + ids.length + 1));
    grown.set(mentions.subarray(0, used));
    mentions = grown;
  }
  const start = used;
  mentions[used++] = ids.length;
  for (const id of ids) mentions[used++] = id;
  perMessage.set(m, start);
  return found;
}
