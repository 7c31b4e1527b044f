/**
 * OpenAI Chat Completions messages → the model (docs/reference/formats.md, OpenAI Chat Completions). Shared by the `openai-chat`
 * importer and the generic `jsonl` one, which reads the same `{role, content}` shape.
 */
import type { Message, Part, ToolDef } from '../model';
import { argsText, arr, contentText, isRecord, openaiUsage, positionalId, rec, str, type Json } from './util';

export function chatParts(content: unknown): Part[] {
  if (typeof content === 'string') return content ? [{ kind: 'text', text: content }] : [];
  const parts: Part[] = [];
  for (const b of arr(content)) {
    if (typeof b === 'string') {
      parts.push({ kind: 'text', text: b });
      continue;
    }
    if (!isRecord(b)) continue;
    const type = str(b['type']);
    if (type === 'text' || type === 'input_text' || type === 'output_text') parts.push({ kind: 'text', text: str(b['text']) ?? '' });
    else if (type === 'image_url') {
      const url = str(rec(b['image_url'])['url']) ?? str(b['image_url']) ?? '';
      const m = /^data:([^;,]+)/.exec(url);
      parts.push({
        kind: 'media',
        mediaType: m?.[1] ?? 'image',
        ...(m ? { bytes: Math.floor(((url.length - url.indexOf(',') - 1) * 3) / 4) } : { source: url }),
      });
    } else if (type === 'input_audio') parts.push({ kind: 'media', mediaType: `audio/${str(rec(b['input_audio'])['format']) ?? 'wav'}` });
    else if (type === 'file')
      parts.push({
        kind: 'media',
        mediaType: 'application/octet-stream',
        ...(str(rec(b['file'])['file_id']) ? { source: str(rec(b['file'])['file_id'])! } : {}),
      });
    else if (typeof b['text'] === 'string') parts.push({ kind: 'text', text: b['text'] });
  }
  // Trimmed to size: pushed from empty, the array reserves ~17 slots it keeps for the import.
  return parts.slice();
}

export interface ChatConversion {
  systemPrompt: string | null;
  messages: Message[];
}

/**
 * Where a list converted in pieces (a long JSONL file, a block of lines at a time) continues:
 * the index of its first item in the whole list, and whether no message came before it (leading
 * system messages still form the system prompt).
 */
export interface ChatContinuation {
  readonly index: number;
  readonly systemOpen: boolean;
}

/**
 * Converts a message list. Leading system/developer messages form the system prompt region;
 * later ones stay in the history as `system` messages (they are sent like any other).
 */
export function chatMessages(
  list: readonly unknown[],
  idPrefix: string,
  lines?: readonly number[],
  raws?: readonly string[],
  from?: ChatContinuation,
): ChatConversion {
  const system: string[] = [];
  const messages: Message[] = [];
  const first = from?.index ?? 0;
  const systemOpen = from?.systemOpen ?? true;
  list.forEach((item, i) => {
    if (!isRecord(item)) return;
    const role = str(item['role']);
    const line = lines?.[i];
    const raw = raws?.[i];
    const extra = { ...(line !== undefined ? { sourceLine: line } : {}), ...(raw !== undefined ? { raw } : {}) };
    const id = str(item['id']) ?? positionalId(idPrefix, first + i);
    if ((role === 'system' || role === 'developer') && messages.length === 0 && systemOpen) {
      system.push(contentText(item['content']));
      return;
    }
    if (role === 'tool' || role === 'function') {
      const callId = str(item['tool_call_id']) ?? str(item['name']) ?? '';
      messages.push({
        id,
        role: 'tool',
        parts: [
          {
            kind: 'tool_result',
            callId,
            isError: false,
            text: contentText(item['content']),
            ...(str(item['name']) ? { name: str(item['name'])! } : {}),
          },
        ],
        ...extra,
      });
      return;
    }
    // The content's own array when nothing joins it: an array grown by push from empty reserves
    // ~17 slots (~150 bytes), which a million one-part messages would hold to the end.
    let parts = chatParts(item['content']);
    const reasoning = str(item['reasoning_content']) ?? str(item['reasoning']);
    if (reasoning) parts = [{ kind: 'reasoning', text: reasoning }, ...parts];
    for (const c of arr(item['tool_calls'])) {
      const call = rec(c);
      const fn = rec(call['function']);
      parts.push({ kind: 'tool_call', id: str(call['id']) ?? '', name: str(fn['name']) ?? '', args: argsText(fn['arguments']) });
    }
    const legacy = rec(item['function_call']);
    if (str(legacy['name']))
      parts.push({ kind: 'tool_call', id: str(legacy['name'])!, name: str(legacy['name'])!, args: argsText(legacy['arguments']) });
    const r = role === 'assistant' ? 'assistant' : role === 'system' || role === 'developer' ? 'system' : 'user';
    const usage = openaiUsage(item['usage']);
    const model = str(item['model']);
    // The common line (no usage, model or kept record) as a plain literal: an object built by
    // spreads holds ~16 bytes more, which a million tiny lines feel (docs/reliability.md).
    if (!usage && !model && raw === undefined && line !== undefined) messages.push({ id, role: r, parts, sourceLine: line });
    else messages.push({ id, role: r, parts, ...(usage ? { usage } : {}), ...(model ? { model } : {}), ...extra });
  });
  return { systemPrompt: system.length > 0 ? system.join('\n\n') : null, messages };
}

/** `tools: [{type:"function", function:{name, description, parameters}}]` (or the bare function objects). */
export function chatTools(tools: unknown): ToolDef[] {
  return arr(tools).flatMap((t) => {
    const r = rec(t);
    const fn = isRecord(r['function']) ? r['function'] : r;
    const name = str(fn['name']);
    return name ? [{ name, description: str(fn['description']) ?? '', parameters: fn['parameters'] ?? {} }] : [];
  });
}

export function isChatMessage(v: unknown): v is Json {
  return isRecord(v) && typeof v['role'] === 'string' && ('content' in v || 'tool_calls' in v);
}
