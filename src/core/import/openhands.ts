/**
 * OpenHands event streams (docs/reference/formats.md, OpenHands): a bare event list, or an eval `output.jsonl` with one
 * instance (one session) per line. The session is the prompt OpenHands built from the events
 * (openhands-prompt.ts says what it adds): the system event's prompt and tool definitions;
 * agent actions that share a `model_response.id` are one LLM call; observations answer them
 * through `tool_call_metadata.tool_call_id`, and one without it (an error the runtime raised, a
 * command the user ran, a recall) is a user message, as OpenHands sends it; `finish` is the
 * model's closing text; a `condensation` action is a source compaction with the events it forgot.
 */
import type { Message, Part, ReportedUsage, Session, SourceCompaction, ToolDef } from '../model';
import { chatTools } from './chat-messages';
import { DEFAULT_MAX_MESSAGE_CHARS, exampleWrapping, observationText, recallText, toolsAsText } from './openhands-prompt';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { argsText, arr, contentText, isRecord, num, openaiUsage, rec, str, time, type Json } from './util';

const isEvent = (v: unknown): v is Json =>
  isRecord(v) && 'id' in v && typeof v['source'] === 'string' && ('action' in v || 'observation' in v);
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

/** An eval instance's `metrics.token_usages` entry, by response id (for responses logged without usage). */
function evalUsages(instance: Json | undefined): Map<string, ReportedUsage> {
  const out = new Map<string, ReportedUsage>();
  for (const t of arr(rec(instance?.['metrics'])['token_usages'])) {
    const r = rec(t);
    const id = str(r['response_id']);
    const prompt = num(r['prompt_tokens']);
    if (id === undefined || prompt === undefined) continue;
    // OpenHands records litellm's prompt_tokens, which already include the cached part.
    out.set(id, {
      convention: 'openai',
      input: prompt,
      cacheRead: num(r['cache_read_tokens']) ?? 0,
      cacheWrite: num(r['cache_write_tokens']) ?? 0,
      output: num(r['completion_tokens']) ?? 0,
    });
  }
  return out;
}

/** An event id as text (ids are numbers; anything else is not an id). */
function idOf(v: unknown): string | undefined {
  return typeof v === 'number' || typeof v === 'string' ? String(v) : undefined;
}

/** Actions and observations that put nothing in the prompt (a recall action only asks; its observation carries the text). */
const SKIP_ACTIONS = new Set(['recall', 'change_agent_state', 'null']);
const SKIP_OBS = new Set(['agent_state_changed', 'null', 'loop_detection']);

/** Tool call ids OpenHands makes up when it parses calls out of text (non-native function calling): `toolu_01`, `toolu_02`, … */
const TEXT_CALL_ID = /^toolu_\d{2,3}$/;

export interface OpenHandsOptions {
  /** `metadata.llm_config.native_tool_calling` of an eval run, when it says. */
  readonly nativeToolCalling?: boolean;
  readonly maxMessageChars?: number;
  readonly usages?: ReadonlyMap<string, ReportedUsage>;
}

function optionsOf(instance: Json): OpenHandsOptions {
  const llm = rec(rec(instance['metadata'])['llm_config']);
  const native = llm['native_tool_calling'];
  const max = num(llm['max_message_chars']);
  return {
    ...(typeof native === 'boolean' ? { nativeToolCalling: native } : {}),
    ...(max !== undefined ? { maxMessageChars: max } : {}),
    usages: evalUsages(instance),
  };
}

