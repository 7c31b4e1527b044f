/**
 * SWE-agent trajectories (`.traj`, FORMATS.md §9): `history[]` is what the agent recorded, in the
 * Chat Completions shape (tool results use `tool_call_ids`); the run's config says what it did
 * to it before each query (history processors) and which tools it sent (swe-agent-config.ts).
 * Usage is aggregate only (`info.model_stats`), which the session notes.
 */
import type { Session } from '../model';
import { chatMessages, chatTools } from './chat-messages';
import { bundleTools, elideObservations, lastNObservations } from './swe-agent-config';
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
  const replayConfig = rec(v['replay_config'] ? safeJson(v['replay_config']) : {});
  const agent = rec(replayConfig['agent']);
  // The benchmark instance the run solved: SWE-agent 1.x names it in the problem statement.
  const instance = str(rec(v['environment'])['instance_id']) ?? str(rec(replayConfig['problem_statement'])['id']);
  const warnings: string[] = [];
  let history = arr(v['history']).map((h) => {
    const r = rec(h);
    const ids = arr(r['tool_call_ids']);
    return r['role'] === 'tool' && !r['tool_call_id'] && ids.length ? { ...r, tool_call_id: String(ids[0]) } : r;
  });
  const elide = lastNObservations(agent);
  if (elide) {
    // One message list stands for every call: observations as the last call saw them.
    const lastCall = history.map((h) => h['role']).lastIndexOf('assistant');
    history = elideObservations(history, lastCall < 0 ? history.length : lastCall, elide);
    warnings.push(`history processor last_n_observations (n=${elide.n}${elide.polling > 1 ? `, polling ${elide.polling}` : ''}): older observations are elided as the last call saw them; earlier calls saw up to ${elide.n + elide.polling - 1} more in full`);
  }
  const conv = chatMessages(history, `${ctx.name}#`);
  const stats = rec(rec(v['info'])['model_stats']);
  if (num(stats['tokens_sent'])) ctx.warn(`SWE-agent logs usage only in aggregate: ${num(stats['tokens_sent'])} tokens sent over ${num(stats['api_calls']) ?? '?'} calls`);
  const model = str(rec(agent['model'])['name']);
  const logged = chatTools(rec(v['info'])['tools']);
  const bundles = logged.length > 0 ? undefined : bundleTools(agent);
  if (bundles && bundles.unknown.length > 0) warnings.push(`tool bundles not known, their tools are not counted: ${bundles.unknown.join(', ')}`);
  return [{ id: instance ?? ctx.name, format: 'swe-agent', ...(model ? { model } : {}), systemPrompt: conv.systemPrompt, tools: bundles ? bundles.tools : logged, messages: conv.messages, sourceCompactions: [], subagents: [], warnings }];
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
