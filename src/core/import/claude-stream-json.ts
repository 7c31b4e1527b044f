/**
 * `claude -p --output-format stream-json` (docs/reference/formats.md, Claude Code): an `init` line with the model and
 * tools, then `assistant` / `user` lines carrying Anthropic messages, then a `result` line.
 * snake_case, no uuids; split assistant lines are merged by `message.id`.
 */
import type { Message, Session } from '../model';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { anthropicParts, anthropicUsage, arr, isRecord, positionalId, rec, str } from './util';

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'jsonl') return false;
  return sniff.lines.some(
    (l) =>
      isRecord(l) &&
      ((l['type'] === 'system' && l['subtype'] === 'init' && typeof l['session_id'] === 'string') ||
        (typeof l['session_id'] === 'string' && isRecord(l['message']) && !('uuid' in l))),
  );
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'jsonl') throw new ImportError(ctx.name, 'claude stream-json lines');
  let id: string | undefined;
  let model: string | undefined;
  let tools: string[] = [];
  const messages: Message[] = [];
  const byApiId = new Map<string, number>();
  for await (const l of input.lines) {
    const r = l.value;
    if (!isRecord(r)) continue;
    id ??= str(r['session_id']);
    if (r['type'] === 'system' && r['subtype'] === 'init') {
      model = str(r['model']) ?? model;
      tools = arr(r['tools']).map(String);
      continue;
    }
    if ((r['type'] !== 'assistant' && r['type'] !== 'user') || !isRecord(r['message'])) continue;
    const msg = rec(r['message']);
    const parts = anthropicParts(msg['content']);
    const extra = { sourceLine: l.line, ...(ctx.keepRaw ? { raw: l.raw } : {}) };
    if (r['type'] === 'assistant') {
      const apiId = str(msg['id']);
      const usage = anthropicUsage(msg['usage']);
      const at = apiId !== undefined ? byApiId.get(apiId) : undefined;
      if (at !== undefined) {
        messages[at] = { ...messages[at]!, parts: [...messages[at]!.parts, ...parts], ...(usage ? { usage } : {}) };
        continue;
      }
      if (apiId !== undefined) byApiId.set(apiId, messages.length);
      messages.push({
        id: apiId ?? positionalId(`${ctx.name}#`, l.line),
        role: 'assistant',
        parts,
        ...(usage ? { usage } : {}),
        ...(str(msg['model']) ? { model: str(msg['model'])! } : {}),
        ...extra,
      });
    } else messages.push({ id: positionalId(`${ctx.name}#`, l.line), role: 'user', parts, ...extra });
  }
  if (messages.length === 0) throw new ImportError(ctx.name, 'assistant or user lines with a message; found none');
  return [
    {
      id: id ?? ctx.name,
      format: 'claude-stream-json',
      ...(model ? { model } : {}),
      provider: 'anthropic',
      systemPrompt: null,
      tools: tools.map((name) => ({ name, description: '', parameters: {} })),
      messages,
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    },
  ];
}

export const importer: Importer = { id: 'claude-stream-json', label: 'claude -p stream-json', detect, parse, lineRecords: true };
