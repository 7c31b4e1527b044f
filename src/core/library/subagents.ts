/**
 * Which call spawned each subagent (Claude Code sidechain) of a session.
 *  0. Exact: Claude Code 2.x puts the subagent's id on the result of the call that ran it
 *     (`Message.agentId` on the result message = `Session.agentId` of the subagent): that call.
 * v1.x writes a subagent's lines into the parent's file (`isSidechain: true`) without naming the
 * call that started it, so the link is found from what both sides logged (as real Claude Code
 * files show):
 *  1. the subagent's first user message is the `prompt` argument of the parent's `Task` (newer:
 *     `Agent`) tool call, verbatim;
 *  2. failing that, the subagent's last answer is the text of that call's tool result.
 * Each call spawns at most one subagent and calls are matched in order, so two subagents given
 * the same prompt link to two calls. A subagent that matches no call stays unlinked (still
 * listed under its parent, just not under a call). Pure.
 */
import type { Message, Session } from '../model';
import { firstPrompt, oneLine } from './stats';

export interface SubagentLink {
  /** Index into `parent.subagents`. */
  readonly subagent: number;
  /** The tool call that spawned it, and the index of the parent message holding that call. */
  readonly callId: string | null;
  readonly messageIndex: number | null;
  /** `type: description` from the call's arguments, else the subagent's own title, else its first prompt. */
  readonly title: string | null;
}

/** Tool names Claude Code uses for "run a subagent". */
const SPAWN_TOOLS = new Set(['Task', 'Agent']);

interface SpawnCall {
  readonly callId: string;
  readonly messageIndex: number;
  readonly prompt: string | null;
  readonly description: string | null;
  readonly type: string | null;
  result: string | null;
  used: boolean;
}

function argsOf(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

function lastAnswer(messages: readonly Message[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const text = m.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n');
    if (text.trim() !== '') return text.trim();
  }
  return null;
}

export function linkSubagents(parent: Session): SubagentLink[] {
  if (parent.subagents.length === 0) return [];
  const calls: SpawnCall[] = [];
  const byId = new Map<string, SpawnCall>();
  // Any call can be named by a result's agentId, not only a Task/Agent call (a renamed tool).
  const anyCall = new Map<string, number>();
  // agentId → the call whose result names it.
  const ranAgent = new Map<string, string>();
  parent.messages.forEach((m, messageIndex) => {
    for (const p of m.parts) {
      if (p.kind === 'tool_call') {
        anyCall.set(p.id, messageIndex);
        if (!SPAWN_TOOLS.has(p.name)) continue;
        const a = argsOf(p.args);
        const call: SpawnCall = {
          callId: p.id,
          messageIndex,
          prompt: str(a['prompt']),
          description: str(a['description']),
          type: str(a['subagent_type']),
          result: null,
          used: false,
        };
        calls.push(call);
        byId.set(p.id, call);
      } else if (p.kind === 'tool_result') {
        const call = byId.get(p.callId);
        if (call) call.result = p.text.trim();
        if (m.agentId !== undefined && !ranAgent.has(m.agentId)) ranAgent.set(m.agentId, p.callId);
      }
    }
  });
  const subs = parent.subagents.map((s) => ({
    prompt: firstPrompt(s.messages)?.trim() ?? null,
    answer: lastAnswer(s.messages),
    title: str(s.title),
  }));
  const found: (SpawnCall | null)[] = subs.map(() => null);
  // Pass 0, the exact link, before any matching by text: a text match must not take its call.
  parent.subagents.forEach((s, k) => {
    const callId = s.agentId !== undefined ? ranAgent.get(s.agentId) : undefined;
    const messageIndex = callId !== undefined ? anyCall.get(callId) : undefined;
    if (callId === undefined || messageIndex === undefined) return;
    const spawn = byId.get(callId);
    if (spawn?.used) return;
    found[k] = spawn
      ? Object.assign(spawn, { used: true })
      : { callId, messageIndex, prompt: null, description: null, type: null, result: null, used: true };
  });
  // Pass 1 (the prompt) for every subagent before pass 2 (the answer): a weak match must not take a call a strong one owns.
  subs.forEach((s, k) => {
    if (found[k]) return;
    const c = s.prompt !== null ? calls.find((x) => !x.used && x.prompt !== null && x.prompt.trim() === s.prompt) : undefined;
    if (c) found[k] = Object.assign(c, { used: true });
  });
  subs.forEach((s, k) => {
    if (found[k] || s.answer === null) return;
    const c = calls.find((x) => !x.used && x.result !== null && x.result !== '' && (x.result === s.answer || x.result.includes(s.answer!)));
    if (c) found[k] = Object.assign(c, { used: true });
  });
  return subs.map((s, k) => {
    const c = found[k];
    const described = c?.description ? (c.type ? `${c.type}: ${c.description}` : c.description) : null;
    const title = described ?? s.title ?? s.prompt;
    return { subagent: k, callId: c?.callId ?? null, messageIndex: c?.messageIndex ?? null, title: title !== null ? oneLine(title) : null };
  });
}
