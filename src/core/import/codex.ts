/**
 * Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`), docs/reference/formats.md, Codex CLI. The context is built
 * from `response_item` lines only (the `event_msg` stream duplicates them for the UI);
 * `token_count.last_token_usage` is the per-call reported usage and `model_context_window` the
 * window the agent reported (0 = unknown); `compacted` is a source compaction whose `tokensBefore`
 * is the context size of the last call before it and whose `replacement_history` names the
 * earlier messages kept verbatim; `session_meta.base_instructions` is the system prompt.
 */
import { messageText, type Message, type Session, type SourceCompaction } from '../model';
import { chatParts } from './chat-messages';
import { isModelSideItem, ResponsesAccumulator } from './responses-items';
import type { ImportInput, Importer, JsonLine, ParseContext, Sniff } from './types';
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
    const text = chatParts(r['content'])
      .map((p) => (p.kind === 'text' ? p.text : ''))
      .filter(Boolean)
      .join('\n');
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

/**
 * Where a parse of appended lines picks up a rollout (live tail): the state the reader had at the
 * end of the earlier lines, as far as it shapes the messages that follow.
 */
export interface CodexContinuation {
  /** Response items without an id before (generated ids are `name#n`, counted over the file). */
  readonly seq: number;
  /** The assistant message the earlier lines ended on, still open (the next model-side item continues it), with its raw record. */
  readonly open?: { readonly message: Message; readonly raw: string | undefined };
  /** The model of the last turn_context (every assistant message without its own gets it). */
  readonly model: string | undefined;
  /** The context window reported last. */
  readonly window: number | undefined;
}

/** The rollout reader: one line at a time (a whole file, or the lines appended after a continuation). */
class Rollout {
  id: string | undefined;
  cwd: string | undefined;
  model: string | undefined;
  systemPrompt: string | null = null;
  startedAt: number | undefined;
  window: number | undefined;
  readonly acc: ResponsesAccumulator;
  readonly compactions: SourceCompaction[] = [];
  readonly unknown = new Map<string, number>();
  /** Context size reported by the last token_count since the last compaction. */
  private lastTokens: number | undefined;
  /** The assistant message the next token_count reports on (each call gets its usage once): -1 none, PENDING the one being built. */
  private usageTarget = -1;
  lines = 0;
  notObjects = 0;
  /** A model-side item came after the last token_count. */
  get pending(): boolean {
    return this.usageTarget === PENDING;
  }
  /** Lines whose type is `session_meta` (a continuation cannot take them: they set the session's fields). */
  metaLines = 0;

  constructor(name: string, keepRaw: boolean, from?: CodexContinuation) {
    this.acc = new ResponsesAccumulator(`${name}#`, keepRaw, from?.seq ?? 0);
    if (from?.open) {
      this.acc.reopen(from.open.message, from.open.raw);
      // The open call has had no token_count yet (one would have closed it).
      this.usageTarget = PENDING;
    }
    this.model = from?.model;
    this.window = from?.window;
  }