export function eventsToSession(
  id: string,
  events: readonly unknown[],
  ctx: ParseContext,
  line?: number,
  options: OpenHandsOptions = {},
): Session {
  const messages: Message[] = [];
  const compactions: SourceCompaction[] = [];
  const byResponse = new Map<string, number>();
  const eventToMessage = new Map<string, string>();
  const seenMicroagents = new Set<string>();
  const maxChars = options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
  let systemPrompt: string | null = null;
  let tools: ToolDef[] = [];
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
    const userText = (text: string): void => push({ id: `oh-${eid}`, role: 'user', parts: [{ kind: 'text', text }], ...base }, eid);
    if (typeof e['action'] === 'string') {
      const action = e['action'];
      if (SKIP_ACTIONS.has(action)) {
        skipped++;
        continue;
      }
      if (action === 'system') {
        systemPrompt = str(args['content']) ?? str(e['message']) ?? systemPrompt;
        // Sent as the request's `tools` (or rendered into the prompt: see below).
        if (Array.isArray(args['tools'])) tools = chatTools(args['tools']);
        continue;
      }
      if (action === 'condensation') {
        const forgotten = arr(args['forgotten_event_ids']).flatMap((f) => idOf(f) ?? []);
        const start = num(args['forgotten_events_start_id']);
        const end = num(args['forgotten_events_end_id']);
        // A range: only the events seen so far can be in it (no loop over a range from the file).
        if (start !== undefined && end !== undefined)
          for (const seen of eventToMessage.keys()) if (Number(seen) >= start && Number(seen) <= end) forgotten.push(seen);
        // Several forgotten events can map to one message (actions of one LLM call).
        const dropped = [...new Set(forgotten.map((f) => eventToMessage.get(f)).filter((x): x is string => !!x))];
        compactions.push({
          atMessage: messages.length,
          trigger: 'auto',
          ...(str(args['summary']) ? { summary: str(args['summary'])! } : {}),
          droppedIds: dropped,
          ...(line !== undefined ? { sourceLine: line } : {}),
        });
        continue;
      }
      if (e['source'] === 'user') {
        if (action === 'run') userText(`User executed the command:\n${str(args['command']) ?? ''}`);
        else {
          const parts: Part[] = [{ kind: 'text', text: str(args['content']) ?? str(e['message']) ?? '' }];
          for (const url of arr(args['image_urls']))
            if (typeof url === 'string' && url.trim())
              parts.push({
                kind: 'media',
                mediaType: /^data:([^;,]+)/.exec(url)?.[1] ?? 'image',
                source: url.startsWith('data:') ? 'base64' : url,
              });
          push({ id: `oh-${eid}`, role: 'user', parts, ...base }, eid);
        }
        continue;
      }
      // An agent action: one LLM call per model_response.
      const resp = meta && isRecord(meta['model_response']) ? meta['model_response'] : undefined;
      const respId = resp ? str(resp['id']) : undefined;
      const content = resp ? str(rec(rec(arr(resp['choices'])[0])['message'])['content']) : undefined;
      const thought = str(args['thought']);
      const parts: Part[] = [];
      if (action === 'finish') {
        // Sent back as the model's text, not as a call: its thought, then the response's content when it differs.
        const text = thought ? (content && content !== thought ? `${thought}\n${content}` : thought) : (content ?? '');
        parts.push({ kind: 'text', text });
      } else if (meta) {
        const callId = str(meta['tool_call_id']);
        // What the model sent; OpenHands' action args are its own (impl_source, translated code, …).
        const sent = modelArgs(resp, callId) ?? argsText(Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'thought')));
        parts.push({ kind: 'tool_call', id: callId ?? eid, name: str(meta['function_name']) ?? action, args: sent });
      } else parts.push({ kind: 'text', text: str(args['content']) ?? str(e['message']) ?? '' });
      if (respId !== undefined && byResponse.has(respId)) {
        const at = byResponse.get(respId)!;
        messages[at] = { ...messages[at]!, parts: [...messages[at]!.parts, ...parts] };
        eventToMessage.set(eid, messages[at]!.id);
        continue;
      }
      const lead: Part[] = [];
      if (action !== 'finish') {
        if (content?.trim()) lead.push({ kind: 'text', text: content });
        else if (thought) lead.push({ kind: 'text', text: thought });
      }
      const usage = resp ? (usageOf(resp) ?? (respId !== undefined ? options.usages?.get(respId) : undefined)) : undefined;
      model = (resp ? str(resp['model']) : undefined) ?? model;
      if (respId !== undefined) byResponse.set(respId, messages.length);
      push(
        {
          id: `oh-${eid}`,
          role: 'assistant',
          parts: [...lead, ...parts],
          ...(usage ? { usage } : {}),
          ...(resp && str(resp['model']) ? { model: str(resp['model'])! } : {}),
          ...base,
        },
        eid,
      );
      continue;
    }
    if (typeof e['observation'] === 'string') {
      const kind = e['observation'];
      if (SKIP_OBS.has(kind)) {
        skipped++;
        continue;
      }
      const extras = rec(e['extras']);
      const body = str(e['content']) ?? contentText(e['content']);
      if (kind === 'recall') {
        const text = recallText(extras, seenMicroagents);
        if (text === undefined) skipped++;
        else userText(text);
        continue;
      }
      const callId = meta ? str(meta['tool_call_id']) : undefined;
      const text = observationText(kind, body, extras, callId !== undefined, maxChars);
      // Without a tool call to answer (an error the runtime raised, a command the user ran), OpenHands sends a user message.
      if (callId === undefined) userText(text);
      else
        push(
          {
            id: `oh-${eid}`,
            role: 'tool',
            parts: [{ kind: 'tool_result', callId, isError: kind === 'error', text, name: str(meta?.['function_name']) ?? kind }],
            ...base,
          },
          eid,
        );
    }
  }
  if (skipped) ctx.warn(`skipped ${skipped} event(s) that put nothing in the prompt (recall requests, agent state, empty recalls)`);
  const answered = withoutUnansweredCalls(messages);
  const textCalling = options.nativeToolCalling === false || (options.nativeToolCalling === undefined && usesTextCalling(answered));
  const prompt =
    textCalling && tools.length > 0 ? asTextCalling(systemPrompt, tools, answered) : { systemPrompt, tools, messages: answered };
  return { id, format: 'openhands', ...(model ? { model } : {}), ...prompt, sourceCompactions: compactions, subagents: [], warnings: [] };
}

