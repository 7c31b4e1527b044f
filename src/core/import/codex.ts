/**
 * Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`), FORMATS.md §5. The context is built
 * from `response_item` lines only (the `event_msg` stream duplicates them for the UI);
 * `token_count.last_token_usage` is the per-call reported usage and `model_context_window` the
 * window the agent reported; `compacted` is a source compaction; `session_meta.base_instructions`
 * is the system prompt.
 */
import type { Session, SourceCompaction } from '../model';
import { ResponsesAccumulator } from './responses-items';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { contentText, isRecord, num, openaiUsage, rec, str, time } from './util';

const TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'jsonl') return false;
  if (sniff.lines.length === 0) return /^\{"timestamp":"[^"]*","type":"(session_meta|response_item|event_msg|turn_context|compacted)"/.test(sniff.head);
  return sniff.lines.some((l) => isRecord(l) && typeof l['type'] === 'string' && TYPES.has(l['type']) && isRecord(l['payload']));
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'jsonl') throw new ImportError(ctx.name, 'Codex rollout JSON lines ({timestamp, type, payload})');
  let id: string | undefined;
  let cwd: string | undefined;
  let model: string | undefined;
  let systemPrompt: string | null = null;
  let startedAt: number | undefined;
  let window: number | undefined;
  const acc = new ResponsesAccumulator(`${ctx.name}#`, ctx.keepRaw);
  const compactions: SourceCompaction[] = [];
  const unknown = new Map<string, number>();
  let lines = 0;
  for await (const l of input.lines) {
    lines++;
    const r = l.value;
    if (!isRecord(r)) continue;
    const type = str(r['type']) ?? '';
    const p = rec(r['payload']);
    const ts = time(r['timestamp']);
    switch (type) {
      case 'session_meta':
        id ??= str(p['id']) ?? str(p['session_id']);
        cwd ??= str(p['cwd']);
        startedAt ??= time(p['timestamp']) ?? ts;
        if (systemPrompt === null && p['base_instructions'] !== undefined) systemPrompt = isRecord(p['base_instructions']) ? (str(p['base_instructions']['text']) ?? contentText(p['base_instructions'])) : contentText(p['base_instructions']);
        break;
      case 'turn_context':
        model = str(p['model']) ?? model;
        break;
      case 'response_item':
        acc.add(p, l.line, l.raw, ts);
        break;
      case 'compacted':
        compactions.push({ atMessage: acc.finish().length, trigger: 'auto', summary: str(p['message']) ?? '', sourceLine: l.line });
        break;
      case 'event_msg': {
        const et = str(p['type']);
        if (et === 'token_count' && isRecord(p['info'])) {
          const info = p['info'];
          window = num(info['model_context_window']) ?? window;
          const usage = openaiUsage(info['last_token_usage']);
          const at = acc.lastAssistantIndex();
          if (usage && at >= 0) acc.messages[at] = { ...acc.messages[at]!, usage };
        } else if (et === 'task_started') window = num(p['model_context_window']) ?? window;
        break;
      }
      default:
        unknown.set(type, (unknown.get(type) ?? 0) + 1);
    }
  }
  if (lines === 0) throw new ImportError(ctx.name, 'Codex rollout lines; found none');
  for (const [t, n] of unknown) ctx.warn(`skipped ${n} line(s) of unknown type "${t}"`);
  if (acc.skipped) ctx.warn(`skipped ${acc.skipped} response item(s) of types that carry no context`);
  const messages = acc.finish();
  const withModel = model ? messages.map((m) => (m.role === 'assistant' && !m.model ? { ...m, model } : m)) : messages;
  ctx.progress(messages.length, 1);
  return [
    {
      id: id ?? ctx.name,
      format: 'codex',
      ...(model ? { model } : {}),
      provider: 'openai',
      systemPrompt,
      tools: [],
      messages: withModel,
      sourceCompactions: compactions,
      subagents: [],
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...(cwd ? { cwd } : {}),
      ...(window !== undefined ? { reportedContextWindow: window } : {}),
      warnings: [],
    },
  ];
}

export const importer: Importer = { id: 'codex', label: 'Codex CLI rollout (JSONL)', detect, parse };