  line(l: JsonLine): void {
    this.lines++;
    const r = l.value;
    if (!isRecord(r)) {
      this.notObjects++;
      return;
    }
    const type = str(r['type']) ?? '';
    const p = rec(r['payload']);
    const ts = time(r['timestamp']);
    const acc = this.acc;
    switch (type) {
      case 'session_meta':
        this.metaLines++;
        this.id ??= str(p['id']) ?? str(p['session_id']);
        this.cwd ??= str(p['cwd']);
        this.startedAt ??= time(p['timestamp']) ?? ts;
        if (this.systemPrompt === null && p['base_instructions'] !== undefined)
          this.systemPrompt = isRecord(p['base_instructions'])
            ? (str(p['base_instructions']['text']) ?? contentText(p['base_instructions']))
            : contentText(p['base_instructions']);
        break;
      case 'turn_context':
        this.model = str(p['model']) ?? this.model;
        break;
      case 'response_item': {
        acc.add(p, l.line, l.raw, ts);
        // A model-side item opens (or continues) the call the next token_count reports on.
        if (isModelSideItem(p)) this.usageTarget = PENDING;
        break;
      }
      case 'compacted': {
        const history = acc.finish();
        const rep = Array.isArray(p['replacement_history']) ? replacement(arr(p['replacement_history']), history) : undefined;
        const summary = str(p['message']) || rep?.summary || '';
        this.compactions.push({
          atMessage: history.length,
          trigger: 'auto',
          ...(this.lastTokens !== undefined ? { tokensBefore: this.lastTokens } : {}),
          summary,
          ...(rep ? { keptIds: rep.kept } : {}),
          sourceLine: l.line,
        });
        this.lastTokens = undefined;
        this.usageTarget = -1;
        break;
      }
      case 'event_msg': {
        const et = str(p['type']);
        if (et === 'token_count' && isRecord(p['info'])) {
          const info = p['info'];
          this.window = positive(info['model_context_window']) ?? this.window;
          const last = rec(info['last_token_usage']);
          this.lastTokens = contextTokens(last) ?? this.lastTokens;
          const usage = openaiUsage(last);
          if (this.usageTarget === PENDING) this.usageTarget = acc.lastAssistantIndex();
          // Repeated token_counts (rate-limit refreshes) and the compaction's own call do not
          // overwrite the usage of a call that already has it.
          if (usage && this.usageTarget >= 0) acc.messages[this.usageTarget] = { ...acc.messages[this.usageTarget]!, usage };
          this.usageTarget = -1;
        } else if (et === 'task_started') this.window = positive(p['model_context_window']) ?? this.window;
        break;
      }
      default:
        this.unknown.set(type, (this.unknown.get(type) ?? 0) + 1);
    }
  }

  /** The messages so far, each assistant message carrying the session's model when it names none. */
  messages(): Message[] {
    const messages = this.acc.finish();
    const model = this.model;
    return model ? messages.map((m) => (m.role === 'assistant' && !m.model ? { ...m, model } : m)) : messages;
  }
}

const PENDING = -2;

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'jsonl') throw new ImportError(ctx.name, 'Codex rollout JSON lines ({timestamp, type, payload})');
  const r = new Rollout(ctx.name, ctx.keepRaw);
  for await (const l of input.lines) r.line(l);
  if (r.lines === 0) throw new ImportError(ctx.name, 'Codex rollout lines; found none');
  if (r.notObjects) ctx.warn(`skipped ${r.notObjects} line(s) that are not JSON objects`);
  for (const [t, n] of r.unknown) ctx.warn(`skipped ${n} line(s) of unknown type "${t}"`);
  if (r.acc.skipped) ctx.warn(`skipped ${r.acc.skipped} response item(s) of types that carry no context`);
  const messages = r.messages();
  ctx.progress(messages.length, 1);
  const { id, model, systemPrompt, startedAt, cwd, window } = r;
  return [
    {
      id: id ?? ctx.name,
      format: 'codex',
      ...(model ? { model } : {}),
      provider: 'openai',
      systemPrompt,
      tools: [],
      messages,
      sourceCompactions: r.compactions,
      subagents: [],
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...(cwd ? { cwd } : {}),
      ...(window !== undefined ? { reportedContextWindow: window } : {}),
      warnings: [],
    },
  ];
}

/** What lines appended after a continuation add (live tail's fast path decides what it can take). */
export interface CodexAppend {
  /** The reopened message (when there was one) first, then the new messages. */
  readonly messages: Message[];
  readonly model: string | undefined;
  readonly window: number | undefined;
  readonly compactions: number;
  readonly metaLines: number;
  /** Items without an id after these lines. */
  readonly seq: number;
  /** The last message is an assistant message still being built (the next model-side item continues it). */
  readonly open: boolean;
  /** A model-side item came after the last token_count (the next one reports on the last assistant message). */
  readonly pending: boolean;
}

/** Reads lines appended to a rollout from where `from` left the reader (`name`: the file's, as its import named it). */
export function continueRollout(lines: Iterable<JsonLine>, name: string, keepRaw: boolean, from: CodexContinuation): CodexAppend {
  const r = new Rollout(name, keepRaw, from);
  for (const l of lines) r.line(l);
  const open = r.acc.building;
  const messages = r.messages();
  return {
    messages,
    model: r.model,
    window: r.window,
    compactions: r.compactions.length,
    metaLines: r.metaLines,
    seq: r.acc.itemsWithoutId,
    open,
    pending: r.pending,
  };
}

export const importer: Importer = { id: 'codex', label: 'Codex CLI rollout (JSONL)', detect, parse };
