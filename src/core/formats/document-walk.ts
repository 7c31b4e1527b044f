/**
 * The live tail's walk of a session file that is one JSON document (docs/user-guide.md "Live tail"): its
 * agent writes the whole document again at every change, and the usual change is the same
 * document with more elements at the end of an array (Gemini CLI's `messages`, a logged OpenAI
 * request's `messages`, SWE-agent's `trajectory` and `history`, OpenHands' event list). Reading
 * only what is new:
 *
 * - What was imported is remembered per growing array: the byte length of its content up to the
 *   end of its last element, and the sha256 of those bytes and of the bytes before its last
 *   element; the rest of the document (its "skeleton": every other key, the arrays left empty) as
 *   the session is built from it (a format leaves out what does not change the session, such as
 *   Gemini CLI's `lastUpdated`).
 * - A new write is read once: the skeleton is walked up to each growing array, the array's old
 *   content must hash as before where it now lies (keys before it may have changed length), and
 *   only the elements after it are parsed — the last old element may have been written again
 *   (a running call that got its result): then the bytes before it must hash as before, and it is
 *   converted again in its place. The new skeleton must equal the old one.
 * - The new elements of the conversation array become messages by the importer's own rules
 *   (the format's document shapes, core/formats/<format>.ts: one by one, or as a batch with the
 *   format's own checks where elements depend on earlier ones); the host stores them
 *   (src/main/store/tail-append.ts) as a first import of the file would.
 *
 * Pure: the host hands in the bytes and a sha256 (`NewDigest`).
 *
 * Anything else — an earlier element changed, another key changed, keys repeated, a document
 * this walk does not read — goes through the whole-file path (src/main/store/tail.ts). A document cut
 * short (still being written) waits for the next change.
 */
import type { Json } from '../import/util';
import { concatBytes } from './bytes';
import { SHORT, skipSpace, stringEnd, UNCOUNTED, valueEnd } from './document';
import type { DocumentShape, StoredSession, TailChange } from './types';

/** A running sha256 the host provides (src/core has no crypto): `copy` forks it, `digest` ends it in hex. */
export interface Digest {
  update(b: Uint8Array): Digest;
  copy(): Digest;
  digest(): string;
}
export type NewDigest = () => Digest;

type DocumentFormat = DocumentShape;

/** One growing array as imported. */
interface ArrayMark {
  readonly key: string;
  /** Elements (UNCOUNTED: one or more, and so are the ones after them). */
  readonly count: number;
  /** Bytes from just after `[` to the end of the last element. */
  readonly len: number;
  /** Bytes from just after `[` to the start of the last element (== len with no element). */
  readonly lastLen: number;
  readonly digest: string;
  readonly beforeLast: string;
}

/** What the fast path keeps between writes (the host's tail state); a fast update moves it on. */
export interface DocumentTail {
  readonly format: DocumentFormat;
  arrays: readonly ArrayMark[];
  /** The comparable skeleton, as JSON text (moved on by a fast update when the format `follows`). */
  skeleton: string;
  /** Messages the conversation's last element made (replaced when it is written again). */
  lastCount: number;
  /** The format's own state (DocumentFormat.scan). */
  readonly state: unknown;
}

const isSpace = (c: number | undefined): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** A growing array as this write has it. */
interface Walked {
  readonly mark: ArrayMark;
  /** [start, end) of each element after the ones verified unchanged. */
  readonly fresh: readonly (readonly [number, number])[];
  /** Index of the first fresh element. */
  readonly first: number;
  /** The last old element was written again (it is the first fresh one). */
  readonly reopened: boolean;
}

const digestOf = (h: Digest): string => h.copy().digest();

/**
 * The array opening at `open`: with `old`, its old content verified by hash (else undefined), and
 * the elements after it; without, every element. Returns the array and the offset of its `]`.
 */
