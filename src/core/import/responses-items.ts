/**
 * OpenAI Responses API items → messages (docs/reference/formats.md, OpenAI Responses). Shared by the `openai-responses` and
 * `codex` importers. Consecutive model-side items (reasoning, assistant message, tool calls) are
 * one LLM call, so they become one assistant message; tool outputs become tool messages.
 */
import type { Message, Part } from '../model';
import { chatParts } from './chat-messages';
import { argsText, arr, contentText, isRecord, rec, str, type Json } from './util';

const MODEL_SIDE = new Set([
  'reasoning',
  'function_call',
  'custom_tool_call',
  'web_search_call',
  'local_shell_call',
  'tool_search_call',
  'agent_message',
]);
const TOOL_OUTPUT = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'tool_search_output']);

export function isResponsesItem(v: unknown): v is Json {
  if (!isRecord(v) || typeof v['type'] !== 'string') return false;
  const t = v['type'];
  return t === 'message' || MODEL_SIDE.has(t) || TOOL_OUTPUT.has(t);
}

/** An input item (a user, developer or system message, a tool output): it closes the call being built. */
export function isInputItem(v: Json): boolean {
  const t = str(v['type']) ?? '';
  return TOOL_OUTPUT.has(t) || (t === 'message' && v['role'] !== 'assistant');
}

/** An item the model produced (part of an assistant turn), as opposed to input or tool output. */
export function isModelSideItem(v: Json): boolean {
  const t = str(v['type']) ?? '';
  return MODEL_SIDE.has(t) || (t === 'message' && v['role'] === 'assistant');
}

export class ResponsesAccumulator {
  readonly messages: Message[] = [];
  private open: { parts: Part[]; id: string; line?: number; raw?: string[] } | null = null;
  private seq = 0;
  skipped = 0;

  constructor(
    private readonly idPrefix: string,
    private readonly keepRaw: boolean,
    /** Items without an id seen before (a parse that continues earlier items: live tail). */
    seq = 0,
  ) {
    this.seq = seq;
  }

  /**
   * Continues the assistant message that ended the earlier items (it was still open: the next
   * model-side item is part of the same call). `raw`: its record as kept so far.
   */
  reopen(m: Message, raw: string | undefined): void {
    this.open = {
      parts: [...m.parts],
      id: m.id,
      ...(m.sourceLine !== undefined ? { line: m.sourceLine } : {}),
      ...(this.keepRaw ? { raw: raw !== undefined ? [raw] : [] } : {}),
    };
  }

  /** Whether an assistant message is being built (the next model-side item continues it). */
  get building(): boolean {
    return this.open !== null;
  }

  /** Items without an id so far (the next one is numbered seq + 1). */
  get itemsWithoutId(): number {
    return this.seq;
  }

  private flush(): void {
    if (!this.open) return;
    this.messages.push({
      id: this.open.id,
      role: 'assistant',
      parts: this.open.parts,
      ...(this.open.line !== undefined ? { sourceLine: this.open.line } : {}),
      ...(this.open.raw ? { raw: this.open.raw.join('\n') } : {}),
    });
    this.open = null;
  }

  private modelSide(parts: Part[], id: string, line?: number, raw?: string): void {
    if (!this.open) this.open = { parts: [], id, ...(line !== undefined ? { line } : {}), ...(this.keepRaw ? { raw: [] } : {}) };
    this.open.parts.push(...parts);
    if (raw !== undefined) this.open.raw?.push(raw);
  }

  /** The last assistant message (for usage that arrives after it). */
  lastAssistantIndex(): number {
    this.flush();
    for (let i = this.messages.length - 1; i >= 0; i--) if (this.messages[i]!.role === 'assistant') return i;
    return -1;
  }

  add(item: Json, line?: number, raw?: string, timestamp?: number): void {
    const type = str(item['type']) ?? '';
    const id = str(item['id']) ?? `${this.idPrefix}${++this.seq}`;
    const extra = {
      ...(line !== undefined ? { sourceLine: line } : {}),
      ...(this.keepRaw && raw !== undefined ? { raw } : {}),
      ...(timestamp !== undefined ? { timestamp } : {}),
    };
    switch (type) {
      case 'message': {
        const role = str(item['role']);
        const parts = chatParts(item['content']);
        if (role === 'assistant') return this.modelSide(parts, id, line, raw);
        this.flush();
        this.messages.push({ id, role: role === 'developer' || role === 'system' ? 'system' : 'user', parts, ...extra });
        return;
      }
      case 'reasoning': {
        const summary = arr(item['summary'])
          .map((s) => str(rec(s)['text']) ?? '')
          .filter(Boolean)
          .join('\n');
        const content = arr(item['content'])
          .map((s) => str(rec(s)['text']) ?? '')
          .filter(Boolean)
          .join('\n');
        const text = content || summary;
        return this.modelSide(
          [{ kind: 'reasoning', text: text || str(item['encrypted_content']) || '', ...(text ? {} : { redacted: true }) }],
          id,
          line,
          raw,
        );
      }
      case 'agent_message':
        return this.modelSide([{ kind: 'text', text: contentText(item['content']) }], id, line, raw);
      case 'function_call':
      case 'custom_tool_call':
      case 'tool_search_call':
      case 'web_search_call':
      case 'local_shell_call': {
        const callId = str(item['call_id']) ?? id;
        const name = str(item['name']) ?? type.replace(/_call$/, '');
        const args = argsText(item['arguments'] ?? item['input'] ?? item['action']);
        return this.modelSide([{ kind: 'tool_call', id: callId, name, args }], id, line, raw);
      }
      default:
        if (TOOL_OUTPUT.has(type)) {
          this.flush();
          const out = item['output'];
          // `output` is a string (old), an array of content items (new), or `{content, success}`;
          // a single `{type: "input_text", text}` item is its text.
          const text =
            isRecord(out) && 'content' in out
              ? contentText(out['content'])
              : isRecord(out) && typeof out['text'] === 'string'
                ? out['text']
                : contentText(out ?? item['tools'] ?? item['execution']);
          this.messages.push({
            id,
            role: 'tool',
            parts: [{ kind: 'tool_result', callId: str(item['call_id']) ?? '', isError: isRecord(out) && out['success'] === false, text }],
            ...extra,
          });
          return;
        }
        this.skipped++;
    }
  }

  finish(): Message[] {
    this.flush();
    return this.messages;
  }
}
