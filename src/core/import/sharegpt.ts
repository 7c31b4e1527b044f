/**
 * ShareGPT (docs/reference/formats.md, ShareGPT): `{conversations:[{from, value}], system?, tools?}` — a JSON array or
 * JSONL, one session per conversation. Tool calls are JSON text in `value`.
 */
import type { Message, Part, Session } from '../model';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { arr, isRecord, jsonText, rec, str, type Json } from './util';

const isConv = (v: unknown): v is Json =>
  isRecord(v) &&
  Array.isArray(v['conversations']) &&
  (v['conversations'] as unknown[]).every((c) => isRecord(c) && 'from' in c && 'value' in c);

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json')
    return (
      sniff.value !== undefined &&
      ((Array.isArray(sniff.value) && sniff.value.length > 0 && sniff.value.every(isConv)) || isConv(sniff.value))
    );
  if (sniff.shape === 'jsonl') return sniff.lines.length > 0 && sniff.lines.every(isConv);
  return false;
}

function toSession(id: string, c: Json, line?: number, raw?: string): Session {
  const messages: Message[] = [];
  let k = 0;
  for (const t of arr(c['conversations'])) {
    const r = rec(t);
    const from = str(r['from']);
    const value = str(r['value']) ?? '';
    const base = { id: `${id}#${k++}`, ...(line !== undefined ? { sourceLine: line } : {}), ...(raw !== undefined ? { raw } : {}) };
    if (from === 'function_call') {
      let parts: Part[] = [{ kind: 'text', text: value }];
      try {
        const call = JSON.parse(value) as unknown;
        const calls = Array.isArray(call) ? call : [call];
        parts = calls.map((x, i) => ({
          kind: 'tool_call',
          id: `call_${k}_${i}`,
          name: str(rec(x)['name']) ?? '',
          args: jsonText(rec(x)['arguments'] ?? {}),
        }));
      } catch {
        // Not JSON: keep it as text.
      }
      messages.push({ ...base, role: 'assistant', parts });
    } else if (from === 'observation') {
      const prev = [...messages].reverse().find((m) => m.parts.some((p) => p.kind === 'tool_call'));
      const callId = prev?.parts.find((p) => p.kind === 'tool_call');
      messages.push({
        ...base,
        role: 'tool',
        parts: [{ kind: 'tool_result', callId: callId?.kind === 'tool_call' ? callId.id : '', isError: false, text: value }],
      });
    } else if (from === 'system') messages.push({ ...base, role: 'system', parts: [{ kind: 'text', text: value }] });
    else
      messages.push({
        ...base,
        role: from === 'gpt' || from === 'assistant' ? 'assistant' : 'user',
        parts: [{ kind: 'text', text: value }],
      });
  }
  let tools: Session['tools'] = [];
  try {
    const parsed = typeof c['tools'] === 'string' ? (JSON.parse(c['tools']) as unknown) : c['tools'];
    tools = arr(parsed).map((t) => ({
      name: str(rec(t)['name']) ?? '',
      description: str(rec(t)['description']) ?? '',
      parameters: rec(t)['parameters'] ?? {},
    }));
  } catch {
    tools = [];
  }
  return {
    id,
    format: 'sharegpt',
    systemPrompt: str(c['system']) ?? null,
    tools,
    messages,
    sourceCompactions: [],
    subagents: [],
    warnings: [],
  };
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind === 'json') {
    const list = Array.isArray(input.value) ? input.value : [input.value];
    const out = list.filter(isConv).map((c, i) => toSession(`${ctx.name}#${i + 1}`, c));
    if (out.length === 0) throw new ImportError(ctx.name, 'ShareGPT conversations ({conversations:[{from, value}]})');
    return out;
  }
  if (input.kind !== 'jsonl') throw new ImportError(ctx.name, 'ShareGPT JSON or JSON lines');
  const out: Session[] = [];
  for await (const l of input.lines) {
    if (isConv(l.value)) out.push(toSession(`${ctx.name}:${l.line}`, l.value, l.line, ctx.keepRaw ? l.raw : undefined));
    else ctx.warn('skipped a line that is not a ShareGPT conversation', l.line);
  }
  if (out.length === 0) throw new ImportError(ctx.name, 'ShareGPT conversations, one per line; found none');
  return out;
}

export const importer: Importer = { id: 'sharegpt', label: 'ShareGPT conversations', detect, parse };
