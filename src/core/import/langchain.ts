/**
 * LangChain message dicts (docs/reference/formats.md, LangChain): `messages_to_dict` output `{type, data}` and LangSmith
 * `{lc:1, type:"constructor", id:[…,"AIMessage"], kwargs}`; `usage_metadata` is per-call usage.
 */
import type { Message, Part, Session } from '../model';
import { chatParts } from './chat-messages';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { argsText, arr, contentText, isRecord, num, positionalId, rec, str, type Json } from './util';

const TYPES = new Set(['human', 'ai', 'system', 'tool', 'chat', 'function']);
const isDict = (v: unknown): v is Json =>
  isRecord(v) && typeof v['type'] === 'string' && TYPES.has(v['type']) && isRecord(v['data']) && 'content' in (v['data'] as Json);
const isLc = (v: unknown): v is Json => isRecord(v) && v['lc'] === 1 && v['type'] === 'constructor' && Array.isArray(v['id']);
const ok = (v: unknown): boolean => isDict(v) || isLc(v);

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json') return Array.isArray(sniff.value) && sniff.value.length > 0 && sniff.value.every(ok);
  if (sniff.shape === 'jsonl') return sniff.lines.length > 0 && sniff.lines.every(ok);
  return false;
}

function normalise(v: Json): { type: string; data: Json } {
  if (isDict(v)) return { type: v['type'] as string, data: v['data'] as Json };
  const cls = String(arr(v['id']).at(-1) ?? '');
  const type = cls.startsWith('AI')
    ? 'ai'
    : cls.startsWith('Human')
      ? 'human'
      : cls.startsWith('System')
        ? 'system'
        : cls.startsWith('Tool')
          ? 'tool'
          : 'chat';
  return { type, data: rec(v['kwargs']) };
}

function convert(list: readonly unknown[], name: string): { system: string | null; messages: Message[] } {
  const messages: Message[] = [];
  let system: string | null = null;
  list.forEach((raw, i) => {
    if (!ok(raw)) return;
    const { type, data } = normalise(raw as Json);
    const id = str(data['id']) ?? positionalId(`${name}#`, i);
    if (type === 'system' && messages.length === 0) {
      system = contentText(data['content']);
      return;
    }
    if (type === 'tool' || type === 'function') {
      messages.push({
        id,
        role: 'tool',
        parts: [
          {
            kind: 'tool_result',
            callId: str(data['tool_call_id']) ?? str(data['name']) ?? '',
            isError: data['status'] === 'error',
            text: contentText(data['content']),
          },
        ],
      });
      return;
    }
    const parts: Part[] = chatParts(data['content']);
    for (const c of arr(data['tool_calls']))
      parts.push({ kind: 'tool_call', id: str(rec(c)['id']) ?? '', name: str(rec(c)['name']) ?? '', args: argsText(rec(c)['args']) });
    const u = rec(data['usage_metadata']);
    const input = num(u['input_tokens']);
    const usage =
      input !== undefined
        ? {
            convention: 'openai' as const,
            input,
            cacheRead: num(rec(u['input_token_details'])['cache_read']) ?? 0,
            cacheWrite: num(rec(u['input_token_details'])['cache_creation']) ?? 0,
            output: num(u['output_tokens']) ?? 0,
            ...(num(rec(u['output_token_details'])['reasoning']) !== undefined
              ? { reasoning: num(rec(u['output_token_details'])['reasoning'])! }
              : {}),
          }
        : undefined;
    messages.push({ id, role: type === 'ai' ? 'assistant' : type === 'system' ? 'system' : 'user', parts, ...(usage ? { usage } : {}) });
  });
  return { system, messages };
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  let list: unknown[];
  if (input.kind === 'json' && Array.isArray(input.value)) list = input.value;
  else if (input.kind === 'jsonl') {
    list = [];
    for await (const l of input.lines) list.push(l.value);
  } else throw new ImportError(ctx.name, 'a list of LangChain message dicts ({type, data}) or serialized messages ({lc:1, …})');
  const c = convert(list, ctx.name);
  if (c.messages.length === 0) throw new ImportError(ctx.name, 'LangChain messages; found none');
  return [
    {
      id: ctx.name,
      format: 'langchain',
      systemPrompt: c.system,
      tools: [],
      messages: c.messages,
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    },
  ];
}

export const importer: Importer = { id: 'langchain', label: 'LangChain messages', detect, parse };
