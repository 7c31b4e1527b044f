/** Small, total helpers for reading untyped JSON in importers: they never throw. */
import type { Part, ReportedUsage } from '../model';

export type Json = Record<string, unknown>;

/**
 * A message id made of the file name and a position (`file.jsonl#12`), for records without an id
 * of their own. Built flat with join: a template literal makes a cons string (prefix + number,
 * 56 bytes) that the store's JSON.stringify later flattens into a third, old-generation copy
 * (~48 MB over a million messages, docs/reliability.md).
 */
export function positionalId(prefix: string, position: number | string): string {
  return [prefix, position].join('');
}

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
export function rec(v: unknown): Json {
  return isRecord(v) ? v : {};
}

/** The value of the digit at `i`; NaN (which fails every range check) when it is not a digit. */
function digit(s: string, i: number): number {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : NaN;
}

/** The day isoUtc saw last (yyyymmdd) and its start in epoch ms. */
let lastDate = -1;
let lastDayStart = 0;

/**
 * `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.sssZ` (what agents log, a line at a time),
 * read without Date.parse's general parser; the same result as Date.parse. Anything else, or a
 * date it would have to check against the calendar, is undefined and goes to Date.parse.
 */
function isoUtc(s: string): number | undefined {
  const n = s.length;
  if (n !== 20 && n !== 24) return undefined;
  if (
    s.charCodeAt(4) !== 45 ||
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 ||
    s.charCodeAt(13) !== 58 ||
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(n - 1) !== 90
  )
    return undefined;
  let ms = 0;
  if (n === 24) {
    if (s.charCodeAt(19) !== 46) return undefined;
    ms = digit(s, 20) * 100 + digit(s, 21) * 10 + digit(s, 22);
  }
  const year = digit(s, 0) * 1000 + digit(s, 1) * 100 + digit(s, 2) * 10 + digit(s, 3);
  const month = digit(s, 5) * 10 + digit(s, 6);
  const day = digit(s, 8) * 10 + digit(s, 9);
  const hour = digit(s, 11) * 10 + digit(s, 12);
  const minute = digit(s, 14) * 10 + digit(s, 15);
  const second = digit(s, 17) * 10 + digit(s, 18);
  // Written so that NaN fails: a non-digit anywhere sends the string to Date.parse.
  if (!(
    ms >= 0 &&
    year >= 1000 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= 28 &&
    hour >= 0 &&
    hour <= 23 &&
    minute >= 0 &&
    minute <= 59 &&
    second >= 0 &&
    second <= 59
  ))
    return undefined;
  // Lines in a row share their day: its start is computed once (Date.UTC is the slow part).
  const date = (year * 100 + month) * 100 + day;
  if (date !== lastDate) {
    lastDate = date;
    lastDayStart = Date.UTC(year, month - 1, day);
  }
  return lastDayStart + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
}

/** Milliseconds since the epoch from an ISO string or a number (s or ms); undefined if absent. */
export function time(v: unknown): number | undefined {
  if (typeof v === 'string') {
    const fast = isoUtc(v);
    if (fast !== undefined) return fast;
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  if (typeof v === 'number' && Number.isFinite(v)) return v < 1e12 ? v * 1000 : v;
  return undefined;
}

/**
 * A parsed JSON value as JSON text, at any depth. JSON.parse reads values nested far deeper than
 * JSON.stringify can write back (it recurses, and a few thousand levels exhaust the stack), so a
 * value it cannot write is written here with a stack of its own — the same text, key order kept.
 */
export function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return deepJsonText(v);
  }
}

/** What is left to write of one array or object: its entries and the next one to write. */
interface Open {
  readonly keys: readonly string[] | undefined;
  readonly values: readonly unknown[];
  next: number;
}

function deepJsonText(root: unknown): string {
  const out: string[] = [];
  const stack: Open[] = [];
  // Writes a scalar, or opens a container (pushed on the stack).
  const write = (v: unknown): void => {
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ keys: undefined, values: v, next: 0 });
    } else if (typeof v === 'object' && v !== null) {
      const keys = Object.keys(v).filter((k) => {
        const x = (v as Json)[k];
        return x !== undefined && typeof x !== 'function';
      });
      out.push('{');
      stack.push({ keys, values: keys.map((k) => (v as Json)[k]), next: 0 });
    } else {
      // Scalars never recurse; undefined in an array is written as null, as JSON.stringify does.
      out.push(JSON.stringify(v) ?? 'null');
    }
  };
  write(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next >= top.values.length) {
      out.push(top.keys ? '}' : ']');
      stack.pop();
      continue;
    }
    const i = top.next++;
    if (i > 0) out.push(',');
    if (top.keys) out.push(JSON.stringify(top.keys[i]), ':');
    write(top.values[i]);
  }
  return out.join('');
}

/** Tool arguments as JSON text, whatever the source gave (object or string). */
export function argsText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '{}';
  return jsonText(v);
}

