/** Small, total helpers for reading untyped JSON in importers: they never throw. */
import type { Part, ReportedUsage } from '../model';

export type Json = Record<string, unknown>;

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

/** Milliseconds since the epoch from an ISO string or a number (s or ms); undefined if absent. */
export function time(v: unknown): number | undefined {
  if (typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  if (typeof v === 'number' && Number.isFinite(v)) return v < 1e12 ? v * 1000 : v;
  return undefined;
}

/** Tool arguments as JSON text, whatever the source gave (object or string). */
export function argsText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '{}';
  return JSON.stringify(v);
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
          return JSON.stringify(b);
        }
        return String(b);
      })
      .join('\n');
  }
  if (v === undefined || v === null) return '';
  return JSON.stringify(v);
}

/** Anthropic usage: input excludes cache reads and writes. */
export function anthropicUsage(u: unknown): ReportedUsage | undefined {
  if (!isRecord(u)) return undefined;
  const input = num(u['input_tokens']);
  const output = num(u['output_tokens']);
  if (input === undefined && output === undefined) return undefined;
  return {
    convention: 'anthropic',
    input: input ?? 0,
    cacheRead: num(u['cache_read_input_tokens']) ?? 0,
    cacheWrite: num(u['cache_creation_input_tokens']) ?? 0,
    output: output ?? 0,
  };
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

/** Anthropic content blocks → parts (text, thinking, images, tool_use, tool_result). */
export function anthropicParts(content: unknown): Part[] {
  if (typeof content === 'string') return content ? [{ kind: 'text', text: content }] : [];
  const parts: Part[] = [];
  for (const b of arr(content)) {
    if (!isRecord(b)) continue;
    switch (b['type']) {
      case 'text':
        parts.push({ kind: 'text', text: str(b['text']) ?? '' });
        break;
      case 'thinking':
        parts.push({ kind: 'reasoning', text: str(b['thinking']) ?? '' });
        break;
      case 'redacted_thinking':
        parts.push({ kind: 'reasoning', text: str(b['data']) ?? '', redacted: true });
        break;
      case 'image':
      case 'document': {
        const src = rec(b['source']);
        const data = str(src['data']);
        parts.push({
          kind: 'media',
          mediaType: str(src['media_type']) ?? (b['type'] === 'image' ? 'image' : 'application/pdf'),
          ...(str(src['url']) ? { source: str(src['url']) } : {}),
          ...(data ? { bytes: Math.floor((data.length * 3) / 4) } : {}),
        });
        break;
      }
      case 'tool_use':
      case 'server_tool_use':
        parts.push({ kind: 'tool_call', id: str(b['id']) ?? '', name: str(b['name']) ?? '', args: argsText(b['input']) });
        break;
      case 'tool_result':
        parts.push({ kind: 'tool_result', callId: str(b['tool_use_id']) ?? '', isError: b['is_error'] === true, text: contentText(b['content']) });
        break;
      default:
        if (typeof b['text'] === 'string') parts.push({ kind: 'text', text: b['text'] });
    }
  }
  return parts;
}
