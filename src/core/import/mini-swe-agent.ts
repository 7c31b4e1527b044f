/**
 * mini-swe-agent trajectories (`.traj.json`, docs/reference/formats.md, SWE-agent): `{info, messages[],
 * trajectory_format: "mini-swe-agent-…"}`; assistant messages carry the full litellm response,
 * whose `usage` is the per-call reported usage.
 */
import type { Session } from '../model';
import { chatMessages } from './chat-messages';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { arr, isRecord, openaiUsage, rec, str, type Json } from './util';

const isMini = (v: unknown): v is Json =>
  isRecord(v) && typeof v['trajectory_format'] === 'string' && (v['trajectory_format'] as string).startsWith('mini-swe-agent');

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'json') return false;
  return sniff.value !== undefined && isMini(sniff.value);
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'json' || !isMini(input.value))
    throw new ImportError(ctx.name, 'a mini-swe-agent trajectory ({info, messages[], trajectory_format})');
  const raw = arr(input.value['messages']);
  const conv = chatMessages(raw, `${ctx.name}#`);
  // Usage lives in each assistant message's extra.response.
  const usages = raw.filter((m) => rec(m)['role'] === 'assistant').map((m) => openaiUsage(rec(rec(rec(m)['extra'])['response'])['usage']));
  let k = 0;
  const messages = conv.messages.map((m) => {
    if (m.role !== 'assistant') return m;
    const u = usages[k++];
    return u ? { ...m, usage: u } : m;
  });
  const model = str(rec(rec(rec(input.value['info'])['config'])['model'])['model_name']);
  return [
    {
      id: ctx.name,
      format: 'mini-swe-agent',
      ...(model ? { model } : {}),
      systemPrompt: conv.systemPrompt,
      tools: [],
      messages,
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    },
  ];
}

export const importer: Importer = { id: 'mini-swe-agent', label: 'mini-swe-agent trajectory (.traj.json)', detect, parse };
