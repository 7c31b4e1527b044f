/** Builders for small sessions in tests. */
import type { Message, Part, ReportedUsage, Session } from '../../src/core/model';

let seq = 0;
export const text = (t: string): Part => ({ kind: 'text', text: t });
export const call = (id: string, name = 'Read', args = '{}'): Part => ({ kind: 'tool_call', id, name, args });
export const result = (callId: string, t = 'ok', isError = false): Part => ({ kind: 'tool_result', callId, text: t, isError });

export function msg(role: Message['role'], parts: Part[] | string, extra: Partial<Message> = {}): Message {
  return { id: `m${++seq}`, role, parts: typeof parts === 'string' ? [text(parts)] : parts, ...extra };
}
export const user = (t: string, extra: Partial<Message> = {}): Message => msg('user', t, extra);
export const assistant = (t: string | Part[], extra: Partial<Message> = {}): Message => msg('assistant', t, extra);
export const toolResult = (callId: string, t = 'ok'): Message => msg('user', [result(callId, t)]);

export function usage(input: number, cacheRead = 0, cacheWrite = 0, output = 10): ReportedUsage {
  return { convention: 'anthropic', input, cacheRead, cacheWrite, output };
}

export function session(messages: Message[], extra: Partial<Session> = {}): Session {
  return {
    id: 's',
    format: 'jsonl',
    systemPrompt: null,
    tools: [],
    messages,
    sourceCompactions: [],
    subagents: [],
    warnings: [],
    ...extra,
  };
}

/** A coding session: each turn a request, a read with a distinct result, and a decision (what a summarizer keeps). */
export function codingTurns(turns: number): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) {
    out.push(user(`Please fix handleRequest${t} in src/server/module${t}.ts, the port ${8000 + t} is wrong.`));
    out.push(
      assistant([{ kind: 'text', text: `Reading module${t} first.` }, call(`c${t}`, 'Read', `{"file_path":"src/server/module${t}.ts"}`)]),
    );
    out.push(msg('user', [result(`c${t}`, `export const port${t} = ${9000 + t};\n`.repeat(30))]));
    out.push(assistant(`The root cause is the default port ${9000 + t}, because config${t} is undefined. I decided to use ${8000 + t}.`));
  }
  return out;
}
