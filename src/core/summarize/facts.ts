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
 * One Fact object per distinct fact, its key a string of its own: a long session mentions the same
 * paths and names thousands of times, and each message's facts are kept (`factsOfMessage`). Started
 * again past FACTS_KEPT facts (a long-lived process replays many sessions); a fact is a value,
 * never compared by identity.
 */
const FACTS_KEPT = 1_000_000;
let factTables: Record<FactKind, Map<string, Fact>> = newFactTables();
function newFactTables(): Record<FactKind, Map<string, Fact>> {
  return { path: new Map(), identifier: new Map(), number: new Map(), name: new Map() };
}
let factsKept = 0;

function factOf(key: string, kind: FactKind): Fact {
  const table = factTables[kind];
  let f = table.get(key);
  if (!f) {
    if (++factsKept > FACTS_KEPT) {
      factTables = newFactTables();
      factsKept = 1;
    }
    f = { key: ownString(key), kind };
    factTables[kind].set(f.key, f);
  }
  return f;
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

const perMessage = new WeakMap<Message, readonly Fact[]>();

/** Facts of everything the model reads in a message (text, reasoning, tool calls, results), cached per message. */
export function factsOfMessage(m: Message): readonly Fact[] {
  let f = perMessage.get(m);
  if (!f) {
    f = extractFacts(messageText(m));
    perMessage.set(m, f);
  }
  return f;
}
