/**
 * OpenAI's BPE encodings (o200k_base, cl100k_base), counted exactly and in bounded time.
 *
 * The rank tables and split patterns are js-tiktoken's (the reference the tests compare
 * against); the merge is our own. js-tiktoken (and gpt-tokenizer) merge a piece by scanning
 * every adjacent pair for the lowest rank, once per merge: quadratic in the piece's length, so
 * one 20 KB word took about a minute. Here the pairs sit in a binary heap keyed by
 * (rank, position) over a linked list of parts, which picks the same pair the scan picks (lowest
 * rank, leftmost on ties) in O(log n). Counting is therefore O(n log n) in the text's UTF-8 length
 * for ANY input, pieces of any size included, with no approximation: the counts equal
 * js-tiktoken's `encode(text).length` (test/unit/security/tokenizer-bound.test.ts checks this on the
 * corpus, the fixtures and random strings).
 *
 * Special-token text such as `<|endoftext|>` in a transcript is counted as ordinary text, never
 * rejected (as js-tiktoken does with no special tokens allowed). Tables are parsed on first use.
 */
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import type { Tokenizer } from './types';
import { isJsSpace } from './js-space';

interface RankFile {
  readonly pat_str: string;
  readonly bpe_ranks: string;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) B64_VALUE[BASE64.charCodeAt(i)] = i;

/** Base64 to a "binary string" (one char per byte, 0-255): the key type of our rank map. */
function base64ToBinary(s: string): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const v = B64_VALUE[s.charCodeAt(i)] ?? -1;
    if (v < 0) continue; // '=' padding
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((acc >> bits) & 0xff);
    }
  }
  return out;
}

interface RankTable {
  /** Token bytes (as a binary string) to rank. */
  readonly rankOf: Map<string, number>;
  /** Rank to token bytes. */
  readonly bytesOf: string[];
}

/** js-tiktoken's compressed table: lines of `! <first rank> <base64 token> <base64 token> …`. */
function parseRanks(file: RankFile): RankTable {
  const rankOf = new Map<string, number>();
  const bytesOf: string[] = [];
  for (const line of file.bpe_ranks.split('\n')) {
    if (!line) continue;
    const fields = line.split(' ');
    const first = Number.parseInt(fields[1]!, 10);
    for (let i = 2; i < fields.length; i++) {
      const bytes = base64ToBinary(fields[i]!);
      rankOf.set(bytes, first + i - 2);
      bytesOf[first + i - 2] = bytes;
    }
  }
  return { rankOf, bytesOf };
}

const utf8 = new TextEncoder();

function binaryOf(bytes: Uint8Array, from = 0, to = bytes.length): string {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

/** A min-heap of pair keys `rank * 2^32 + leftOffset`: lowest rank first, leftmost on ties. */
class PairHeap {
  private readonly items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  push(key: number): void {
    const a = this.items;
    let i = a.length;
    a.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= key) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = key;
  }
  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

const OFFSET = 2 ** 32;
const NO_RANK = -1;
/** Slots of the pair cache (a power of two; 3 × 1 MB of typed arrays). */
const PAIR_SLOTS = 1 << 18;

/**
 * Merges adjacent tokens: the rank of the token that `left` + `right` concatenate to (or
 * NO_RANK). The same pairs recur throughout a text, so answers sit in a direct-mapped cache of
 * typed arrays (a slot keeps the last pair hashed to it), which costs no allocation per lookup.
 */
function pairMerger(table: RankTable): (left: number, right: number) => number {
  const lefts = new Int32Array(PAIR_SLOTS).fill(-1);
  const rights = new Int32Array(PAIR_SLOTS);
  const merged = new Int32Array(PAIR_SLOTS);
  return (left, right) => {
    const slot = (Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b)) >>> 14;
    if (lefts[slot] === left && rights[slot] === right) return merged[slot]!;
    const rank = table.rankOf.get(table.bytesOf[left]! + table.bytesOf[right]!) ?? NO_RANK;
    lefts[slot] = left;
    rights[slot] = right;
    merged[slot] = rank;
    return rank;
  };
}

/** Up to this many bytes a piece is merged by rescanning its pairs (cheap on small arrays). */
const SMALL = 48;

/** Scratch arrays for small pieces, reused (counting is synchronous). */
const smallToken = new Int32Array(SMALL);
const smallPair = new Int32Array(SMALL);

/**
 * Tokens of one piece after BPE: start from single bytes, repeatedly merge the adjacent pair
 * whose concatenation has the lowest rank (leftmost on ties) until no pair has a rank.
 * `tokens` holds the rank of each byte (every byte is a token in byte-level BPE).
 */
export function mergedTokenCount(tokens: Int32Array, n: number, merge: (left: number, right: number) => number): number {
  if (n <= 1) return n;
  if (n <= SMALL) return smallMerge(tokens, n, merge);
  return heapMerge(tokens, n, merge);
}

/** The reference's own scan, on typed arrays: O(n^2) but n <= SMALL. */
function smallMerge(tokens: Int32Array, n: number, merge: (left: number, right: number) => number): number {
  const token = smallToken;
  const pair = smallPair;
  for (let i = 0; i < n; i++) token[i] = tokens[i]!;
  for (let i = 0; i < n - 1; i++) pair[i] = merge(token[i]!, token[i + 1]!);
  let len = n;
  for (;;) {
    let best = -1;
    let bestRank = 0;
    for (let i = 0; i < len - 1; i++) {
      const r = pair[i]!;
      if (r !== NO_RANK && (best < 0 || r < bestRank)) {
        best = i;
        bestRank = r;
      }
    }
    if (best < 0) return len;
    token[best] = bestRank;
    for (let i = best + 1; i < len - 1; i++) {
      token[i] = token[i + 1]!;
      pair[i] = pair[i + 1]!;
    }
    len--;
    if (best < len - 1) pair[best] = merge(token[best]!, token[best + 1]!);
    if (best > 0) pair[best - 1] = merge(token[best - 1]!, token[best]!);
  }
}

