/**
 * A fake model behind test/helpers/http-server.ts that speaks the OpenAI chat-completions and the
 * Anthropic Messages protocols and answers from what it was sent, never from what it was told
 * elsewhere:
 * - a recall question ("… together with `CUE` …", "What exact error did `CUE` print?") is answered
 *   from the message of its input that holds the cue (and the one after it): the paths, errors,
 *   identifiers or commands written there. A cue no message holds gets "I don't know".
 * - otherwise it takes the next step: it repeats the last tool call it was sent (same tool, same
 *   arguments), or answers in text when there is none.
 * - `random`: each answer is the right one or "I don't know" at random (seeded), for replicates
 *   and "inconclusive".
 * - as a judge (a request that asks for CORRECT or INCORRECT): CORRECT when the answer holds the
 *   reference, or the last segment of a reference path ("fields.py" for
 *   "/testbed/src/marshmallow/fields.py"), which the deterministic match does not accept; else
 *   INCORRECT. `judgeReply` answers every grade with that text instead (a malformed grade).
 */
import type { Handler } from './http-server';

interface Turn {
  readonly text: string;
  readonly calls: { name: string; args: string }[];
}

/** The conversation of an OpenAI or Anthropic request body, as text per message (the system prompt first). */
function turnsOf(body: Record<string, unknown>): Turn[] {
  const out: Turn[] = [];
  if (typeof body['system'] === 'string') out.push({ text: body['system'], calls: [] });
  for (const m of (body['messages'] as Record<string, unknown>[]) ?? []) {
    const content = m['content'];
    const calls: { name: string; args: string }[] = [];
    let text = '';
    if (typeof content === 'string') text = content;
    else if (Array.isArray(content))
      for (const b of content as Record<string, unknown>[]) {
        if (b['type'] === 'text') text += `${b['text'] as string}\n`;
        if (b['type'] === 'tool_result') text += `${typeof b['content'] === 'string' ? b['content'] : JSON.stringify(b['content'])}\n`;
        if (b['type'] === 'tool_use') calls.push({ name: b['name'] as string, args: JSON.stringify(b['input']) });
      }
    for (const c of (m['tool_calls'] as { function: { name: string; arguments: string } }[] | undefined) ?? [])
      calls.push({ name: c.function.name, args: c.function.arguments });
    out.push({ text: text + calls.map((c) => `${c.name} ${c.args}`).join('\n'), calls });
  }
  return out;
}

const PATTERNS: Record<string, RegExp> = {
  path: /(?:[\w.-]+\/)+[\w.-]+\.\w{1,5}\b/g,
  error: /^.*(?:Error|FAIL|error:).*$/gm,
  identifier: /\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\w+_\w+)\b/g,
  command: /"command":\s*"([^"]+)"/g,
};

function kindOf(question: string): string {
  if (question.includes('file path')) return 'path';
  if (question.includes('exact error')) return 'error';
  if (question.includes('exact command')) return 'command';
  return 'identifier';
}

/** The answer to a recall question from the turns (the question's own turn excluded). */
export function recallAnswer(turns: readonly Turn[], question: string): string | null {
  const cue = /`([^`]+)`/.exec(question)?.[1];
  if (!cue) return null;
  const kind = kindOf(question);
  for (let i = 0; i < turns.length; i++) {
    if (!turns[i]!.text.includes(cue)) continue;
    const where = turns[i]!.text + '\n' + (turns[i + 1]?.text ?? '');
    const found = [...where.matchAll(PATTERNS[kind]!)].map((m) => (m[1] ?? m[0]).trim()).filter((v) => v !== cue && !cue.includes(v));
    if (found.length > 0) return [...new Set(found)].join('; ');
  }
  return null;
}

/** A tiny seeded generator (the test reruns the same "random" answers). */
function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The fake judge's grade of a grading prompt (src/core/probe/judge.ts judgePrompt). */
export function fakeGrade(prompt: string): string {
  const reference = /^Reference: (.*)$/m.exec(prompt)?.[1]?.trim().toLowerCase() ?? '';
  const answer = /^Answer: (.*)$/m.exec(prompt)?.[1]?.trim().toLowerCase() ?? '';
  const tail = reference.includes('/') ? reference.split('/').filter(Boolean).pop()! : null;
  return reference !== '' && (answer.includes(reference) || (tail !== null && answer.includes(tail))) ? 'CORRECT' : 'INCORRECT';
}

export function fakeModel(options: { random?: number; judgeReply?: string } = {}): Handler {
  const rand = options.random !== undefined ? seeded(options.random) : null;
  return (req, raw, res) => {
    const anthropic = (req.url ?? '').endsWith('/v1/messages');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      res.writeHead(400);
      res.end();
      return;
    }
    const turns = turnsOf(body);
    const last = turns[turns.length - 1];
    const asking = last?.text.includes('Answer from the conversation so far') === true;
    let text = '';
    let call: { name: string; args: string } | null = null;
    const grading = last?.text.includes('Reply with one word: CORRECT or INCORRECT') === true;
    if (grading) {
      text = options.judgeReply ?? fakeGrade(last!.text);
    } else if (asking) {
      const answer = recallAnswer(turns.slice(0, -1), last!.text);
      text = answer !== null && (!rand || rand() < 0.5) ? answer : "I don't know.";
    } else {
      for (const t of turns) if (t.calls.length > 0) call = t.calls[t.calls.length - 1]!;
      if (rand && rand() < 0.5) call = null;
      if (!call) text = 'Done.';
    }
    const usage = { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: Math.ceil(text.length / 4) + 1 };
    res.writeHead(200, { 'content-type': 'application/json' });
    if (anthropic) {
      const content = call
        ? [{ type: 'tool_use', id: 'toolu_fake', name: call.name, input: JSON.parse(call.args) as unknown }]
        : [{ type: 'text', text }];
      res.end(
        JSON.stringify({
          type: 'message',
          role: 'assistant',
          content,
          usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
        }),
      );
    } else {
      const message = call
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_fake', type: 'function', function: { name: call.name, arguments: call.args } }],
          }
        : { role: 'assistant', content: text };
      res.end(JSON.stringify({ choices: [{ message }], usage }));
    }
  };
}
