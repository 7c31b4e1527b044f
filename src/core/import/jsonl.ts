/**
 * The generic JSONL of `{role, content}` messages (one per line): the last resort for line
 * formats, and the shape the exporter writes as "JSONL of messages".
 */
import type { Message, Session } from '../model';
import { chatMessages, isChatMessage, type ChatConversion } from './chat-messages';
import { lineBlocks } from './read';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { jsonText } from './util';

function detect(sniff: Sniff): boolean {
  // A file of one message is one JSON value: sniffed as `json`, but it is a JSONL of one line.
  if (sniff.shape === 'json') return sniff.value !== undefined && isChatMessage(sniff.value);
  return sniff.shape === 'jsonl' && sniff.lines.length > 0 && sniff.lines.every(isChatMessage);
}

/** Lines parsed before they are converted to messages. */
const CONVERT_LINES = 256;

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'jsonl') {
    if (input.kind === 'json' && isChatMessage(input.value))
      return build(chatMessages([input.value], `${ctx.name}#`, [1], ctx.keepRaw ? [jsonText(input.value)] : undefined), ctx);
    throw new ImportError(ctx.name, 'JSON lines of {role, content} messages');
  }
  // Converted a few lines at a time: only the messages are kept, never every parsed line beside
  // them, and a parsed line is garbage before it outlives a young-generation GC (a million tiny
  // lines peaked at 19× the file; docs/reliability.md).
  const system: string[] = [];
  const messages: Message[] = [];
  let index = 0;
  let list: unknown[] = [];
  let lines: number[] = [];
  let raws: string[] = [];
  const convert = (): void => {
    const conv = chatMessages(list, `${ctx.name}#`, lines, ctx.keepRaw ? raws : undefined, { index, systemOpen: messages.length === 0 });
    if (conv.systemPrompt !== null) system.push(conv.systemPrompt);
    for (const m of conv.messages) messages.push(m);
    index += list.length;
    list = [];
    lines = [];
    raws = [];
  };
  for await (const block of lineBlocks(input.lines)) {
    for (const l of block) {
      if (!isChatMessage(l.value)) throw new ImportError(ctx.name, 'a {role, content} message on every line', l.line);
      list.push(l.value);
      lines.push(l.line);
      if (ctx.keepRaw) raws.push(l.raw);
      if (list.length === CONVERT_LINES) convert();
    }
  }
  convert();
  return build({ systemPrompt: system.length > 0 ? system.join('\n\n') : null, messages }, ctx);
}

function build(conv: ChatConversion, ctx: ParseContext): Session[] {
  if (conv.messages.length === 0 && conv.systemPrompt === null) throw new ImportError(ctx.name, 'at least one {role, content} message');
  return [
    {
      id: ctx.name,
      format: 'jsonl',
      systemPrompt: conv.systemPrompt,
      tools: [],
      messages: conv.messages,
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    },
  ];
}

export const importer: Importer = { id: 'jsonl', label: 'JSONL of {role, content} messages', detect, parse, lineRecords: true };