/** Tool-result content as text: strings as they are, block lists flattened, objects as JSON. */
export function contentText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    return v
      .map((b) => {
        if (typeof b === 'string') return b;
        if (isRecord(b)) {
          if (typeof b['text'] === 'string') return b['text'];
          if (b['type'] === 'image' || b['type'] === 'image_url' || b['type'] === 'input_image') return '[image]';
          return jsonText(b);
        }
        try {
          return String(b);
        } catch (e) {
          // An array nested too deep for String() to join: written as JSON instead.
          if (e instanceof RangeError) return jsonText(b);
          throw e;
        }
      })
      .join('\n');
  }
  if (v === undefined || v === null) return '';
  return jsonText(v);
}

/**
 * Anthropic usage: input excludes cache reads and writes. `callKey`, when given, goes last (the
 * call's identity, core/import/claude-code.ts). Built as one object literal per shape, with the
 * properties in this order (the order its stored JSON has): a conditional spread, or a spread of
 * this object to add the key, went through V8's generic object-copy path, a tenth of the Claude
 * Code importer's time on a big session.
 */
export function anthropicUsage(u: unknown, callKey?: string): ReportedUsage | undefined {
  if (!isRecord(u)) return undefined;
  const input = num(u['input_tokens']);
  const output = num(u['output_tokens']);
  if (input === undefined && output === undefined) return undefined;
  // Claude Code 2.x splits the writes by cache lifetime; the 1-hour ones cost 2× input, not 1.25×.
  const write1h = num(rec(u['cache_creation'])['ephemeral_1h_input_tokens']);
  const cacheRead = num(u['cache_read_input_tokens']) ?? 0;
  const cacheWrite = num(u['cache_creation_input_tokens']) ?? 0;
  const i = input ?? 0;
  const o = output ?? 0;
  if (write1h !== undefined && write1h > 0)
    return callKey === undefined
      ? { convention: 'anthropic', input: i, cacheRead, cacheWrite, output: o, cacheWrite1h: write1h }
      : { convention: 'anthropic', input: i, cacheRead, cacheWrite, output: o, cacheWrite1h: write1h, callKey };
  return callKey === undefined
    ? { convention: 'anthropic', input: i, cacheRead, cacheWrite, output: o }
    : { convention: 'anthropic', input: i, cacheRead, cacheWrite, output: o, callKey };
}

/** OpenAI usage (chat: prompt_tokens, responses/codex: input_tokens): input includes cached. */
export function openaiUsage(u: unknown): ReportedUsage | undefined {
  if (!isRecord(u)) return undefined;
  const input = num(u['prompt_tokens']) ?? num(u['input_tokens']);
  const output = num(u['completion_tokens']) ?? num(u['output_tokens']);
  if (input === undefined && output === undefined) return undefined;
  const details = rec(u['prompt_tokens_details'] ?? u['input_tokens_details']);
  const outDetails = rec(u['completion_tokens_details'] ?? u['output_tokens_details']);
  const reasoning = num(outDetails['reasoning_tokens']) ?? num(u['reasoning_output_tokens']);
  return {
    convention: 'openai',
    input: input ?? 0,
    cacheRead: num(details['cached_tokens']) ?? num(u['cached_input_tokens']) ?? 0,
    cacheWrite: 0,
    output: output ?? 0,
    ...(reasoning !== undefined ? { reasoning } : {}),
  };
}

/** One Anthropic content block → a part (undefined for a block that carries none). */
function anthropicPart(b: unknown): Part | undefined {
  if (!isRecord(b)) return undefined;
  switch (b['type']) {
    case 'text':
      return { kind: 'text', text: str(b['text']) ?? '' };
    case 'thinking':
      return { kind: 'reasoning', text: str(b['thinking']) ?? '' };
    case 'redacted_thinking':
      return { kind: 'reasoning', text: str(b['data']) ?? '', redacted: true };
    case 'image':
    case 'document': {
      const src = rec(b['source']);
      const data = str(src['data']);
      return {
        kind: 'media',
        mediaType: str(src['media_type']) ?? (b['type'] === 'image' ? 'image' : 'application/pdf'),
        ...(str(src['url']) ? { source: str(src['url']) } : {}),
        ...(data ? { bytes: Math.floor((data.length * 3) / 4) } : {}),
      };
    }
    case 'tool_use':
    case 'server_tool_use':
      return { kind: 'tool_call', id: str(b['id']) ?? '', name: str(b['name']) ?? '', args: argsText(b['input']) };
    case 'tool_result':
      return { kind: 'tool_result', callId: str(b['tool_use_id']) ?? '', isError: b['is_error'] === true, text: contentText(b['content']) };
    default:
      return typeof b['text'] === 'string' ? { kind: 'text', text: b['text'] } : undefined;
  }
}

/**
 * Anthropic content blocks → parts (text, thinking, images, tool_use, tool_result). The array is
 * exactly as long as it needs to be: an importer keeps one per message, and an array grown by
 * push holds room for 17.
 */
export function anthropicParts(content: unknown): Part[] {
  if (typeof content === 'string') return content ? [{ kind: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  if (content.length === 1) {
    const part = anthropicPart(content[0]);
    return part ? [part] : [];
  }
  if (content.length === 2) {
    const a = anthropicPart(content[0]);
    const b = anthropicPart(content[1]);
    return a ? (b ? [a, b] : [a]) : b ? [b] : [];
  }
  const parts: Part[] = [];
  for (const b of content) {
    const part = anthropicPart(b);
    if (part) parts.push(part);
  }
  return parts.length > 0 ? parts.slice() : parts;
}