function walkArray(
  sha: NewDigest,
  b: Uint8Array,
  key: string,
  open: number,
  old: ArrayMark | undefined,
  mayReopen: boolean,
): { walked: Walked; close: number } | undefined {
  const start = open + 1;
  // Covers [start, at) as the walk goes.
  let h = sha();
  let at = start;
  let count = 0;
  let reopened = false;
  let lastStart = start;
  let end = start;
  let beforeLast: string | undefined;
  if (old) {
    // Not there: another document (a longer head, fewer elements), not necessarily one cut short.
    if (start + old.len > b.length) return undefined;
    h.update(b.subarray(start, start + old.lastLen));
    const before = digestOf(h);
    const full = h.copy().update(b.subarray(start + old.lastLen, start + old.len));
    if (digestOf(full) === old.digest) {
      h = full;
      at = end = start + old.len;
      lastStart = start + old.lastLen;
      count = old.count;
      beforeLast = old.beforeLast;
    } else if (mayReopen && old.count > 0 && before === old.beforeLast) {
      // The last element written again: the bytes before it are as imported.
      reopened = true;
      at = end = lastStart = start + old.lastLen;
      count = old.count - 1;
    } else return undefined;
  }
  const verified = at;
  const first = count;
  const fresh: [number, number][] = [];
  // After an element: a comma or the end; before the first one (or the one written again): an element or the end.
  let expectElement = count === 0 || reopened;
  const counted = count !== UNCOUNTED;
  for (;;) {
    at = skipSpace(b, at);
    if (at >= b.length) throw SHORT;
    if (b[at] === 93) {
      if (reopened && fresh.length === 0) return undefined;
      break;
    }
    if (!expectElement) {
      if (b[at] !== 44) return undefined;
      at = skipSpace(b, at + 1);
    }
    const e = valueEnd(b, at);
    fresh.push([at, e]);
    lastStart = at;
    end = at = e;
    if (counted) count++;
    expectElement = false;
  }
  if (fresh.length > 0) {
    h.update(b.subarray(verified, lastStart));
    beforeLast = digestOf(h);
    h.update(b.subarray(lastStart, end));
  } else beforeLast ??= digestOf(h);
  const mark: ArrayMark = { key, count, len: end - start, lastLen: lastStart - start, digest: h.digest(), beforeLast };
  return { walked: { mark, fresh, first, reopened }, close: at };
}

/**
 * Walks the document in `b`: the skeleton's text and each growing array (against `old` when
 * given). Undefined when it is not a document this walk reads (or an array's old content
 * changed); throws SHORT when the bytes end inside it.
 */
function walk(
  sha: NewDigest,
  b: Uint8Array,
  format: DocumentFormat,
  old: DocumentTail | undefined,
): { skeleton: string; arrays: Walked[] } | undefined {
  const pieces: Uint8Array[] = [];
  let piece = 0;
  const arrays: Walked[] = [];
  const track = (key: string, open: number): number | undefined => {
    if (arrays.some((a) => a.mark.key === key)) return undefined;
    const prev = old ? old.arrays.find((a) => a.key === key) : undefined;
    if (old && !prev) return undefined;
    const r = walkArray(sha, b, key, open, prev, key === format.conversation && format.reopen);
    if (!r) return undefined;
    arrays.push(r.walked);
    pieces.push(b.subarray(piece, open + 1));
    piece = r.close;
    return r.close + 1;
  };
  let at = skipSpace(b, 0);
  if (format.arrays.includes('')) {
    if (b[at] !== 91) return undefined;
    const next = track('', at);
    if (next === undefined) return undefined;
    at = next;
  } else {
    if (b[at] !== 123) return undefined;
    at = skipSpace(b, at + 1);
    if (b[at] === 125) at++;
    else
      for (;;) {
        if (at >= b.length) throw SHORT;
        if (b[at] !== 34) return undefined;
        const keyEnd = stringEnd(b, at);
        const key = parsed(b, at, keyEnd);
        if (!key.ok) return undefined;
        at = skipSpace(b, keyEnd);
        if (at >= b.length) throw SHORT;
        if (b[at] !== 58) return undefined;
        at = skipSpace(b, at + 1);
        if (typeof key.value === 'string' && format.arrays.includes(key.value) && b[at] === 91) {
          const next = track(key.value, at);
          if (next === undefined) return undefined;
          at = next;
        } else at = valueEnd(b, at);
        at = skipSpace(b, at);
        if (at >= b.length) throw SHORT;
        if (b[at] === 44) {
          at = skipSpace(b, at + 1);
          continue;
        }
        if (b[at] !== 125) return undefined;
        at++;
        break;
      }
  }
  if (skipSpace(b, at) !== b.length || arrays.length !== format.arrays.length) return undefined;
  pieces.push(b.subarray(piece));
  const skeleton = decoded(concatBytes(pieces));
  return skeleton === undefined ? undefined : { skeleton, arrays };
}