/** The same merges for big pieces: pairs in a heap over a linked list of parts, O(n log n). */
function heapMerge(tokens: Int32Array, n: number, merge: (left: number, right: number) => number): number {
  const token = tokens.slice(0, n);
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  // pairRank[i]: rank of (part at i) + (the part after it), NO_RANK when none; a heap entry is
  // current only while it still names this rank for a live part.
  const pairRank = new Int32Array(n).fill(NO_RANK);
  const alive = new Uint8Array(n).fill(1);
  const heap = new PairHeap();
  for (let i = 0; i < n; i++) {
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
  }
  const setPair = (i: number): void => {
    const j = next[i]!;
    const rank = j < 0 ? NO_RANK : merge(token[i]!, token[j]!);
    pairRank[i] = rank;
    if (rank !== NO_RANK) heap.push(rank * OFFSET + i);
  };
  for (let i = 0; i < n - 1; i++) setPair(i);
  let count = n;
  while (heap.size > 0) {
    const key = heap.pop();
    const rank = Math.floor(key / OFFSET);
    const i = key - rank * OFFSET;
    if (!alive[i] || pairRank[i] !== rank) continue; // stale: that pair was merged or changed
    const j = next[i]!;
    token[i] = rank;
    alive[j] = 0;
    next[i] = next[j]!;
    if (next[i]! >= 0) prev[next[i]!] = i;
    count--;
    setPair(i);
    if (prev[i]! >= 0) setPair(prev[i]!);
  }
  return count;
}

export interface BpeCounter {
  /** Exact token count of `text`; special-token text counted as text. */
  count(text: string): number;
}

/** The longest token of o200k_base and cl100k_base, in bytes: a longer piece is never one token. */
const MAX_TOKEN_BYTES = 128;

/** A counter over one rank file: the file's split pattern, then a direct lookup or a merge per piece. */
export function bpeCounter(file: RankFile): BpeCounter {
  let table: RankTable | undefined;
  let merge: ((left: number, right: number) => number) | undefined;
  const byteRank = new Int32Array(256);
  let buffer = new Int32Array(1024);
  const split = new RegExp(file.pat_str, 'gu');
  return {
    count(text) {
      if (text.length === 0) return 0;
      if (!table) {
        table = parseRanks(file);
        merge = pairMerger(table);
        for (let b = 0; b < 256; b++) byteRank[b] = table.rankOf.get(String.fromCharCode(b))!;
      }
      let total = 0;
      for (const match of text.matchAll(split)) {
        const piece = match[0];
        let ascii = true;
        for (let i = 0; i < piece.length; i++) {
          if (piece.charCodeAt(i) > 0x7f) {
            ascii = false;
            break;
          }
        }
        // An ASCII piece is its own binary string; other text goes through UTF-8.
        const bytes = ascii ? undefined : utf8.encode(piece);
        const n = bytes ? bytes.length : piece.length;
        if (n === 1) {
          total++;
          continue;
        }
        // Most pieces of ordinary text are one token: look the whole piece up before merging.
        if (n <= MAX_TOKEN_BYTES && table.rankOf.has(bytes ? binaryOf(bytes) : piece)) {
          total++;
          continue;
        }
        if (buffer.length < n) buffer = new Int32Array(Math.max(n, buffer.length * 2));
        if (bytes) for (let i = 0; i < n; i++) buffer[i] = byteRank[bytes[i]!]!;
        else for (let i = 0; i < n; i++) buffer[i] = byteRank[piece.charCodeAt(i)]!;
        total += mergedTokenCount(buffer, n, merge!);
      }
      return total;
    },
  };
}

function lazyBpe(id: string, label: string, file: RankFile): Tokenizer {
  const counter = bpeCounter(file);
  return { id, label, approximate: false, countText: (text) => counter.count(text) };
}

export const o200kBase = lazyBpe('tiktoken:o200k_base', 'o200k_base (tiktoken)', o200k);
export const cl100kBase = lazyBpe('tiktoken:cl100k_base', 'cl100k_base (tiktoken)', cl100k);

/**
 * Pieces longer than this many chars are where a quadratic merge (gpt-tokenizer's, in the bulk
 * counting workers) gets slow; texts that may hold one are counted here instead.
 */
export const LONG_RUN = 128;

/**
 * True when `text` has a run of more than `limit` whitespace or more than `limit` non-whitespace
 * chars. Every piece of the o200k and cl100k split patterns is whitespace, or non-whitespace with
 * at most one leading space and trailing newlines, so a text without such a run has no piece
 * longer than 2 × limit + 2 chars. One linear pass, no regex.
 */
export function hasLongRun(text: string, limit = LONG_RUN): boolean {
  if (text.length <= limit) return false;
  let run = 0;
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const s = isJsSpace(text.charCodeAt(i));
    if (s === space) {
      if (++run > limit) return true;
    } else {
      space = s;
      run = 1;
    }
  }
  return false;
}
