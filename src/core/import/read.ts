/**
 * Byte streams → text, for every importer. Pure: works on any ByteSource (a Node file stream,
 * a Blob, a string in tests). JSONL is split into lines chunk by chunk and never held whole;
 * a JSON document is assembled once. Encoding problems (UTF-16, binary, invalid UTF-8) become
 * one clear ImportError naming the file.
 */
import { ImportError, type ByteSource, type JsonLine } from './types';

/** How much of the head detection looks at. */
export const SNIFF_BYTES = 64 * 1024;

/**
 * UTF-16 without a byte-order mark: NUL at (nearly) every odd byte (little-endian) or every even
 * byte (big-endian) while the other half is ASCII — text, just not UTF-8, so not "binary".
 */
function looksLikeUtf16(b: Uint8Array, probe: number): boolean {
  const pairs = probe >> 1;
  if (pairs < 2) return false;
  let le = 0;
  let be = 0;
  for (let i = 0; i + 1 < probe; i += 2) {
    if (b[i + 1] === 0 && b[i] !== 0 && b[i]! < 0x80) le++;
    if (b[i] === 0 && b[i + 1] !== 0 && b[i + 1]! < 0x80) be++;
  }
  return le >= pairs * 0.9 || be >= pairs * 0.9;
}

function checkEncoding(name: string, first: Uint8Array): number {
  if (first.length >= 2 && ((first[0] === 0xff && first[1] === 0xfe) || (first[0] === 0xfe && first[1] === 0xff))) {
    throw new ImportError(name, 'UTF-8 text, found UTF-16 (re-save the file as UTF-8)', 1, 1);
  }
  const probe = Math.min(first.length, 8192);
  if (looksLikeUtf16(first, probe)) throw new ImportError(name, 'UTF-8 text, found UTF-16 (re-save the file as UTF-8)', 1, 1);
  const nul = first.subarray(0, probe).indexOf(0);
  if (nul >= 0) {
    // Where it is: its line and byte column within the first chunk, and its byte offset.
    let line = 1;
    let lineStart = 0;
    for (let i = first.indexOf(10); i >= 0 && i < nul; i = first.indexOf(10, i + 1)) {
      line++;
      lineStart = i + 1;
    }
    throw new ImportError(name, `a text transcript, found binary data (a NUL byte at byte ${nul})`, line, nul - lineStart + 1);
  }
  // UTF-8 BOM: skip it.
  return first.length >= 3 && first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf ? 3 : 0;
}

/**
 * The longest line (a JSONL record) an import reads. One line becomes one message, and that
 * message's text is held several times over while it is parsed, stored and counted (the decoded
 * line, the parsed string, the raw record, the stored body): about 28 bytes of memory a byte of
 * line, measured. 10 MiB keeps a one-line import under the stated memory bound, 4× the input or
 * 500 MB whichever is larger (docs/limits.md, "Bounds"); a longer line is refused, naming its
 * line, its byte offset and this bound, before it is decoded.
 */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** A byte count as people read it: `10 MiB (10,485,760 bytes)`, or bytes alone below a MiB. */
function sizeText(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} bytes`;
  return bytes < 1024 * 1024 ? exact : `${(bytes / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 })} MiB (${exact})`;
}

async function lineTooLong(source: ByteSource, start: number, max: number): Promise<ImportError> {
  const at = await lineAtByte(source, start);
  return new ImportError(
    source.name,
    `a line of at most ${sizeText(max)}, found a longer line starting at byte ${start}: a longer line would take the import past its memory bound of 4× the input or 500 MB (the host's CTXSCOPE_MAX_LINE_MB raises the line bound, and the memory an import may take with it)`,
    at.line,
    at.column,
  );
}

/** A piece of the source not decoded yet, with where it lies in the file (for errors). */
interface Segment {
  readonly bytes: Uint8Array;
  /** File offset of `bytes[0]`. */
  readonly offset: number;
}

/**
 * Where a block may end, for text cut into lines or just into characters: `last` is the end of
 * the longest prefix of a chunk that is whole (0: none), `first` the end of the shortest prefix
 * that completes the bytes left over from earlier chunks.
 */
