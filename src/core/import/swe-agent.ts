/**
 * SWE-agent trajectories (`.traj`, docs/reference/formats.md, SWE-agent): `history[]` is what the agent recorded, in the
 * Chat Completions shape (tool results use `tool_call_ids`); the run's config says what it did
 * to it before each query (history processors) and which tools it sent (swe-agent-config.ts).
 * Usage is aggregate only (`info.model_stats`), which the session notes.
 */
import type { Session } from '../model';
import { chatMessages, chatTools } from './chat-messages';
import { bundleTools, elisionSchedule, lastNObservations, unappliedProcessors } from './swe-agent-config';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { arr, isRecord, num, rec, str, type Json } from './util';

const isTraj = (v: unknown): v is Json =>
  isRecord(v) && Array.isArray(v['trajectory']) && Array.isArray(v['history']) && isRecord(v['info']);

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'json') return false;
  return isTraj(sniff.value);
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'json' || !isTraj(input.value))
    throw new ImportError(ctx.name, 'a SWE-agent trajectory ({trajectory[], history[], info})');
  const v = input.value;
  const replayConfig = rec(v['replay_config'] ? safeJson(v['replay_config']) : {});
  const agent = rec(replayConfig['agent']);
  // The benchmark instance the run solved: SWE-agent 1.x names it in the problem statement.
  const instance = str(rec(v['environment'])['instance_id']) ?? str(rec(replayConfig['problem_statement'])['id']);
  const warnings: string[] = [];
  const history = arr(v['history']).map((h) => {
    const r = rec(h);
    const ids = arr(r['tool_call_ids']);
    return r['role'] === 'tool' && !r['tool_call_id'] && ids.length ? { ...r, tool_call_id: String(ids[0]) } : r;
  });
  const conv = chatMessages(history, `${ctx.name}#`);
  const elide = lastNObservations(agent);
  let messages = conv.messages;
  if (elide) {
    // Each call is replayed on the history as the processor left it for that call: an elided
    // observation keeps its logged text and says from which call on it was sent as a placeholder.
    const at = messageIndexOfEntries(history);
    const schedule = elisionSchedule(history, elide);
    messages = messages.slice();
    for (const [entry, e] of schedule) {
      const i = at[entry]!;
      const from = at[e.fromEntry]!;
      if (i >= 0 && from >= 0) messages[i] = { ...messages[i]!, sentAs: { fromMessage: from, text: e.text } };
    }
    warnings.push(
      `history processor last_n_observations (n=${elide.n}${elide.polling > 1 ? `, polling ${elide.polling}` : ''}): ${schedule.size} observations are replayed as placeholders from the call that first received them so, in full before it`,
    );
  }
  const unapplied = unappliedProcessors(agent);
  if (unapplied.length > 0)
    warnings.push(`history processors not applied (the calls are counted on the logged history): ${unapplied.join(', ')}`);
  const stats = rec(rec(v['info'])['model_stats']);
  if (num(stats['tokens_sent']))
    ctx.warn(
      `SWE-agent logs usage only in aggregate: ${num(stats['tokens_sent'])} tokens sent over ${num(stats['api_calls']) ?? '?'} calls`,
    );
  const model = str(rec(agent['model'])['name']);
  const logged = chatTools(rec(v['info'])['tools']);
  const bundles = logged.length > 0 ? undefined : bundleTools(agent);
  if (bundles && bundles.unknown.length > 0)
    warnings.push(`tool bundles not known, their tools are not counted: ${bundles.unknown.join(', ')}`);
  return [
    {
      id: instance ?? ctx.name,
      format: 'swe-agent',
      ...(model ? { model } : {}),
      systemPrompt: conv.systemPrompt,
      tools: bundles ? bundles.tools : logged,
      messages,
      sourceCompactions: [],
      subagents: [],
      warnings,
    },
  ];
}

/**
 * The message index each history entry became (−1: none), as chatMessages converts the list:
 * leading system entries form the system prompt, anything that is not an object is skipped.
 */
function messageIndexOfEntries(history: readonly Json[]): Int32Array {
  const at = new Int32Array(history.length).fill(-1);
  let n = 0;
  history.forEach((h, i) => {
    if (!isRecord(h)) return;
    if ((h['role'] === 'system' || h['role'] === 'developer') && n === 0) return;
    at[i] = n++;
  });
  return at;
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

/**
 * For the live tail's fast path (core/formats/swe-agent.ts), which converts appended history
 * entries on their own: the run's agent config as `parse` reads it (a `replay_config` may be a
 * JSON string), and one history entry as `parse` hands it to chatMessages (a tool result naming
 * its call in `tool_call_ids` only gets `tool_call_id`).
 */
export function trajectoryAgent(traj: Json): Json {
  return rec(rec(traj['replay_config'] ? safeJson(traj['replay_config']) : {})['agent']);
}
export function historyEntry(h: unknown): Json {
  const r = rec(h);
  const ids = arr(r['tool_call_ids']);
  return r['role'] === 'tool' && !r['tool_call_id'] && ids.length ? { ...r, tool_call_id: String(ids[0]) } : r;
}