/** A format's answer, or undefined when it throws: the whole-file path then reads the file and says what is wrong. */
function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** Strict UTF-8, as the import decodes (an invalid byte is the whole-file path's error to name). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
function decoded(b: Uint8Array): string | undefined {
  try {
    return utf8.decode(b);
  } catch {
    return undefined;
  }
}
function parsed(b: Uint8Array, from: number, to: number): { ok: true; value: unknown } | { ok: false } {
  const text = decoded(b.subarray(from, to));
  try {
    if (text !== undefined) return { ok: true, value: JSON.parse(text) };
  } catch {
    // Not JSON: the whole-file path says where.
  }
  return { ok: false };
}

/** The comparable skeleton of a walked document, or undefined (not valid, or the format's fast path does not apply). */
function comparable(format: DocumentFormat, skeleton: string): { text: string; value: Json } | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(skeleton);
  } catch {
    return undefined;
  }
  const value = format.skeleton(doc);
  if (value === undefined || typeof value !== 'object' || value === null) return undefined;
  return { text: JSON.stringify(value), value: value as Json };
}

/**
 * The same for `b`, the imported bytes as the caller read and verified them (the watch's one read
 * of the file: reading and hashing it again cost as much as the walk).
 */
export function documentTailOf(formats: readonly DocumentFormat[], path: string, b: Uint8Array, sha: NewDigest): DocumentTail | undefined {
  for (const format of formats) {
    const tail = tailOf(sha, format, path, b);
    if (tail) return tail;
  }
  return undefined;
}

/**
 * A root array's imported content found by its closing bracket (the last byte that is not
 * space): the bytes are those the import parsed as one JSON value (the caller verified their
 * hash), so nothing but the array's own content lies between its brackets. Undefined for an empty
 * array (then the walk says whether its first element needs no comma) or another shape.
 */
function rootByBrackets(sha: NewDigest, format: DocumentFormat, b: Uint8Array): DocumentTail | undefined {
  const open = skipSpace(b, 0);
  let close = b.length - 1;
  while (close > open && isSpace(b[close])) close--;
  if (b[open] !== 91 || b[close] !== 93) return undefined;
  const start = open + 1;
  let end = close;
  while (end > start && isSpace(b[end - 1])) end--;
  if (end === start) return undefined;
  const state = format.scan ? attempt(() => format.scan!(b)) : undefined;
  if (format.scan && state === undefined) return undefined;
  const digest = sha().update(b.subarray(start, end)).digest();
  // Not reopened (the format's last element is never written again): the part before it is not needed.
  const mark: ArrayMark = { key: '', count: UNCOUNTED, len: end - start, lastLen: end - start, digest, beforeLast: digest };
  const skeleton = comparable(format, '[]');
  return skeleton && { format, arrays: [mark], skeleton: skeleton.text, lastCount: 0, state };
}

