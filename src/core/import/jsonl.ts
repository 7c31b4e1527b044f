/**
 * The generic JSONL of `{role, content}` messages (one per line): the last resort for line
 * formats, and the shape the exporter writes as "JSONL of messages".
 */
import type { Session } from '../model';
import { chatMessages, isChatMessage } from './chat-messages';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { jsonText } from './util';

function detect(sniff: Sniff): boolean {
  // A file of one message is one JSON value: sniffed as `json`, but it is a JSONL of one line.
  if (sniff.shape === 'json') return sniff.value !== undefined && isChatMessage(sniff.value);
  return sniff.shape === 'jsonl' && sniff.lines.length > 0 && sniff.lines.every(isChatMessage);
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'jsonl') {
    if (input.kind === 'json' && isChatMessage(input.value)) return build([input.value], [1], [jsonText(input.value)], ctx);
    throw new ImportError(ctx.name, 'JSON lines of {role, content} messages');
  }
  const list: unknown[] = [];
  const lines: number[] = [];
  const raws: string[] = [];
  for await (const l of input.lines) {
    if (!isChatMessage(l.value)) throw new ImportError(ctx.name, 'a {role, content} message on every line', l.line);
    list.push(l.value);
    lines.push(l.line);
    raws.push(l.raw);
  }
  return build(list, lines, raws, ctx);
}

function build(list: unknown[], lines: number[], raws: string[], ctx: ParseContext): Session[] {
  const conv = chatMessages(list, `${ctx.name}#`, lines, ctx.keepRaw ? raws : undefined);
  if (conv.messages.length === 0 && conv.systemPrompt === null) throw new ImportError(ctx.name, 'at least one {role, content} message');
  return [{ id: ctx.name, format: 'jsonl', systemPrompt: conv.systemPrompt, tools: [], messages: conv.messages, sourceCompactions: [], subagents: [], warnings: [] }];
}

export const importer: Importer = { id: 'jsonl', label: 'JSONL of {role, content} messages', detect, parse, lineRecords: true };