interface Cuts {
  readonly first: (data: Uint8Array) => number;
  readonly last: (data: Uint8Array) => number;
}

const LINES: Cuts = {
  first: (data) => data.indexOf(10) + 1,
  last: (data) => data.lastIndexOf(10) + 1,
};

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;

const CHARACTERS: Cuts = {
  // Left-over bytes end inside a character: its continuation bytes (at most 3) complete it.
  first: (data) => {
    let i = 0;
    while (i < 3 && i < data.length && isContinuation(data[i]!)) i++;
    return i;
  },
  // After the last complete character (invalid bytes are left for the decoder to reject).
  last: (data) => {
    const n = data.length;
    let i = n - 1;
    while (i >= 0 && i > n - 4 && isContinuation(data[i]!)) i--;
    // Only continuation bytes: their character started in an earlier chunk and may go on.
    if (i < 0) return 0;
    const lead = data[i]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    return n - i >= need ? n : i;
  },
};

function concat(segments: readonly Segment[], last: Uint8Array): Uint8Array {
  let total = last.length;
  for (const s of segments) total += s.bytes.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const s of segments) {
    out.set(s.bytes, at);
    at += s.bytes.length;
  }
  out.set(last, at);
  return out;
}

/**
 * The error for segments (contiguous, starting on a character boundary) that failed to decode:
 * the exact file offset of the first byte that is not valid UTF-8, and its line, or the file
 * ending inside a character. Runs only once a block has failed, so it may be slow: the offset is
 * found by bisecting with the platform's decoder, the line by reading the source again up to it.
 */
async function decodeError(source: ByteSource, segments: readonly Segment[], atEnd: boolean): Promise<ImportError> {
  const bytes = segments.length === 1 ? segments[0]!.bytes : concat(segments.slice(0, -1), segments[segments.length - 1]!.bytes);
  const start = segments[0]?.offset ?? 0;
  // A prefix that decodes (an unfinished last character allowed) holds no invalid byte; the
  // shortest prefix that fails ends with the first one.
  const fails = (n: number): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, n), { stream: true });
      return false;
    } catch {
      return true;
    }
  };
  if (!fails(bytes.length)) {
    if (atEnd)
      return new ImportError(
        source.name,
        `valid UTF-8 text, the file ends inside a multi-byte character (at byte ${start + bytes.length})`,
      );
    // The bytes end inside a character that the next byte (a new character) cuts short: the
    // invalid sequence is that unfinished character.
    let lead = bytes.length - 1;
    while (lead > 0 && lead > bytes.length - 4 && isContinuation(bytes[lead]!)) lead--;
    return invalidAt(source, start + lead, bytes[lead] ?? 0);
  }
  let lo = 0;
  let hi = bytes.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (fails(mid)) hi = mid;
    else lo = mid;
  }
  // The byte that made the prefix fail; when it cuts short a character begun just before it
  // (Latin-1 "é" followed by a quote), the sequence starts at that character's lead byte.
  let bad = hi - 1;
  let lead = bad - 1;
  while (lead >= 0 && lead >= bad - 3 && isContinuation(bytes[lead]!)) lead--;
  if (!isContinuation(bytes[bad]!) && lead >= 0 && lead < bad && bytes[lead]! >= 0xc0) {
    const need = bytes[lead]! >= 0xf0 ? 4 : bytes[lead]! >= 0xe0 ? 3 : 2;
    if (bad - lead < need) bad = lead;
  }
  return invalidAt(source, start + bad, bytes[bad]!);
}

async function invalidAt(source: ByteSource, offset: number, byte: number): Promise<ImportError> {
  const at = await lineAtByte(source, offset);
  return new ImportError(
    source.name,
    `valid UTF-8 text, found an invalid byte sequence at byte ${offset} (0x${byte.toString(16).padStart(2, '0')})`,
    at.line,
    at.column,
  );
}

