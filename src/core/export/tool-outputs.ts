/**
 * Tool outputs in an exported window as the replay counted them (docs/policies.md §S1, tool
 * output size and tool_preflight): a `tool-preflight` event says how an output over
 * `toolOutputMaxBytes` entered the window, and the exported message holds that, not the full
 * output — `offload` the 64-byte handle; `truncate` the first bytes kept; `head-tail` the head and
 * the tail; `read-grep` and `full-chunked` the handle and, in place of the grep lines or the
 * extraction (which the replay does not know, only their size), the output's first bytes up to the
 * size it counted; an output refused by the tool budget, the failure message the agent got.
 */
import type { Message, Part } from '../model';
import { BUDGET_FAILURE_TEXT, handleText, HANDLE_BYTES, utf8Length } from '../replay/tool-preflight';
import type { ReplayEvent, ReplayResult } from '../replay/types';

type Preflight = Extract<ReplayEvent, { kind: 'tool-preflight' }>;

/** The longest prefix of `text` of at most `bytes` UTF-8 bytes (never half a character). */
export function utf8Prefix(text: string, bytes: number): string {
  let n = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (n + size > bytes) break;
    n += size;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}

/** The longest suffix of `text` of at most `bytes` UTF-8 bytes. */
export function utf8Suffix(text: string, bytes: number): string {
  let n = 0;
  let i = text.length;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    const pair = c >= 0xdc00 && c <= 0xdfff && i - 2 >= 0 && text.charCodeAt(i - 2) >= 0xd800 && text.charCodeAt(i - 2) <= 0xdbff;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (n + size > bytes) break;
    n += size;
    i -= pair ? 2 : 1;
  }
  return text.slice(i);
}

const HEAD_TAIL_MARK = '\n…\n';

/** What an output handled by `e` became in the window. */
export function keptOutput(e: Preflight, text: string): string {
  switch (e.action) {
    case 'offload':
      return handleText(e.callId, e.bytesBefore);
    case 'truncate':
      return utf8Prefix(text, e.bytesAfter);
    case 'head-tail': {
      const room = Math.max(0, e.bytesAfter - utf8Length(HEAD_TAIL_MARK));
      return utf8Prefix(text, Math.ceil(room / 2)) + HEAD_TAIL_MARK + utf8Suffix(text, Math.floor(room / 2));
    }
    case 'read-grep':
    case 'full-chunked':
      return handleText(e.callId, e.bytesBefore) + utf8Prefix(text, Math.max(0, e.bytesAfter - HANDLE_BYTES));
    case 'budget-exceeded':
      return BUDGET_FAILURE_TEXT;
  }
}

/**
 * The rewrites the replay's tool-preflight events up to `step` (inclusive) ask of the messages
 * before `end`: message index → call id → the text it holds. An output refused by the tool budget
 * at a call also refuses the outputs after it that arrive before that call (S1's canExecuteTool is
 * false); the tool-call budget itself (`toolBudget`) lets the output that passed it in.
 */
export function toolOutputRewrites(
  result: ReplayResult,
  messages: readonly Message[],
  step: number,
  end: number,
): Map<number, Map<string, (text: string) => string>> {
  const out = new Map<number, Map<string, (text: string) => string>>();
  const set = (i: number, callId: string, f: (text: string) => string): void => {
    let byCall = out.get(i);
    if (!byCall) out.set(i, (byCall = new Map()));
    byCall.set(callId, f);
  };
  for (const e of result.events) {
    if (e.kind !== 'tool-preflight' || e.step > step || e.messageIndex >= end) continue;
    if (e.action !== 'budget-exceeded') set(e.messageIndex, e.callId, (text) => keptOutput(e, text));
    else {
      // Refused for want of room (a preview with tokens): the output itself is the failure message.
      if (e.tokens !== undefined) set(e.messageIndex, e.callId, () => BUDGET_FAILURE_TEXT);
      const callAt = Math.min(result.steps.messageIndex[e.step] ?? end, end);
      for (let i = e.messageIndex + 1; i < callAt; i++)
        for (const p of messages[i]!.parts) if (p.kind === 'tool_result') set(i, p.callId, () => BUDGET_FAILURE_TEXT);
    }
  }
  return out;
}

/** `m` with its tool results rewritten as `byCall` says. */
export function withToolOutputs(m: Message, byCall: ReadonlyMap<string, (text: string) => string>): Message {
  const parts: Part[] = m.parts.map((p) => {
    const f = p.kind === 'tool_result' ? byCall.get(p.callId) : undefined;
    return f && p.kind === 'tool_result' ? { ...p, text: f(p.text) } : p;
  });
  return { ...m, parts };
}
