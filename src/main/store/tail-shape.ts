/**
 * Whether a tailed file is one JSON document or JSON lines, as the import's detection reads it
 * (core/import/sniff.ts: `sniffSource`, then `confirmSniff` when the head cannot say). The tail
 * asks at every watch start and whole-file update, so an inconclusive head is settled the way
 * confirmSniff settles it but from the bytes alone, never by parsing a document whole:
 *
 * - a first line that ends in the head and is not JSON opens a document spread over lines;
 * - else the file is JSON lines when a second non-blank line follows a first that is a record
 *   (an object or array), and one document otherwise — the usual case being an OpenHands eval
 *   instance or a compact document written on one line longer than the head.
 *
 * Reading the head alone said "JSON lines" for both of those, and the document fast path never
 * applied to them.
 */
import { readRange } from '../io/read-range';
import { completeFirstLine, inconclusive, sniffSource } from '../../core/import/sniff';
import { fileSource } from '../io/file-source';

const CHUNK = 1 << 20;

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Bytes [from, to) of the file: from `bytes` when the caller holds them, else read. */
function reader(path: string, bytes: Buffer | undefined): (from: number, to: number) => Buffer {
  if (bytes) return (from, to) => bytes.subarray(from, to);
  return (from, to) => readRange(path, from, to);
}

/** The first offset in [from, end) where `find` (on one chunk) answers, or -1. */
function search(read: (from: number, to: number) => Buffer, from: number, end: number, find: (b: Buffer) => number): number {
  for (let at = from; at < end; at += CHUNK) {
    const b = read(at, Math.min(end, at + CHUNK));
    const i = find(b);
    if (i >= 0) return at + i;
    if (b.length < Math.min(CHUNK, end - at)) return -1;
  }
  return -1;
}

/** ASCII bytes JavaScript's trim() removes (a byte ≥ 0x80 is looked at as text). */
const BLANK = new Set([9, 10, 11, 12, 13, 32]);

/** Whether a non-blank line starts after offset `from` (as confirmSniff's trim() sees lines). */
function lineAfter(read: (from: number, to: number) => Buffer, from: number, end: number): boolean {
  for (let at = from; at < end;) {
    const q = search(read, at, end, (b) => b.findIndex((c) => !BLANK.has(c)));
    if (q < 0) return false;
    if (read(q, q + 1)[0]! < 0x80) return true;
    // Non-ASCII: the rest of its line, as text (Unicode spaces are blank to trim()).
    const nl = search(read, q, end, (b) => b.indexOf(10));
    const stop = nl < 0 ? end : nl;
    if (
      read(q, Math.min(stop, q + 256))
        .toString('utf8')
        .trim() !== '' ||
      (stop > q + 256 && read(q, stop).toString('utf8').trim() !== '')
    )
      return true;
    at = stop + 1;
  }
  return false;
}

/**
 * Whether bytes [0, end) of `path` are one JSON document as the import detects it (undefined for
 * an empty file). `bytes`: those bytes, when the caller has read them.
 */
export async function isJsonDocument(path: string, end: number, bytes?: Buffer): Promise<boolean | undefined> {
  if (end <= 0) return undefined;
  const sniff = await sniffSource(fileSource(path, end));
  if (!inconclusive(sniff)) return sniff.shape === 'json';
  const first = completeFirstLine(sniff.head);
  if (first !== undefined && tryParse(first) === undefined) return true;
  const read = reader(path, bytes);
  // The head starts (blank aside) with `{` or `[` (else it is not JSON): there the first line starts.
  const start = search(read, 0, end, (b) => b.findIndex((c) => c === 123 || c === 91));
  if (start < 0) return true;
  const nl = search(read, start, end, (b) => b.indexOf(10));
  if (nl < 0 || !lineAfter(read, nl + 1, end)) return true;
  const value = first !== undefined ? tryParse(first) : tryParse(read(start, nl).toString('utf8').trim());
  return typeof value !== 'object' || value === null;
}
