/**
 * Byte helpers for the tail parsers (src/core is host-free: Uint8Array and TextDecoder, never a
 * Node Buffer; a host may hand Buffers in, which are Uint8Arrays).
 */
import { isRecord } from '../import/util';

// ignoreBOM: a byte-order mark stays in the text, as a Buffer's toString keeps it.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** UTF-8 text of bytes [from, to) (invalid bytes replaced, as a Buffer's toString does). */
export const textOf = (b: Uint8Array, from = 0, to = b.length): string => utf8.decode(b.subarray(from, to));

/** The bytes of `parts`, one after the other. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** ASCII text as bytes (the keys a scan looks for). */
export const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** Whether `needle` lies in `b` at `at`. */
export function bytesAt(b: Uint8Array, at: number, needle: Uint8Array): boolean {
  if (at < 0 || at + needle.length > b.length) return false;
  for (let i = 0; i < needle.length; i++) if (b[at + i] !== needle[i]) return false;
  return true;
}

/**
 * Where `needle` starts in `b` at or after `from`, or -1. The search runs natively on the needle's
 * least common byte (a `_`, a capital or a digit before a quote: JSON is mostly quotes and letters).
 */
export function indexOfBytes(b: Uint8Array, needle: Uint8Array, from = 0): number {
  if (needle.length === 0) return from;
  let k = needle.findIndex((c) => c === 95 || (c >= 65 && c <= 90) || (c >= 48 && c <= 57));
  if (k < 0) k = needle.length >> 1;
  const pivot = needle[k]!;
  for (let i = b.indexOf(pivot, from + k); i >= 0; i = b.indexOf(pivot, i + 1)) {
    const at = i - k;
    if (bytesAt(b, at, needle)) return at;
  }
  return -1;
}

/** Whether bytes end in a newline. */
export const endsWithNewline = (b: Uint8Array): boolean => b.length > 0 && b[b.length - 1] === 10;

/** One appended line as the import numbers and keeps it. */
export interface NewLine {
  readonly line: number;
  readonly text: string;
  readonly value: Record<string, unknown>;
}

/**
 * The complete lines of `appended`, numbered on from `before` lines, as the import reads them
 * (blank lines skipped, a trailing CR dropped from the record); undefined when one is not a JSON
 * object (the whole-file path then says what is wrong). `total`: lines after the append.
 */
export function parseAppended(appended: Uint8Array, before: number): { lines: NewLine[]; total: number } | undefined {
  const lines: NewLine[] = [];
  let total = before;
  for (const span of lineSpans(appended, before)) {
    total = span.line;
    const t = textOf(appended, span.from, span.to);
    if (t.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch {
      return undefined;
    }
    if (!isRecord(value)) return undefined;
    lines.push({ line: span.line, text: t, value });
  }
  return { lines, total };
}

/** One complete line of appended bytes: its number, and where its text lies (a trailing CR left out). */
export interface LineSpan {
  readonly line: number;
  readonly from: number;
  readonly to: number;
}

/**
 * The complete lines of `appended` one at a time, numbered on from `before` lines, as
 * `parseAppended` numbers them (blank lines included: the caller skips them). Nothing is decoded
 * here, so a caller that decodes, parses and drops each line in turn never holds the append's
 * text and parsed values all at once (a big append — a progressive import's chunk of several MB — made
 * of them a working set several times its size).
 */
export function* lineSpans(appended: Uint8Array, before: number): Generator<LineSpan> {
  let n = before;
  let start = 0;
  for (let nl = appended.indexOf(10); nl >= 0; nl = appended.indexOf(10, start)) {
    n++;
    const to = nl > start && appended[nl - 1] === 13 ? nl - 1 : nl;
    yield { line: n, from: start, to };
    start = nl + 1;
  }
  // Bytes after the last newline (none when the caller hands whole lines) count as a line, as a split does.
  if (start < appended.length) {
    n++;
    const end = appended.length;
    yield { line: n, from: start, to: appended[end - 1] === 13 ? end - 1 : end };
  }
}

/** A complete appended line: where its bytes lie, and its text. */
export interface LineText extends LineSpan {
  readonly text: string;
}

/**
 * `lineSpans` with each line's text (as `textOf` decodes the span alone), decoded in one pass
 * over all of `appended` and cut at its newlines: a decode per line was twice the time (the
 * decoder's per-call work on ~1 KB lines), and a newline byte is always a newline character,
 * whatever invalid bytes are around it, so each cut is the line's own text. The append's text is
 * held while its lines are read (its parsed values are not: the caller drops each in turn).
 */
export function* lineTexts(appended: Uint8Array, before: number): Generator<LineText> {
  const whole = textOf(appended);
  let at = 0;
  for (const span of lineSpans(appended, before)) {
    const nl = whole.indexOf('\n', at);
    const end = nl < 0 ? whole.length : nl;
    const to = end > at && whole.charCodeAt(end - 1) === 13 ? end - 1 : end;
    yield { line: span.line, from: span.from, to: span.to, text: whole.slice(at, to) };
    at = end + 1;
  }
}

/**
 * Byte spans of some appended lines by number (the lines a change names as records): views of
 * the appended bytes, never decoded or copied. Lines are added in increasing order.
 */
export class LineBytes {
  private first = -1;
  private from = new Int32Array(256);
  private to = new Int32Array(256);
  private count = 0;
  constructor(private readonly bytes: Uint8Array) {}
  add(span: LineSpan): void {
    if (this.first < 0) this.first = span.line;
    const k = span.line - this.first;
    if (k >= this.from.length) {
      const size = Math.max(k + 1, 2 * this.from.length);
      const from = new Int32Array(size);
      const to = new Int32Array(size);
      from.set(this.from);
      to.set(this.to);
      this.from = from;
      this.to = to;
    }
    // A slot never set reads as an empty span with `from` = -1.
    for (let i = this.count; i < k; i++) this.from[i] = -1;
    this.from[k] = span.from;
    this.to[k] = span.to;
    this.count = Math.max(this.count, k + 1);
  }
  get(line: number): Uint8Array | undefined {
    const k = line - this.first;
    if (this.first < 0 || k < 0 || k >= this.count || this.from[k]! < 0) return undefined;
    return this.bytes.subarray(this.from[k], this.to[k]);
  }
}
