/**
 * Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`), FORMATS.md §5. The context is built
 * from `response_item` lines only (the `event_msg` stream duplicates them for the UI);
 * `token_count.last_token_usage` is the per-call reported usage and `model_context_window` the
 * window the agent reported (0 = unknown); `compacted` is a source compaction whose `tokensBefore`
 * is the context size of the last call before it and whose `replacement_history` names the
 * earlier messages kept verbatim; `session_meta.base_instructions` is the system prompt.
 */
import { messageText, type Message, type Session, type SourceCompaction } from '../model';
import { chatParts } from './chat-messages';
import { isModelSideItem, ResponsesAccumulator } from './responses-items';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { arr, contentText, isRecord, num, openaiUsage, rec, str, time, type Json } from './util';

/** A context window the agent reported; Codex writes 0 when it does not know it. */
function positive(v: unknown): number | undefined {
  const n = num(v);
  return n !== undefined && n > 0 ? n : undefined;
}

/** Tokens in the window after a call: its prompt plus its output (`total_tokens` when given). */
function contextTokens(u: Json): number | undefined {
  const total = num(u['total_tokens']);
  if (total !== undefined && total > 0) return total;
  const input = num(u['input_tokens']);
  const output = num(u['output_tokens']);
  return input === undefined && output === undefined ? undefined : (input ?? 0) + (output ?? 0);
}

/**
 * `compacted.replacement_history` → the ids of earlier messages it repeats verbatim (Codex keeps the
 * initial context and the user's messages), and the summary (newer Codex leaves `message` empty and
 * puts the summary in the history as the one user message that repeats nothing).
 */
function replacement(history: unknown[], before: readonly Message[]): { kept: string[]; summary?: string } {
  const kept = new Set<string>();
  const unmatched: string[] = [];
  const index = new Map<string, string[]>();
  for (const m of before) {
    if (m.role !== 'user' && m.role !== 'system') continue;
    const key = `${m.role}\u0000${messageText(m)}`;
    const ids = index.get(key);
    if (ids) ids.push(m.id);
    else index.set(key, [m.id]);
  }
  for (const item of history) {
    const r = rec(item);
    if (r['type'] !== 'message') continue;
    const role = r['role'] === 'developer' || r['role'] === 'system' ? 'system' : r['role'] === 'user' ? 'user' : undefined;
    if (!role) continue;
    const text = chatParts(r['content']).map((p) => (p.kind === 'text' ? p.text : '')).filter(Boolean).join('\n');
    const ids = index.get(`${role}\u0000${text}`);
    const id = ids?.find((x) => !kept.has(x));
    if (id !== undefined) kept.add(id);
    else if (role === 'user' && text) unmatched.push(text);
  }
  return { kept: [...kept], ...(unmatched.length ? { summary: unmatched[unmatched.length - 1]! } : {}) };
}

const TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'jsonl') return false;
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
  /** Context size reported by the last token_count since the last compaction. */
  let lastTokens: number | undefined;
  /** The assistant message the next token_count reports on (each call gets its usage once): -1 none, PENDING the one being built. */
  const PENDING = -2;
  let usageTarget = -1;
  let lines = 0;
  let notObjects = 0;
  for await (const l of input.lines) {
    lines++;
    const r = l.value;
    if (!isRecord(r)) {
      notObjects++;
      continue;
    }
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
      case 'response_item': {
        acc.add(p, l.line, l.raw, ts);
        // A model-side item opens (or continues) the call the next token_count reports on.
        if (isModelSideItem(p)) usageTarget = PENDING;
        break;
      }
      case 'compacted': {
        const history = acc.finish();
        const rep = Array.isArray(p['replacement_history']) ? replacement(arr(p['replacement_history']), history) : undefined;
        const summary = str(p['message']) || rep?.summary || '';
        compactions.push({
          atMessage: history.length,
          trigger: 'auto',
          ...(lastTokens !== undefined ? { tokensBefore: lastTokens } : {}),
          summary,
          ...(rep ? { keptIds: rep.kept } : {}),
          sourceLine: l.line,
        });
        lastTokens = undefined;
        usageTarget = -1;
        break;
      }
      case 'event_msg': {
        const et = str(p['type']);
        if (et === 'token_count' && isRecord(p['info'])) {
          const info = p['info'];
          window = positive(info['model_context_window']) ?? window;
          const last = rec(info['last_token_usage']);
          lastTokens = contextTokens(last) ?? lastTokens;
          const usage = openaiUsage(last);
          if (usageTarget === PENDING) usageTarget = acc.lastAssistantIndex();
          // Repeated token_counts (rate-limit refreshes) and the compaction's own call do not
          // overwrite the usage of a call that already has it.
          if (usage && usageTarget >= 0) acc.messages[usageTarget] = { ...acc.messages[usageTarget]!, usage };
          usageTarget = -1;
        } else if (et === 'task_started') window = positive(p['model_context_window']) ?? window;
        break;
      }
      default:
        unknown.set(type, (unknown.get(type) ?? 0) + 1);
    }
  }
  if (lines === 0) throw new ImportError(ctx.name, 'Codex rollout lines; found none');
  if (notObjects) ctx.warn(`skipped ${notObjects} line(s) that are not JSON objects`);
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