/** The 1-based line and byte column of a file offset, counted from the source's bytes. */
async function lineAtByte(source: ByteSource, offset: number): Promise<{ line: number; column: number }> {
  let line = 1;
  let lineStart = 0;
  let pos = 0;
  for await (const chunk of source.chunks()) {
    const end = Math.min(chunk.length, offset - pos);
    for (let i = chunk.indexOf(10); i >= 0 && i < end; i = chunk.indexOf(10, i + 1)) {
      line++;
      lineStart = pos + i + 1;
    }
    pos += chunk.length;
    if (pos >= offset) break;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Streams the decoded text of the source in blocks that end where `cuts` say (BOM removed,
 * encoding checked). Each block is decoded in one non-streaming call, Node's fast UTF-8 path (a
 * decoder in streaming mode leaves it for ICU's converter, about 1.6× slower on the import
 * bench), and bytes after the cut wait for the next chunk. Errors read exactly as those of a
 * streaming decoder fed the chunks.
 */
async function* decodeBlocks(
  source: ByteSource,
  cuts: Cuts,
  signal?: AbortSignal,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<string> {
  // ignoreBOM: BOMs are handled here, once, not at the start of every block.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  // Undefined when the block is not valid UTF-8 (the caller then awaits the precise error).
  const decode = (block: Uint8Array): string | undefined => {
    try {
      return decoder.decode(block);
    } catch {
      return undefined;
    }
  };
  let bytes = 0;
  let first = true;
  let pending: Segment[] = [];
  // Line by line, a line longer than this is refused before it is decoded (MAX_LINE_BYTES).
  const maxLine = cuts === LINES ? (source.maxLineBytes ?? MAX_LINE_BYTES) : Number.POSITIVE_INFINITY;
  let pendingBytes = 0;
  for await (const chunk of source.chunks()) {
    if (signal?.aborted) throw new ImportError(source.name, 'import cancelled');
    let data = chunk;
    if (first) {
      first = false;
      const skip = checkEncoding(source.name, chunk);
      if (skip) data = chunk.subarray(skip);
      // A streaming decoder would also drop a second BOM at the very start of the text.
      if (skip && data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) data = data.subarray(3);
    }
    // File offset of data[0] (after any BOM).
    const dataStart = bytes + chunk.length - data.length;
    bytes += chunk.length;
    const end = cuts.last(data);
    if (maxLine !== Number.POSITIVE_INFINITY) {
      const lineStart = pending[0]?.offset ?? dataStart;
      if (end === 0) {
        if (pendingBytes + data.length > maxLine) throw await lineTooLong(source, lineStart, maxLine);
      } else {
        // The line the left-over bytes began, then (only in a chunk longer than a line may be) each
        // line inside this chunk; what follows the last newline is checked as it grows.
        if (pendingBytes + data.indexOf(10) > maxLine) throw await lineTooLong(source, lineStart, maxLine);
        if (data.length > maxLine) {
          for (let from = data.indexOf(10) + 1, nl = data.indexOf(10, from); nl >= 0; from = nl + 1, nl = data.indexOf(10, from)) {
            if (nl - from > maxLine) throw await lineTooLong(source, dataStart + from, maxLine);
          }
        }
        if (data.length - end > maxLine) throw await lineTooLong(source, dataStart + end, maxLine);
      }
    }
    if (end === 0) {
      // Nothing whole in this chunk (a long line): keep a copy (the source may reuse its buffer,
      // and a view would pin all of it; Node's Buffer#slice is a view, hence `new Uint8Array`).
      if (data.length > 0) pending.push({ bytes: new Uint8Array(data), offset: dataStart });
      pendingBytes += data.length;
      onBytes?.(bytes);
      continue;
    }
    let start = 0;
    let firstText = '';
    if (pending.length > 0) {
      // The left-over bytes and the start of this chunk that completes them: a small block of
      // its own, so the rest of the chunk is decoded where it lies, without a copy.
      start = cuts.first(data);
      const head = data.subarray(0, start);
      const decoded = decode(concat(pending, head));
      if (decoded === undefined) throw await decodeError(source, [...pending, { bytes: head, offset: dataStart }], false);
      firstText = decoded;
    }
    const body = start === 0 && end === data.length ? data : data.subarray(start, end);
    let text = '';
    if (start < end) {
      const decoded = decode(body);
      if (decoded === undefined) throw await decodeError(source, [{ bytes: body, offset: dataStart + start }], false);
      text = decoded;
    }
    pending = end < data.length ? [{ bytes: new Uint8Array(data.subarray(end)), offset: dataStart + end }] : [];
    pendingBytes = data.length - end;
    onBytes?.(bytes);
    if (firstText) yield firstText;
    if (text) yield text;
  }
  if (pending.length > 0) {
    const last = pending[pending.length - 1]!.bytes;
    const text = decode(pending.length === 1 ? last : concat(pending.slice(0, -1), last));
    if (text === undefined) throw await decodeError(source, pending, true);
    if (text) yield text;
  }
}

/** Streams decoded text pieces of the source, BOM removed, encoding checked. */
export function decodeText(source: ByteSource, signal?: AbortSignal, onBytes?: (bytes: number) => void): AsyncGenerator<string> {
  return decodeBlocks(source, CHARACTERS, signal, onBytes);
}

/**
 * Streams the decoded source in blocks of whole lines: every block but the last ends with '\n'
 * (the last one ends without it only when the file's last line has no newline). A line is never
 * split between blocks, so the lines of a block can be cut out of it without a carry.
 */
export function decodeLineBlocks(source: ByteSource, signal?: AbortSignal, onBytes?: (bytes: number) => void): AsyncGenerator<string> {
  return decodeBlocks(source, LINES, signal, onBytes);
}

/**
 * Parsed JSONL lines as the framework hands them to an importer: an AsyncIterable like any
 * other, which an importer on a hot path can also read a block (~1 MB) at a time through
 * `lineBlocks`: one await per block and the block's lines iterated synchronously, instead of
 * a promise per line. Either way the lines are read once.
 */
export interface BlockedJsonLines extends AsyncIterable<JsonLine> {
  blocks(): AsyncIterable<Iterable<JsonLine>>;
}

/** The lines a block at a time: in whole blocks when the source offers them, else one by one. */
export function lineBlocks(lines: AsyncIterable<JsonLine>): AsyncIterable<Iterable<JsonLine>> {
  const blocked = lines as Partial<BlockedJsonLines>;
  if (typeof blocked.blocks === 'function') return blocked.blocks();
  return (async function* () {
    for await (const l of lines) yield [l];
  })();
}

/** The whole source as one string (JSON documents, Markdown). */
export async function readAll(source: ByteSource, signal?: AbortSignal, onBytes?: (bytes: number) => void): Promise<string> {
  const parts: string[] = [];
  for await (const piece of decodeText(source, signal, onBytes)) parts.push(piece);
  return parts.join('');
}

/**
 * The longest first line the head grows to hold: a JSONL file whose first record is longer than
 * the usual head (a big tool result on line 1) is still read, and detected, line by line.
 */
export const LONG_HEAD_BYTES = 16 << 20;

/**
 * The decoded head and whether it is the whole file: `limit` bytes (~64 KB), or, when those hold
 * no line break, up to the end of the first line (at most LONG_HEAD_BYTES), so that detection sees
 * at least one whole line.
 */
export async function readHead(source: ByteSource, limit = SNIFF_BYTES): Promise<{ head: string; complete: boolean }> {
  const parts: string[] = [];
  let length = 0;
  let complete = true;
  let sawNewline = false;
  let stopped: { rest: number } | undefined;
  const decoder = new TextDecoder('utf-8');
  let first = true;
  const chunks = source.chunks()[Symbol.asyncIterator]();
  for (let r = await chunks.next(); !r.done; r = await chunks.next()) {
    const chunk = r.value;
    let data = chunk;
    if (first) {
      first = false;
      const skip = checkEncoding(source.name, chunk);
      if (skip) data = chunk.subarray(skip);
    }
    if (length + data.length > limit) {
      let take = Math.max(0, limit - length);
      if (!sawNewline && data.subarray(0, take).indexOf(10) < 0) {
        // No line break in the usual head yet: read on to the end of the first line.
        const nl = data.indexOf(10);
        take = nl >= 0 ? nl + 1 : data.length;
        // A first line past the line bound is refused here already, before it is decoded whole.
        const maxLine = source.maxLineBytes ?? MAX_LINE_BYTES;
        if ((nl >= 0 ? length + nl : length + data.length) > maxLine) throw await lineTooLong(source, 0, maxLine);
        take = Math.min(take, Math.max(0, LONG_HEAD_BYTES - length));
        if (nl < 0 && length + take < LONG_HEAD_BYTES) {
          parts.push(decoder.decode(data, { stream: true }));
          length += data.length;
          continue;
        }
      }
      parts.push(decoder.decode(data.subarray(0, take), { stream: true }));
      // Whole only when nothing follows: the rest of this chunk is empty and so is the source.
      stopped = { rest: data.length - take };
      break;
    }
    if (!sawNewline && data.indexOf(10) >= 0) sawNewline = true;
    parts.push(decoder.decode(data, { stream: true }));
    length += data.length;
  }
  if (stopped) {
    complete = stopped.rest === 0 && (await nextNonEmpty(chunks)) === undefined;
    await chunks.return?.();
  }
  parts.push(decoder.decode());
  return { head: parts.join(''), complete };
}

async function nextNonEmpty(chunks: AsyncIterator<Uint8Array>): Promise<Uint8Array | undefined> {
  for (let r = await chunks.next(); !r.done; r = await chunks.next()) if (r.value.length > 0) return r.value;
  return undefined;
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
    const what = message
      .replace(/^JSON\.parse: /, '')
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/ in JSON at position \d+.*$/, '');
    throw new ImportError(name, `valid JSON (${what})`, line, column);
  }
}

