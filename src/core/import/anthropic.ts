/**
 * Anthropic Messages (docs/reference/formats.md, Anthropic Messages): a request `{model, system, messages, tools}` (system is
 * top-level, never a message), a response `{type:"message", content, usage}`, or an array of
 * requests; JSONL of requests. Usage keeps Anthropic's convention (input excludes cache).
 */
import type { Message, Session } from '../model';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { anthropicParts, anthropicUsage, arr, contentText, isRecord, rec, str, type Json } from './util';

/**
 * Content blocks only the Chat Completions shape has (docs/reference/formats.md, OpenAI Chat Completions): a `{messages}` body holding
 * one is OpenAI's, whatever else it shares with Anthropic's (both have `text` blocks).
 */
const OPENAI_ONLY_BLOCKS = new Set(['image_url', 'input_audio', 'file', 'refusal']);
const hasOpenAIOnlyBlock = (m: unknown): boolean =>
  isRecord(m) &&
  Array.isArray(m['content']) &&
  (m['content'] as unknown[]).some((b) => isRecord(b) && OPENAI_ONLY_BLOCKS.has(b['type'] as string));

function isResponse(v: unknown): v is Json {
  return isRecord(v) && v['type'] === 'message' && isRecord(v['usage']) && 'input_tokens' in (v['usage'] as Json);
}
function isRequest(v: unknown): v is Json {
  if (!isRecord(v) || !Array.isArray(v['messages'])) return false;
  const msgs = v['messages'] as unknown[];
  const blocks = msgs.some(
    (m) =>
      isRecord(m) &&
      Array.isArray(m['content']) &&
      (m['content'] as unknown[]).some(
        (b) =>
          isRecord(b) &&
          typeof b['type'] === 'string' &&
          /^(tool_use|tool_result|thinking|redacted_thinking|image|text)$/.test(b['type'] as string),
      ),
  );
  const onlyUserAssistant = msgs.every((m) => isRecord(m) && (m['role'] === 'user' || m['role'] === 'assistant'));
  return (
    onlyUserAssistant &&
    ('system' in v || blocks || 'max_tokens' in v) &&
    !msgs.some((m) => isRecord(m) && ('tool_calls' in m || hasOpenAIOnlyBlock(m)))
  );
}

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json') {
    const v = sniff.value;
    if (isRequest(v) || isResponse(v)) return true;
    return Array.isArray(v) && v.length > 0 && v.every((x) => isRequest(x) || isResponse(x));
  }
  if (sniff.shape === 'jsonl') return sniff.lines.length > 0 && sniff.lines.every((l) => isRequest(l) || isResponse(l));
  return false;
}

function systemText(system: unknown): string | null {
  if (system === undefined || system === null) return null;
  const text = contentText(system);
  return text === '' ? null : text;
}

function toMessage(m: Json, id: string, line?: number, raw?: string): Message | undefined {
  const role = m['role'] === 'assistant' ? 'assistant' : 'user';
  const parts = anthropicParts(m['content']);
  const usage = anthropicUsage(m['usage']);
  const model = str(m['model']);
  return {
    id: str(m['id']) ?? id,
    role,
    parts,
    ...(usage ? { usage } : {}),
    ...(model ? { model } : {}),
    ...(line !== undefined ? { sourceLine: line } : {}),
    ...(raw !== undefined ? { raw } : {}),
  };
}

function sessionFrom(id: string, body: Json, ctx: ParseContext, line?: number, raw?: string): Session {
  const messages = arr(body['messages']).flatMap((m, i) => {
    const msg = isRecord(m) ? toMessage(m, `${id}#${i}`, line, ctx.keepRaw ? raw : undefined) : undefined;
    return msg ? [msg] : [];
  });
  if (isResponse(body['response'])) {
    const r = toMessage(body['response'], `${id}#response`, line);
    if (r) messages.push(r);
  }
  const model = str(body['model']);
  return {
    id,
    format: 'anthropic',
    ...(model ? { model } : {}),
    provider: 'anthropic',
    systemPrompt: systemText(body['system']),
    tools: arr(body['tools']).flatMap((t) => {
      const r = rec(t);
      const name = str(r['name']);
      return name ? [{ name, description: str(r['description']) ?? '', parameters: r['input_schema'] ?? {} }] : [];
    }),
    messages,
    sourceCompactions: [],
    subagents: [],
    warnings: [],
  };
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind === 'text') throw new ImportError(ctx.name, 'Anthropic Messages JSON');
  if (input.kind === 'json') {
    const v = input.value;
    if (isRequest(v)) return [sessionFrom(ctx.name, v, ctx)];
    if (isResponse(v)) return [sessionFrom(ctx.name, { model: v['model'], messages: [{ ...v, role: 'assistant' }] }, ctx)];
    if (Array.isArray(v)) {
      const out = v.flatMap((x, i) =>
        isRequest(x)
          ? [sessionFrom(`${ctx.name}#${i + 1}`, x, ctx)]
          : isResponse(x)
            ? [sessionFrom(`${ctx.name}#${i + 1}`, { model: x['model'], messages: [{ ...x, role: 'assistant' }] }, ctx)]
            : [],
      );
      if (out.length > 0) return out;
    }
    throw new ImportError(ctx.name, 'an Anthropic Messages request ({system?, messages:[…]}) or response ({type:"message"})');
  }
  const sessions: Session[] = [];
  for await (const l of input.lines) {
    if (isRequest(l.value)) sessions.push(sessionFrom(`${ctx.name}:${l.line}`, l.value, ctx, l.line, l.raw));
    else if (isResponse(l.value))
      sessions.push(
        sessionFrom(
          `${ctx.name}:${l.line}`,
          { model: l.value['model'], messages: [{ ...l.value, role: 'assistant' }] },
          ctx,
          l.line,
          l.raw,
        ),
      );
    else ctx.warn('skipped a line that is not an Anthropic request or response', l.line);
  }
  if (sessions.length === 0) throw new ImportError(ctx.name, 'Anthropic Messages requests or responses, one per line; found none');
  return sessions;
}

export const importer: Importer = { id: 'anthropic', label: 'Anthropic Messages', detect, parse };
