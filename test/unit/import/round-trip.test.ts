/**
 * Round trip: a session exported by src/core/export/writers.ts and imported back gives the same
 * messages (role, parts, text, tool call ids/names/args, results' callIds), message by message.
 *
 * Each target can carry less than the model: `expectedVia*` below spell out, in one place, exactly
 * what each format loses or reshapes, and the test asserts the import equals that — no more lost,
 * nothing else changed. Markdown is for reading only: no importer reads it back (aider's Markdown
 * is a different layout), so it is not round-tripped.
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportMessages, sessionInput, type TranscriptTarget } from '../../../src/core/export/writers';
import { importSource, stringSource } from '../../../src/core/import/index';
import type { Part, Role, Session } from '../../../src/core/model';
import { fileSource } from '../../../src/main/io/file-source';

interface Flat {
  readonly role: Role;
  readonly parts: readonly Part[];
}
interface Expected {
  readonly systemPrompt: string | null;
  readonly messages: readonly Flat[];
}

const textOf = (parts: readonly Part[]): string => parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n');

/**
 * OpenAI Chat Completions JSON and JSONL of messages (the same writer):
 * - a user/tool message with tool results becomes one `tool` message per result, then a `user`
 *   message with its text; the results lose `isError` (no error flag in Chat Completions) and `name`;
 * - other messages keep reasoning (as `reasoning_content`: all reasoning parts joined, first, the
 *   `redacted` flag lost), then their text parts joined by "\n" into one, then their tool calls;
 *   a `tool`-role message without results becomes `user`;
 * - media parts are lost (the model keeps no payload to write), and so are tool results on
 *   assistant/system messages;
 * - leading system messages (right after the system prompt) merge into the system prompt, keeping
 *   only their text: Chat Completions cannot tell the prompt from history system messages.
 */
function expectedViaOpenAI(s: Session): Expected {
  const out: Flat[] = [];
  for (const m of s.messages) {
    const text = textOf(m.parts);
    const results = m.parts.filter((p) => p.kind === 'tool_result');
    if (results.length > 0 && (m.role === 'tool' || m.role === 'user')) {
      for (const r of results)
        if (r.kind === 'tool_result')
          out.push({ role: 'tool', parts: [{ kind: 'tool_result', callId: r.callId, isError: false, text: r.text }] });
      if (text) out.push({ role: 'user', parts: [{ kind: 'text', text }] });
      continue;
    }
    const parts: Part[] = [];
    const reasoning = m.parts.flatMap((p) => (p.kind === 'reasoning' ? [p.text] : [])).join('\n');
    if (reasoning) parts.push({ kind: 'reasoning', text: reasoning });
    if (text) parts.push({ kind: 'text', text });
    for (const p of m.parts) if (p.kind === 'tool_call') parts.push({ kind: 'tool_call', id: p.id, name: p.name, args: p.args });
    out.push({ role: m.role === 'tool' ? 'user' : m.role, parts });
  }
  const system = s.systemPrompt ? [s.systemPrompt] : [];
  let lead = 0;
  while (out[lead]?.role === 'system') system.push(textOf(out[lead++]!.parts));
  return { systemPrompt: system.length ? system.join('\n\n') : null, messages: out.slice(lead) };
}

/** Tool arguments as Anthropic carries them: an `input` object, so the JSON text is re-serialised. */
function anthropicArgs(args: string): string {
  let input: unknown;
  try {
    input = JSON.parse(args);
  } catch {
    // Arguments that are not JSON are wrapped so they survive.
    return JSON.stringify({ _raw: args });
  }
  return typeof input === 'string' ? input : JSON.stringify(input);
}

/**
 * Anthropic Messages JSON:
 * - roles: `assistant` stays, everything else is `user` (system and tool messages included); a
 *   `tool` message is folded into the user message before it (Anthropic alternates roles);
 * - text, reasoning (with `redacted`), tool calls, and results (with `isError`) keep their order;
 * - tool-call args are re-serialised from the `input` object (whitespace and key spacing are not
 *   kept; text that is not JSON comes back as `{"_raw": …}`), results lose `name`;
 * - a media part becomes a text placeholder `[<mediaType> <source>]`.
 */
function expectedViaAnthropic(s: Session): Expected {
  const out: { role: Role; parts: Part[] }[] = [];
  for (const m of s.messages) {
    const role: Role = m.role === 'assistant' ? 'assistant' : 'user';
    const parts = m.parts.map((p): Part => {
      switch (p.kind) {
        case 'text':
          return p;
        case 'reasoning':
          return { kind: 'reasoning', text: p.text, ...(p.redacted ? { redacted: true } : {}) };
        case 'tool_call':
          return { kind: 'tool_call', id: p.id, name: p.name, args: anthropicArgs(p.args) };
        case 'tool_result':
          return { kind: 'tool_result', callId: p.callId, isError: p.isError, text: p.text };
        case 'media':
          return { kind: 'text', text: `[${p.mediaType}${p.source ? ` ${p.source}` : ''}]` };
      }
    });
    const last = out[out.length - 1];
    if (last && last.role === 'user' && role === 'user' && m.role === 'tool') last.parts.push(...parts);
    else out.push({ role, parts });
  }
  return { systemPrompt: s.systemPrompt || null, messages: out };
}

const EXPECTED: Record<'openai' | 'anthropic' | 'jsonl', { via: (s: Session) => Expected; formats: readonly string[] }> = {
  openai: { via: expectedViaOpenAI, formats: ['openai-chat'] },
  anthropic: { via: expectedViaAnthropic, formats: ['anthropic'] },
  // JSONL of messages is read by the generic importer, or by the Chat Completions one when a line has tool calls.
  jsonl: { via: expectedViaOpenAI, formats: ['jsonl', 'openai-chat'] },
};