/**
 * How deep a transcript's JSON may nest where a value is kept as it is (a tool's parameter
 * schema) or walked by an importer. JSON.parse reads any depth, but JSON.stringify and every
 * recursive walk after it overflow the stack a few thousand levels down; real schemas nest a
 * dozen levels. Deeper input is refused with its file and line (docs/reliability.md).
 */
export const MAX_NESTING = 1000;

/** Whether a parsed value nests deeper than `limit` arrays/objects (iterative: any depth). */
export function nestsDeeperThan(value: unknown, limit = MAX_NESTING): boolean {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (typeof child === 'object' && child !== null) stack.push({ v: child, depth: depth + 1 });
  }
  return false;
}

/** A RangeError from recursion that ran out of stack. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/**
 * The error for input nested deeper than `limit`: the source is read again (this runs only once
 * an import has failed) to find the first bracket past the limit, outside strings, and name its
 * line and column.
 */
export async function tooDeepError(source: ByteSource, perLine: boolean, limit = MAX_NESTING): Promise<ImportError> {
  const expected = `JSON nested at most ${limit.toLocaleString('en-US')} levels deep (arrays and objects), found deeper`;
  let depth = 0;
  let line = 1;
  let column = 0;
  let inString = false;
  let escaped = false;
  try {
    for await (const piece of decodeText(source)) {
      for (let i = 0; i < piece.length; i++) {
        const c = piece.charCodeAt(i);
        column++;
        if (c === 10) {
          line++;
          column = 0;
          if (perLine) {
            // JSONL: each line starts at depth 0 (a broken line does not carry its depth on).
            depth = 0;
            inString = false;
            escaped = false;
          }
        } else if (inString) {
          if (escaped) escaped = false;
          else if (c === 92) escaped = true;
          else if (c === 34) inString = false;
        } else if (c === 34) inString = true;
        else if (c === 123 || c === 91) {
          if (++depth > limit) return new ImportError(source.name, expected, line, column);
        } else if (c === 125 || c === 93) depth = Math.max(0, depth - 1);
      }
    }
  } catch (e) {
    if (e instanceof ImportError) return e;
    throw e;
  }
  return new ImportError(source.name, expected);
}