/** The fast path's state for the imported bytes `b` read as one shape of document. */
function tailOf(sha: NewDigest, format: DocumentFormat, path: string, b: Uint8Array): DocumentTail | undefined {
  if (format.indexFree && !format.reopen && format.arrays.length === 1 && format.arrays[0] === '') {
    const quick = rootByBrackets(sha, format, b);
    if (quick) return quick;
  }
  let w: ReturnType<typeof walk>;
  try {
    w = walk(sha, b, format, undefined);
  } catch {
    return undefined;
  }
  const skeleton = w && comparable(format, w.skeleton);
  if (!w || !skeleton) return undefined;
  const state = format.scan ? attempt(() => format.scan!(b)) : undefined;
  if (format.scan && state === undefined) return undefined;
  const conv = w.arrays.find((a) => a.mark.key === format.conversation)!;
  const last = conv.fresh.at(-1);
  let lastCount = 0;
  if (last && format.reopen) {
    const v = parsed(b, last[0], last[1]);
    const made = v.ok
      ? attempt(() => format.convert([v.value], conv.mark.count - 1, { path, skeleton: skeleton.value, state }))
      : undefined;
    if (!made) return undefined;
    lastCount = made[0]!.length;
  }
  return { format, arrays: w.arrays.map((a) => a.mark), skeleton: skeleton.text, lastCount, state };
}

/** What a new write of the document makes, for the host to store (types.ts `TailChange`), and the state after it. */
export interface DocumentChange extends TailChange {
  /** Moves the state on (call once the change is stored). */
  readonly advance: () => void;
}

/**
 * The change the document in `b` (the whole file now) makes to the stored session, or undefined
 * when the whole-file path must decide; `'incomplete'` when the bytes end inside the document (an
 * agent still writing it).
 */
export function documentChange(
  tail: DocumentTail,
  path: string,
  b: Uint8Array,
  session: Pick<StoredSession, 'messageCount' | 'model' | 'messagesFrom'>,
  sha: NewDigest,
): DocumentChange | 'incomplete' | undefined {
  if (session.messageCount === 0) return undefined;
  let w: ReturnType<typeof walk>;
  try {
    w = walk(sha, b, tail.format, tail);
  } catch (e) {
    if (e === SHORT) return 'incomplete';
    throw e;
  }
  if (!w) return undefined;
  const skeleton = comparable(tail.format, w.skeleton);
  if (!skeleton) return undefined;
  const follows = tail.format.follows;
  if (follows ? !attempt(() => follows(JSON.parse(tail.skeleton) as Json, skeleton.value, tail.state)) : skeleton.text !== tail.skeleton)
    return undefined;
  // Every new element must be JSON, as the import parses the whole document.
  const conv = w.arrays.find((a) => a.mark.key === tail.format.conversation)!;
  let elements: unknown[] = [];
  for (const a of w.arrays) {
    const values: unknown[] = [];
    for (const [from, to] of a.fresh) {
      const v = parsed(b, from, to);
      if (!v.ok) return undefined;
      values.push(v.value);
    }
    if (a === conv) elements = values;
  }
  const made = attempt(() => tail.format.convert(elements, conv.first, { path, skeleton: skeleton.value, state: tail.state }));
  if (!made) return undefined;
  const changed = made.flat();
  const from = session.messageCount - (conv.reopened ? tail.lastCount : 0);
  // Messages before the first stored one would change how the session starts (a system prompt): the whole file decides.
  if (from <= 0) return undefined;
  const removed = conv.reopened ? session.messagesFrom(from) : [];
  // A prompt written again may be the one the title comes from (the store keeps a title a stored typed prompt gave).
  if (removed.some((m) => m.role === 'user')) return undefined;
  if (!tail.format.keepsSession(session, skeleton.value, removed, changed)) return undefined;
  const lastCount = made.length > 0 ? made.at(-1)!.length : tail.lastCount;
  const arrays = w.arrays.map((a) => a.mark);
  return {
    from,
    removed,
    changed,
    records: 'inline',
    advance: () => {
      tail.format.extend?.(tail.state, elements);
      tail.arrays = arrays;
      tail.lastCount = lastCount;
      tail.skeleton = skeleton.text;
    },
  };
}
