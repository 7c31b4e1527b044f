/**
 * Byte streams → text, for every importer. Pure: works on any ByteSource (a Node file stream,
 * a Blob, a string in tests). JSONL is split into lines chunk by chunk and never held whole;
 * a JSON document is assembled once. Encoding problems (UTF-16, binary, invalid UTF-8) become
 * one clear ImportError naming the file.
 */
import { ImportError, type ByteSource } from './types';

/** How much of the head detection looks at. */
export const SNIFF_BYTES = 64 * 1024;

export interface DecodedLine {
  /** 1-based line number. */
  readonly line: number;
  readonly text: string;
  /** The file's last line had no newline: it may have been cut off mid-write. */
  readonly unterminated?: boolean;
}

function checkEncoding(name: string, first: Uint8Array): number {
  if (first.length >= 2 && ((first[0] === 0xff && first[1] === 0xfe) || (first[0] === 0xfe && first[1] === 0xff))) {
    throw new ImportError(name, 'UTF-8 text, found UTF-16 (re-save the file as UTF-8)', 1, 1);
  }
  const probe = Math.min(first.length, 8192);
  for (let i = 0; i < probe; i++) {
    if (first[i] === 0) throw new ImportError(name, 'a text transcript, found binary data (a NUL byte)', undefined, undefined);
  }
  // UTF-8 BOM: skip it.
  return first.length >= 3 && first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf ? 3 : 0;
}

/** Streams decoded text pieces of the source, BOM removed, encoding checked. */
export async function* decodeText(source: ByteSource, signal?: AbortSignal, onBytes?: (bytes: number) => void): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  let first = true;
  for await (const chunk of source.chunks()) {
    if (signal?.aborted) throw new ImportError(source.name, 'import cancelled');
    let data = chunk;
    if (first) {
      first = false;
      const skip = checkEncoding(source.name, chunk);
      if (skip) data = chunk.subarray(skip);
    }
    const before = bytes;
    bytes += chunk.length;
    let text: string;
    try {
      text = decoder.decode(data, { stream: true });
    } catch {
      throw new ImportError(source.name, `valid UTF-8 text, found an invalid byte sequence near byte ${before}`);
    }
    onBytes?.(bytes);
    if (text) yield text;
  }
  try {
    const tail = decoder.decode();
    if (tail) yield tail;
  } catch {
    throw new ImportError(source.name, 'valid UTF-8 text, the file ends inside a multi-byte character');
  }
}

/** Splits the decoded stream into lines (\n or \r\n), keeping the file's line numbers. */
export async function* decodeLines(source: ByteSource, signal?: AbortSignal, onBytes?: (bytes: number) => void): AsyncGenerator<DecodedLine> {
  let carry = '';
  let line = 0;
  for await (const piece of decodeText(source, signal, onBytes)) {
    const text = carry ? carry + piece : piece;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      line++;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      yield { line, text: text.slice(start, end) };
      start = nl + 1;
    }
    carry = start === 0 ? text : text.slice(start);
  }
  if (carry.length > 0) yield { line: line + 1, text: carry.endsWith('\r') ? carry.slice(0, -1) : carry, unterminated: true };
}

/** The whole source as one string (JSON documents, Markdown). */
export async function readAll(source: ByteSource, signal?: AbortSignal, onBytes?: (bytes: number) => void): Promise<string> {
  const parts: string[] = [];
  for await (const piece of decodeText(source, signal, onBytes)) parts.push(piece);
  return parts.join('');
}

/** The decoded head (~64 KB) and whether it is the whole file. */
export async function readHead(source: ByteSource, limit = SNIFF_BYTES): Promise<{ head: string; complete: boolean }> {
  const parts: string[] = [];
  let length = 0;
  let complete = true;
  const decoder = new TextDecoder('utf-8');
  let first = true;
  for await (const chunk of source.chunks()) {
    let data = chunk;
    if (first) {
      first = false;
      const skip = checkEncoding(source.name, chunk);
      if (skip) data = chunk.subarray(skip);
    }
    if (length + data.length > limit) {
      parts.push(decoder.decode(data.subarray(0, limit - length), { stream: true }));
      complete = false;
      break;
    }
    parts.push(decoder.decode(data, { stream: true }));
    length += data.length;
  }
  parts.push(decoder.decode());
  return { head: parts.join(''), complete };
}

/** Line and column (1-based) of a character offset in a text, for JSON errors. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lastNl = -1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lastNl = i;
  }
  return { line, column: offset - lastNl };
}

/**
 * Older V8 (Node 20) reports some errors without a position: `Unexpected token 'o', ..."x": oops}"
 * is not valid JSON`, quoting ~10 characters either side of the error. Recover the offset from
 * that excerpt.
 */
function unexpectedTokenOffset(text: string, message: string): number | undefined {
  // `Unexpected token 'o', ..."ontent": nope}" is not valid JSON`: an optional `...`, then the
  // quoted excerpt (up to 10 characters before the error), then an optional `...`.
  const m = /^Unexpected token '(.+?)', (\.\.\.)?"([\s\S]*?)"(?:\.\.\.)? is not valid JSON$/.exec(message);
  if (!m) return undefined;
  const leading = m[2] === '...';
  let body = m[3]!;
  if (body.endsWith('...')) body = body.slice(0, -3);
  const at = text.indexOf(body);
  if (at < 0) return undefined;
  if (leading) return at + 10;
  const inBody = body.indexOf(m[1]!);
  return inBody >= 0 ? at + inBody : undefined;
}

/** Parses JSON, turning V8's message into file:line:column + what was expected. */
export function parseJsonOrThrow(name: string, text: string, lineOffset = 0): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const pos = /position (\d+)/.exec(message);
    const lc = /line (\d+) column (\d+)/.exec(message);
    let line: number | undefined;
    let column: number | undefined;
    if (lc) {
      line = Number(lc[1]) + lineOffset;
      column = Number(lc[2]);
    } else if (pos) {
      const at = lineColumnAt(text, Number(pos[1]));
      line = at.line + lineOffset;
      column = at.column;
    } else if (unexpectedTokenOffset(text, message) !== undefined) {
      const at = lineColumnAt(text, unexpectedTokenOffset(text, message)!);
      line = at.line + lineOffset;
      column = at.column;
    } else if (/Unexpected end of JSON input/.test(message)) {
      const at = lineColumnAt(text, text.length);
      line = at.line + lineOffset;
      column = at.column;
    }
    const what = message.replace(/^JSON\.parse: /, '').replace(/\s*\(line \d+ column \d+\)/, '').replace(/ in JSON at position \d+.*$/, '');
    throw new ImportError(name, `valid JSON (${what})`, line, column);
  }
}