const flat = (s: Pick<Session, 'systemPrompt' | 'messages'>): Expected => ({
  systemPrompt: s.systemPrompt,
  messages: s.messages.map((m) => ({ role: m.role, parts: m.parts })),
});

async function roundTrip(session: Session, target: TranscriptTarget): Promise<{ format: string; session: Session }> {
  const written = exportMessages(sessionInput(session), target);
  const out = await importSource(stringSource(`round-trip.${written.extension}`, written.text));
  expect(out.sessions).toHaveLength(1);
  return { format: out.format, session: out.sessions[0]! };
}

function expectSame(actual: Expected, expected: Expected): void {
  expect(actual.systemPrompt).toEqual(expected.systemPrompt);
  // Message by message first, for a readable failure; then the whole list (count included).
  const n = Math.min(actual.messages.length, expected.messages.length);
  for (let i = 0; i < n; i++) expect({ i, ...actual.messages[i]! }).toEqual({ i, ...expected.messages[i]! });
  expect(actual.messages).toEqual(expected.messages);
}

const dir = join(__dirname, '../../fixtures/import');
const FIXTURES = [
  'claude-code-session.jsonl',
  'codex-rollout.jsonl',
  'gemini-session.json',
  'gemini-session.jsonl',
  'openhands-events.json',
  'swe-agent.traj',
  'mini-swe-agent.traj.json',
  'anthropic-request.json',
  'chat-request.json',
  'responses.jsonl',
];

describe('round trip through the exporters', () => {
  for (const file of FIXTURES) {
    for (const target of ['openai', 'anthropic', 'jsonl'] as const) {
      it(`${file} → ${target} → import: the same messages, minus what ${target} cannot carry`, async () => {
        const original = (await importSource(fileSource(join(dir, file)))).sessions[0]!;
        const back = await roundTrip(original, target);
        expect(EXPECTED[target].formats).toContain(back.format);
        expectSame(flat(back.session), EXPECTED[target].via(original));
      });
    }
  }

  it('the losses are the documented ones (spot checks on the fixtures)', async () => {
    const cc = (await importSource(fileSource(join(dir, 'claude-code-session.jsonl')))).sessions[0]!;
    // OpenAI: reasoning survives as reasoning_content, the image and the error flag do not.
    const viaOpenAI = (await roundTrip(cc, 'openai')).session;
    expect(viaOpenAI.messages[0]!.parts.map((p) => p.kind)).toEqual(['text']);
    expect(viaOpenAI.messages[1]!.parts.map((p) => p.kind)).toEqual(['reasoning', 'text', 'tool_call']);
    const failed = viaOpenAI.messages.find((m) => m.parts.some((p) => p.kind === 'tool_result' && p.callId === 'toolu_03E'))!;
    expect(failed.parts[0]).toMatchObject({ isError: false });
    // Anthropic: the error flag survives, the image becomes a placeholder.
    const viaAnthropic = (await roundTrip(cc, 'anthropic')).session;
    expect(viaAnthropic.messages[0]!.parts[1]).toEqual({ kind: 'text', text: '[image/png]' });
    expect(viaAnthropic.messages[6]!.parts[0]).toMatchObject({ callId: 'toolu_03E', isError: true });
    // Codex: the developer message leads the history, so in Chat Completions it joins the system prompt.
    const codex = (await importSource(fileSource(join(dir, 'codex-rollout.jsonl')))).sessions[0]!;
    const codexBack = (await roundTrip(codex, 'openai')).session;
    expect(codexBack.systemPrompt).toBe(`${codex.systemPrompt}\n\n${textOf(codex.messages[0]!.parts)}`);
    expect(codexBack.messages).toHaveLength(codex.messages.length - 1);
  });
});

describe('round trip of generated sessions (property)', () => {
  const str = fc.string({ maxLength: 12 });
  const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,10}$/);
  const args = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((o) => JSON.stringify(o)),
    str,
  );
  const part: fc.Arbitrary<Part> = fc.oneof(
    str.map((text): Part => ({ kind: 'text', text })),
    fc
      .record({ text: str, redacted: fc.boolean() })
      .map(({ text, redacted }): Part => ({ kind: 'reasoning', text, ...(redacted ? { redacted: true } : {}) })),
    fc.record({ id, name: id, args }).map((c): Part => ({ kind: 'tool_call', ...c })),
    fc.record({ callId: id, isError: fc.boolean(), text: str }).map((r): Part => ({ kind: 'tool_result', ...r })),
    fc
      .record({ mediaType: fc.constantFrom('image/png', 'application/pdf'), source: fc.option(fc.webUrl(), { nil: undefined }) })
      .map(({ mediaType, source }): Part => ({ kind: 'media', mediaType, ...(source ? { source } : {}) })),
  );
  const message = fc.record({
    role: fc.constantFrom<Role>('user', 'assistant', 'tool', 'system'),
    parts: fc.array(part, { maxLength: 4 }),
  });
  const session = fc
    .record({
      systemPrompt: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null }),
      messages: fc.array(message, { minLength: 1, maxLength: 6 }),
    })
    .map((s): Session => ({
      id: 'gen',
      format: 'jsonl',
      systemPrompt: s.systemPrompt,
      tools: [],
      messages: s.messages.map((m, i) => ({ id: `m${i}`, ...m })),
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    }));

  for (const target of ['openai', 'anthropic', 'jsonl'] as const) {
    it(`any session → ${target} → import gives exactly the expected messages`, async () => {
      await fc.assert(
        fc.asyncProperty(session, async (s) => {
          const back = await roundTrip(s, target);
          expect(EXPECTED[target].formats).toContain(back.format);
          expectSame(flat(back.session), EXPECTED[target].via(s));
        }),
        { numRuns: 150 },
      );
    });
  }
});
