/**
 * OpenHands event streams (FORMATS.md §8): a bare event list, or an eval `output.jsonl` with one
 * instance (one session) per line. Agent actions that share a `model_response.id` are one LLM
 * call; observations answer them through `tool_call_metadata.tool_call_id` (or `cause`); a
 * `condensation` action is a source compaction with the events it forgot.
 */
import type { Message, Part, ReportedUsage, Session, SourceCompaction } from '../model';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { argsText, arr, contentText, isRecord, num, openaiUsage, rec, str, time, type Json } from './util';

const isEvent = (v: unknown): v is Json => isRecord(v) && 'id' in v && typeof v['source'] === 'string' && ('action' in v || 'observation' in v);
const isInstance = (v: unknown): v is Json => isRecord(v) && typeof v['instance_id'] === 'string' && Array.isArray(v['history']);

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json') {
    const v = sniff.value;
    return (Array.isArray(v) && v.length > 0 && v.some(isEvent) && v.every((e) => isRecord(e))) || isInstance(v);
  }
  if (sniff.shape === 'jsonl') return sniff.lines.some(isInstance);
  return false;
}

/** The arguments the model sent for a call (from `model_response`), not OpenHands' own action args. */
function modelArgs(resp: Json | undefined, callId: string | undefined): string | undefined {
  if (!resp || callId === undefined) return undefined;
  for (const choice of arr(resp['choices'])) {
    for (const c of arr(rec(rec(choice)['message'])['tool_calls'])) {
      const call = rec(c);
      if (call['id'] === callId) return argsText(rec(call['function'])['arguments']);
    }
  }
  return undefined;
}

/** litellm's usage: OpenAI-shaped (prompt includes cache), plus Anthropic's cache writes when present. */
function usageOf(resp: Json): ReportedUsage | undefined {
  const u = openaiUsage(resp['usage']);
  const write = num(rec(resp['usage'])['cache_creation_input_tokens']);
  return u && write ? { ...u, cacheWrite: write } : u;
}

/** An event id as text (ids are numbers; anything else is not an id). */
function idOf(v: unknown): string | undefined {
  return typeof v === 'number' || typeof v === 'string' ? String(v) : undefined;
}

const SKIP_ACTIONS = new Set(['recall', 'change_agent_state', 'null']);
const SKIP_OBS = new Set(['agent_state_changed', 'null', 'recall']);

