/**
 * What detection sees: the decoded head of a file, its shape (one JSON value, JSON lines, or
 * text) and the values that could be parsed from it. Cheap and never throws on content
 * (encoding errors excepted: those are the file's, not a format's).
 *
 * When the head cannot settle it (a JSON document longer than the head, or a first line longer
 * than the head), `confirmSniff` reads on until the structure is parsed, so that detection never
 * depends on key order or on where a key falls in the file (docs/architecture.md, "What the first build
 * taught"): importers decide on parsed values, never on where a key happens to sit in the text.
 */
import { decodeLineBlocks, parseJsonOrThrow, readAll, readHead } from './read';
import type { ByteSource, Sniff } from './types';

const HEAD_LINES = 50;

/** Key patterns of JSONL formats whose single lines can be longer than the head. */
const LONG_LINE_JSONL = [
  /^\{"instance_id":/,
  /"sessionId":"[^"]*".*"uuid":/,
  /^\{"timestamp":"[^"]*","type":"(session_meta|response_item|event_msg|turn_context|compacted)"/,
];

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function sniffText(name: string, head: string, complete: boolean): Sniff {
  const trimmed = head.trimStart();
  const base = { name, head, complete };
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return { ...base, shape: 'text', lines: [] };
  if (complete) {
    const value = tryParse(trimmed);
    if (value !== undefined) {
      // A complete file that is one value: JSON, unless it is one JSONL record among blank lines.
      return { ...base, shape: 'json', value, lines: typeof value === 'object' && value !== null && !Array.isArray(value) ? [value] : [] };
    }
  }
  const rawLines = head.split('\n');
  // The last piece of an incomplete head may be cut mid-record.
  const candidates = complete ? rawLines : rawLines.slice(0, -1);
  const lines: unknown[] = [];
  let nonBlank = 0;
  for (const raw of candidates) {
    const t = raw.trim();
    if (!t) continue;
    nonBlank++;
    const v = tryParse(t);
    if (v !== undefined && typeof v === 'object' && v !== null) lines.push(v);
    if (lines.length >= HEAD_LINES || nonBlank >= HEAD_LINES * 2) break;
  }
  // A first line that is a lone brace or bracket opens a pretty-printed JSON document (perhaps a
  // broken one), even when a record inside it happens to sit on one line.
  const firstLine = rawLines.find((l) => l.trim() !== '')?.trim();
  const prettyDocument = firstLine === '{' || firstLine === '[';
  if (lines.length > 0 && trimmed.startsWith('{') && !prettyDocument) return { ...base, shape: 'jsonl', lines };
  if (trimmed.startsWith('{') && candidates.filter((l) => l.trim()).length === 0) {
    // One line longer than the head: JSONL when its keys say so, else one big JSON document.
    if (LONG_LINE_JSONL.some((re) => re.test(trimmed))) return { ...base, shape: 'jsonl', lines: [] };
  }
  return { ...base, shape: 'json', lines: [] };
}

/** The head alone cannot say what the file holds: a JSON document cut short, or JSONL whose first line is longer than the head. */
export function inconclusive(sniff: Sniff): boolean {
  // One parsed line of a longer file (the head grew to the end of a long first line) is too little
  // to tell JSONL formats apart: read on to the next records.
  return (
    (sniff.shape === 'json' && sniff.value === undefined && !sniff.complete) ||
    (sniff.shape === 'jsonl' && (sniff.lines.length === 0 || (sniff.lines.length < 2 && !sniff.complete)))
  );
}

const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null;

/** The head's first non-blank line when it ends inside the head, else undefined (it runs past it). */
export function completeFirstLine(head: string): string | undefined {
  let start = 0;
  for (let nl = head.indexOf('\n'); nl >= 0; nl = head.indexOf('\n', start)) {
    const line = head.slice(start, nl).trim();
    if (line) return line;
    start = nl + 1;
  }
  return undefined;
}

/**
 * Settles an inconclusive head on the parsed structure: a document is read and parsed whole (the
 * import needs it parsed anyway, so it is read once); a first line longer than the head is read
 * to its end, and the file is JSON lines when a second record follows it, else one document.
 * A conclusive sniff is returned as it is. Throws ImportError (line, column) on broken JSON.
 */
export async function confirmSniff(
  source: ByteSource,
  sniff: Sniff,
  signal?: AbortSignal,
  onBytes?: (bytes: number) => void,
): Promise<Sniff> {
  if (!inconclusive(sniff)) return sniff;
  const first = completeFirstLine(sniff.head);
  if (first !== undefined && tryParse(first) === undefined) {
    // A document spread over lines (pretty-printed, or broken): parse it whole.
    const value = parseJsonOrThrow(source.name, await readAll(source, signal, onBytes));
    return { ...sniff, shape: 'json', value, lines: [] };
  }
  const blocks: string[] = [];
  const lines: unknown[] = [];
  let records = 0;
  let document = false;
  for await (const block of decodeLineBlocks(source, signal, onBytes)) {
    blocks.push(block);
    if (document) continue;
    for (const raw of block.split('\n')) {
      const t = raw.trim();
      if (!t) continue;
      const v = tryParse(t);
      if (records === 0 && !isObject(v)) {
        document = true;
        break;
      }
      records++;
      if (isObject(v)) lines.push(v);
      if (lines.length >= HEAD_LINES) break;
    }
    // A second record after the first: line-delimited. The import streams it again from the start.
    if (records >= 2) return { ...sniff, shape: 'jsonl', lines };
  }
  // One record and nothing after it, or a document: the whole file is one JSON value.
  const value = records === 1 && lines.length === 1 ? lines[0] : parseJsonOrThrow(source.name, blocks.join(''));
  return { ...sniff, shape: 'json', value, lines: isObject(value) && !Array.isArray(value) ? [value] : [] };
}

export async function sniffSource(source: ByteSource): Promise<Sniff> {
  const { head, complete } = await readHead(source);
  return sniffText(source.name, head, complete);
}
