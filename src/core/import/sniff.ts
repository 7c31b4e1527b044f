/**
 * What detection sees: the decoded head of a file, its shape (one JSON value, JSON lines, or
 * text) and the values that could be parsed from it. Cheap and never throws on content
 * (encoding errors excepted: those are the file's, not a format's).
 */
import { readHead } from './read';
import type { ByteSource, Sniff } from './types';

const HEAD_LINES = 50;

/** Key patterns of JSONL formats whose single lines can be longer than the head. */
const LONG_LINE_JSONL = [/^\{"instance_id":/, /"sessionId":"[^"]*".*"uuid":/, /^\{"timestamp":"[^"]*","type":"(session_meta|response_item|event_msg|turn_context|compacted)"/];

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

export async function sniffSource(source: ByteSource): Promise<Sniff> {
  const { head, complete } = await readHead(source);
  return sniffText(source.name, head, complete);
}
