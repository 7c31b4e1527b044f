/**
 * OpenAI Chat Completions (docs/reference/formats.md, OpenAI Chat Completions): a request body `{model, messages, tools}`, a bare
 * message list, a response `{object:"chat.completion", choices, usage}`, an array of request
 * bodies (one session each), or JSONL with one request body per line (one session each) or
 * one message per line (one session).
 */
import type { Message, Session } from '../model';
import { chatMessages, chatTools, isChatMessage } from './chat-messages';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { arr, isRecord, openaiUsage, rec, str, time, type Json } from './util';

function isResponse(v: unknown): v is Json {
  return isRecord(v) && v['object'] === 'chat.completion' && Array.isArray(v['choices']);
}
function isRequest(v: unknown): v is Json {
  return isRecord(v) && Array.isArray(v['messages']) && (v['messages'] as unknown[]).some(isChatMessage);
}
function hasChatSignals(v: unknown): boolean {
  return isRecord(v) && typeof v['role'] === 'string' && ('tool_calls' in v || 'tool_call_id' in v);
}

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json') {
    const v = sniff.value;
    if (isResponse(v) || isRequest(v)) return true;
    if (Array.isArray(v)) return v.length > 0 && (v.every(isChatMessage) || v.every((x) => isRequest(x) || isResponse(x)));
    return false;
  }
  if (sniff.shape === 'jsonl') return sniff.lines.length > 0 && sniff.lines.some((l) => hasChatSignals(l) || isRequest(l) || isResponse(l));
  return false;
}

function responseMessage(resp: Json, index: number): Message | undefined {
  const choice = rec(arr(resp['choices'])[0]);
  const msg = rec(choice['message']);
  const conv = chatMessages([{ ...msg, role: 'assistant' }], `response-${index}-`);
  const m = conv.messages[0];
  if (!m) return undefined;
  const usage = openaiUsage(resp['usage']);
  const model = str(resp['model']);
  const timestamp = time(resp['created']);
  return {
    ...m,
    id: str(resp['id']) ?? m.id,
    ...(usage ? { usage } : {}),
    ...(model ? { model } : {}),
    ...(timestamp !== undefined ? { timestamp } : {}),
  };
}

function sessionFrom(id: string, body: Json, ctx: ParseContext, line?: number, raw?: string): Session {
  const conv = chatMessages(
    arr(body['messages']),
    `${id}#`,
    line !== undefined ? arr(body['messages']).map(() => line) : undefined,
    ctx.keepRaw && raw !== undefined ? arr(body['messages']).map(() => raw) : undefined,
  );
  const messages = conv.messages;
  // A logged request often carries the response next to it.
  const resp = isResponse(body['response']) ? responseMessage(body['response'], 0) : undefined;
  if (resp) messages.push(resp);
  const model = str(body['model']) ?? messages.find((m) => m.model)?.model;
  return {
    id,
    format: 'openai-chat',
    ...(model ? { model } : {}),
    provider: 'openai',
    systemPrompt: conv.systemPrompt,
    tools: chatTools(body['tools']),
    messages,
    sourceCompactions: [],
    subagents: [],
    warnings: [],
  };
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind === 'text') throw new ImportError(ctx.name, 'OpenAI Chat Completions JSON or JSON lines');
  if (input.kind === 'json') {
    const v = input.value;
    if (isRequest(v)) return [sessionFrom(ctx.name, v, ctx)];
    if (isResponse(v)) {
      const m = responseMessage(v, 0);
      return [
        {
          id: str(v['id']) ?? ctx.name,
          format: 'openai-chat',
          ...(str(v['model']) ? { model: str(v['model'])! } : {}),
          provider: 'openai',
          systemPrompt: null,
          tools: [],
          messages: m ? [m] : [],
          sourceCompactions: [],
          subagents: [],
          warnings: [],
        },
      ];
    }
    if (Array.isArray(v) && v.every(isChatMessage)) return [sessionFrom(ctx.name, { messages: v }, ctx)];
    if (Array.isArray(v)) return v.filter(isRequest).map((b, i) => sessionFrom(`${ctx.name}#${i + 1}`, b, ctx));
    throw new ImportError(ctx.name, 'a Chat Completions request ({messages:[…]}), response (chat.completion) or message list');
  }
  // JSONL: request bodies (a session each) or messages (one session).
  const sessions: Session[] = [];
  const list: unknown[] = [];
  const lines: number[] = [];
  const raws: string[] = [];
  for await (const l of input.lines) {
    if (isRequest(l.value)) sessions.push(sessionFrom(`${ctx.name}:${l.line}`, l.value, ctx, l.line, l.raw));
    else if (isChatMessage(l.value)) {
      list.push(l.value);
      lines.push(l.line);
      raws.push(l.raw);
    } else if (isResponse(l.value)) {
      const m = responseMessage(l.value, l.line);
      if (m) {
        list.push({ role: 'assistant' });
        lines.push(l.line);
        raws.push(l.raw);
        sessions.push({
          id: `${ctx.name}:${l.line}`,
          format: 'openai-chat',
          provider: 'openai',
          systemPrompt: null,
          tools: [],
          messages: [m],
          sourceCompactions: [],
          subagents: [],
          warnings: [],
        });
      }
    } else ctx.warn('skipped a line that is neither a chat message nor a request', l.line);
  }
  if (list.length > 0 && sessions.length === 0) {
    const conv = chatMessages(list, `${ctx.name}#`, lines, ctx.keepRaw ? raws : undefined);
    sessions.push({
      id: ctx.name,
      format: 'openai-chat',
      provider: 'openai',
      systemPrompt: conv.systemPrompt,
      tools: [],
      messages: conv.messages,
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    });
  }
  if (sessions.length === 0)
    throw new ImportError(ctx.name, 'chat messages ({role, content}) or request bodies ({messages:[…]}), one per line; found none');
  return sessions;
}

export const importer: Importer = { id: 'openai-chat', label: 'OpenAI Chat Completions', detect, parse };