export function eventsToSession(id: string, events: readonly unknown[], ctx: ParseContext, line?: number): Session {
  const messages: Message[] = [];
  const compactions: SourceCompaction[] = [];
  const byResponse = new Map<string, number>();
  const eventToMessage = new Map<string, string>();
  let systemPrompt: string | null = null;
  let model: string | undefined;
  let skipped = 0;
  const push = (m: Message, eventId: string): void => {
    messages.push(m);
    eventToMessage.set(eventId, m.id);
  };
  for (const raw of events) {
    if (!isRecord(raw)) continue;
    const e = raw;
    const eid = idOf(e['id']) ?? String(messages.length);
    const timestamp = time(e['timestamp']);
    const base = { ...(timestamp !== undefined ? { timestamp } : {}), ...(line !== undefined ? { sourceLine: line } : {}) };
    const meta = isRecord(e['tool_call_metadata']) ? e['tool_call_metadata'] : undefined;
    const args = rec(e['args']);
    if (typeof e['action'] === 'string') {
      const action = e['action'];
      if (SKIP_ACTIONS.has(action)) {
        skipped++;
        continue;
      }
      if (action === 'system') {
        systemPrompt = str(args['content']) ?? str(e['message']) ?? systemPrompt;
        continue;
      }
      if (action === 'condensation') {
        const forgotten = arr(args['forgotten_event_ids']).flatMap((f) => idOf(f) ?? []);
        const start = num(args['forgotten_events_start_id']);
        const end = num(args['forgotten_events_end_id']);
        // A range: only the events seen so far can be in it (no loop over a range from the file).
        if (start !== undefined && end !== undefined) for (const seen of eventToMessage.keys()) if (Number(seen) >= start && Number(seen) <= end) forgotten.push(seen);
        // Several forgotten events can map to one message (actions of one LLM call).
        const dropped = [...new Set(forgotten.map((f) => eventToMessage.get(f)).filter((x): x is string => !!x))];
        compactions.push({ atMessage: messages.length, trigger: 'auto', ...(str(args['summary']) ? { summary: str(args['summary'])! } : {}), droppedIds: dropped, ...(line !== undefined ? { sourceLine: line } : {}) });
        continue;
      }
      if (e['source'] === 'user') {
        push({ id: `oh-${eid}`, role: 'user', parts: [{ kind: 'text', text: str(args['content']) ?? str(e['message']) ?? '' }], ...base }, eid);
        continue;
      }
      // An agent action: one LLM call per model_response.
      const resp = meta && isRecord(meta['model_response']) ? meta['model_response'] : undefined;
      const respId = resp ? str(resp['id']) : undefined;
      const parts: Part[] = [];
      const thought = str(args['thought']);
      if (meta) {
        const callId = str(meta['tool_call_id']);
        // What the model sent; OpenHands' action args are its own (impl_source, translated code, …).
        const sent = modelArgs(resp, callId) ?? argsText(Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'thought')));
        parts.push({ kind: 'tool_call', id: callId ?? eid, name: str(meta['function_name']) ?? action, args: sent });
      }
      else parts.push({ kind: 'text', text: str(args['content']) ?? str(args['final_thought']) ?? str(e['message']) ?? '' });
      if (respId !== undefined && byResponse.has(respId)) {
        const at = byResponse.get(respId)!;
        messages[at] = { ...messages[at]!, parts: [...messages[at]!.parts, ...parts] };
        eventToMessage.set(eid, messages[at]!.id);
        continue;
      }
      const content = resp ? str(rec(rec(arr(resp['choices'])[0])['message'])['content']) : undefined;
      const lead: Part[] = [];
      if (content) lead.push({ kind: 'text', text: content });
      else if (thought) lead.push({ kind: 'text', text: thought });
      const usage = resp ? usageOf(resp) : undefined;
      model = (resp ? str(resp['model']) : undefined) ?? model;
      if (respId !== undefined) byResponse.set(respId, messages.length);
      push({ id: `oh-${eid}`, role: 'assistant', parts: [...lead, ...parts], ...(usage ? { usage } : {}), ...(resp && str(resp['model']) ? { model: str(resp['model'])! } : {}), ...base }, eid);
      continue;
    }
    if (typeof e['observation'] === 'string') {
      if (SKIP_OBS.has(e['observation'])) {
        skipped++;
        continue;
      }
      const callId = (meta ? str(meta['tool_call_id']) : undefined) ?? idOf(e['cause']) ?? eid;
      push({ id: `oh-${eid}`, role: 'tool', parts: [{ kind: 'tool_result', callId, isError: e['observation'] === 'error', text: str(e['content']) ?? contentText(e['content']), name: e['observation'] }], ...base }, eid);
    }
  }
  if (skipped) ctx.warn(`skipped ${skipped} event(s) that carry no context (recall, agent state)`);
  return { id, format: 'openhands', ...(model ? { model } : {}), systemPrompt, tools: [], messages, sourceCompactions: compactions, subagents: [], warnings: [] };
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind === 'json') {
    const v = input.value;
    if (Array.isArray(v)) return [eventsToSession(ctx.name, v, ctx)];
    if (isInstance(v)) return [eventsToSession(str(v['instance_id'])!, arr(v['history']), ctx)];
    throw new ImportError(ctx.name, 'an OpenHands event list ([{id, source, action|observation}]) or eval instance ({instance_id, history})');
  }
  if (input.kind !== 'jsonl') throw new ImportError(ctx.name, 'OpenHands events (JSON) or eval output (JSONL)');
  const sessions: Session[] = [];
  for await (const l of input.lines) {
    if (!isInstance(l.value)) {
      ctx.warn('skipped a line that is not an eval instance ({instance_id, history})', l.line);
      continue;
    }
    sessions.push(eventsToSession(str(l.value['instance_id'])!, arr(l.value['history']), ctx, l.line));
    ctx.progress(sessions.reduce((n, s) => n + s.messages.length, 0), sessions.length);
  }
  if (sessions.length === 0) throw new ImportError(ctx.name, 'OpenHands eval instances, one per line; found none');
  return sessions;
}

export const importer: Importer = { id: 'openhands', label: 'OpenHands events / eval output', detect, parse };