/**
 * OpenHands holds a call's assistant message back until every call in it has its result, and
 * drops calls that never get one (the runtime failed and sent an error as a user message
 * instead): such calls are not in any prompt. The message stays, for its usage.
 */
function withoutUnansweredCalls(messages: readonly Message[]): Message[] {
  const results = new Set(messages.flatMap((m) => m.parts.flatMap((p) => (p.kind === 'tool_result' ? [p.callId] : []))));
  return messages.map((m) =>
    m.role === 'assistant' && m.parts.some((p) => p.kind === 'tool_call' && !results.has(p.id))
      ? { ...m, parts: m.parts.filter((p) => p.kind !== 'tool_call' || results.has(p.id)) }
      : m,
  );
}

/** Every tool call id has the shape OpenHands gives calls it parsed out of text. */
function usesTextCalling(messages: readonly Message[]): boolean {
  const ids = messages.flatMap((m) => m.parts.flatMap((p) => (p.kind === 'tool_call' ? [p.id] : [])));
  return ids.length > 0 && ids.every((i) => TEXT_CALL_ID.test(i));
}

/**
 * Non-native function calling: no `tools` in the request; their description is appended to the
 * system prompt, the first user message is wrapped in the example, and each result comes back
 * as text headed `EXECUTION RESULT of [tool]:`. The calls stay calls, so turns still pair.
 */
function asTextCalling(
  systemPrompt: string | null,
  tools: readonly ToolDef[],
  messages: readonly Message[],
): { systemPrompt: string; tools: ToolDef[]; messages: Message[] } {
  const wrap = exampleWrapping(tools);
  let wrapped = wrap === undefined;
  const out = messages.map((m): Message => {
    if (!wrapped && m.role === 'user' && m.parts[0]?.kind === 'text') {
      wrapped = true;
      const [first, ...rest] = m.parts;
      return { ...m, parts: [{ kind: 'text', text: `${wrap!.before}${first.text}${wrap!.after}` }, ...rest] };
    }
    if (m.role !== 'tool') return m;
    return {
      ...m,
      parts: m.parts.map((p) =>
        p.kind === 'tool_result' ? { ...p, text: `EXECUTION RESULT of [${p.name ?? 'function'}]:\n${p.text}` } : p,
      ),
    };
  });
  return { systemPrompt: `${systemPrompt ?? ''}${toolsAsText(tools)}`, tools: [], messages: out };
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind === 'json') {
    const v = input.value;
    if (Array.isArray(v)) return [eventsToSession(ctx.name, v, ctx)];
    if (isInstance(v)) return [eventsToSession(str(v['instance_id'])!, arr(v['history']), ctx, undefined, optionsOf(v))];
    throw new ImportError(
      ctx.name,
      'an OpenHands event list ([{id, source, action|observation}]) or eval instance ({instance_id, history})',
    );
  }
  if (input.kind !== 'jsonl') throw new ImportError(ctx.name, 'OpenHands events (JSON) or eval output (JSONL)');
  const sessions: Session[] = [];
  for await (const l of input.lines) {
    if (!isInstance(l.value)) {
      ctx.warn('skipped a line that is not an eval instance ({instance_id, history})', l.line);
      continue;
    }
    sessions.push(eventsToSession(str(l.value['instance_id'])!, arr(l.value['history']), ctx, l.line, optionsOf(l.value)));
    ctx.progress(
      sessions.reduce((n, s) => n + s.messages.length, 0),
      sessions.length,
    );
  }
  if (sessions.length === 0) throw new ImportError(ctx.name, 'OpenHands eval instances, one per line; found none');
  return sessions;
}

export const importer: Importer = { id: 'openhands', label: 'OpenHands events / eval output', detect, parse };

/** For the live tail's fast path (core/formats/openhands.ts): a call id OpenHands made up parsing calls out of text (the session may then be sent with text calling). */
export function isTextCallId(id: string): boolean {
  return TEXT_CALL_ID.test(id);
}

/** For the live tail's fast path (core/formats/openhands.ts): the options an eval instance's import converts its history with (its LLM config and `metrics.token_usages`). */
export function instanceOptions(instance: Json): OpenHandsOptions {
  return optionsOf(instance);
}
