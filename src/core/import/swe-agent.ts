/**
 * SWE-agent trajectories (`.traj`, FORMATS.md §9): `history[]` is what was actually sent, in the
 * Chat Completions shape (tool results use `tool_call_ids`); usage is aggregate only
 * (`info.model_stats`), which the session notes.
 */
import type { Session } from '../model';
import { chatMessages, chatTools } from './chat-messages';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { arr, isRecord, num, rec, str, type Json } from './util';

const isTraj = (v: unknown): v is Json => isRecord(v) && Array.isArray(v['trajectory']) && Array.isArray(v['history']) && isRecord(v['info']);

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'json') return false;
  return isTraj(sniff.value);
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'json' || !isTraj(input.value)) throw new ImportError(ctx.name, 'a SWE-agent trajectory ({trajectory[], history[], info})');
  const v = input.value;
  const history = arr(v['history']).map((h) => {
    const r = rec(h);
    const ids = arr(r['tool_call_ids']);
    return r['role'] === 'tool' && !r['tool_call_id'] && ids.length ? { ...r, tool_call_id: String(ids[0]) } : r;
  });
  const conv = chatMessages(history, `${ctx.name}#`);
  const stats = rec(rec(v['info'])['model_stats']);
  if (num(stats['tokens_sent'])) ctx.warn(`SWE-agent logs usage only in aggregate: ${num(stats['tokens_sent'])} tokens sent over ${num(stats['api_calls']) ?? '?'} calls`);
  const model = str(rec(rec(rec(v['replay_config'] ? safeJson(v['replay_config']) : {})['agent'])['model'])['name']);
  return [{ id: str(rec(v['environment'])['instance_id']) ?? ctx.name, format: 'swe-agent', ...(model ? { model } : {}), systemPrompt: conv.systemPrompt, tools: chatTools(rec(v['info'])['tools']), messages: conv.messages, sourceCompactions: [], subagents: [], warnings: [] }];
}

function safeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return {};
  }
}

export const importer: Importer = { id: 'swe-agent', label: 'SWE-agent trajectory (.traj)', detect, parse };
