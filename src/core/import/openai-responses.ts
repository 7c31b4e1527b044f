/**
 * OpenAI Responses API logs (docs/reference/formats.md, OpenAI Responses): a request `{model, instructions, input}` and/or a
 * response `{object:"response", output, usage}`, an array of those, or JSONL of them or of bare
 * items. `instructions` is the system prompt; the response's usage goes on its call.
 */
import type { Session } from '../model';
import { ResponsesAccumulator, isResponsesItem } from './responses-items';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { arr, isRecord, openaiUsage, str, type Json } from './util';

const isResponse = (v: unknown): v is Json => isRecord(v) && v['object'] === 'response' && Array.isArray(v['output']);
const isRequest = (v: unknown): v is Json =>
  isRecord(v) &&
  (Array.isArray(v['input'])
    ? (v['input'] as unknown[]).some(isResponsesItem) ||
      (v['input'] as unknown[]).some((x) => isRecord(x) && 'role' in x && !('tool_calls' in x))
    : false) &&
  !('messages' in v);

function detect(sniff: Sniff): boolean {
  const ok = (v: unknown): boolean => isResponse(v) || isRequest(v);
  if (sniff.shape === 'json') {
    const v = sniff.value;
    return (
      ok(v) ||
      (Array.isArray(v) &&
        v.length > 0 &&
        (v.every(ok) || (v.every(isResponsesItem) && v.some((x) => isRecord(x) && x['type'] !== 'message'))))
    );
  }
  if (sniff.shape === 'jsonl')
    return (
      sniff.lines.length > 0 &&
      (sniff.lines.every(ok) || (sniff.lines.every(isResponsesItem) && sniff.lines.some((x) => isRecord(x) && x['type'] !== 'message')))
    );
  return false;
}

function addExchange(
  acc: ResponsesAccumulator,
  v: Json,
  state: { system: string | null; model?: string },
  line?: number,
  raw?: string,
): void {
  if (typeof v['instructions'] === 'string') state.system ??= v['instructions'];
  if (typeof v['model'] === 'string') state.model = v['model'];
  if (typeof v['input'] === 'string') acc.add({ type: 'message', role: 'user', content: v['input'] }, line, raw);
  for (const item of arr(v['input'])) if (isRecord(item)) acc.add(item.type ? item : { ...item, type: 'message' }, line, raw);
  if (isResponse(v) || isRecord(v['response'])) {
    const resp = isResponse(v) ? v : (v['response'] as Json);
    for (const item of arr(resp['output'])) if (isRecord(item)) acc.add(item, line, raw);
    const usage = openaiUsage(resp['usage']);
    const at = acc.lastAssistantIndex();
    if (usage && at >= 0) acc.messages[at] = { ...acc.messages[at]!, usage, ...(str(resp['model']) ? { model: str(resp['model'])! } : {}) };
  }
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind === 'text') throw new ImportError(ctx.name, 'OpenAI Responses JSON or JSON lines');
  const acc = new ResponsesAccumulator(`${ctx.name}#`, ctx.keepRaw);
  const state: { system: string | null; model?: string } = { system: null };
  if (input.kind === 'json') {
    const v = input.value;
    const list = Array.isArray(v) ? v : [v];
    for (const x of list) {
      if (!isRecord(x)) continue;
      if (isResponse(x) || isRequest(x)) addExchange(acc, x, state);
      else if (isResponsesItem(x)) acc.add(x);
    }
  } else {
    for await (const l of input.lines) {
      if (!isRecord(l.value)) continue;
      if (isResponse(l.value) || isRequest(l.value)) addExchange(acc, l.value, state, l.line, l.raw);
      else if (isResponsesItem(l.value)) acc.add(l.value, l.line, l.raw);
      else ctx.warn('skipped a line that is not a Responses request, response or item', l.line);
    }
  }
  const messages = acc.finish();
  if (messages.length === 0) throw new ImportError(ctx.name, 'Responses API items (message, function_call, …); found none');
  return [
    {
      id: ctx.name,
      format: 'openai-responses',
      ...(state.model ? { model: state.model } : {}),
      provider: 'openai',
      systemPrompt: state.system,
      tools: [],
      messages,
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    },
  ];
}

export const importer: Importer = { id: 'openai-responses', label: 'OpenAI Responses API', detect, parse };
