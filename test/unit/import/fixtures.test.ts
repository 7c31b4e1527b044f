/**
 * One snapshot per fixture (a stable text dump of the imported sessions); each fixture imported
 * with no format named gives the same result as with its format named; bad shapes fail clearly.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, type ImportOutcome } from '../../../src/core/import/index';
import { messageText, type Message, type Session } from '../../../src/core/model';
import { fileSource } from '../../../src/main/io/file-source';
import { dumpSessions } from '../../helpers/dump';

const dir = join(__dirname, '../../fixtures/import');
const expected: Record<string, string> = {
  'aider.chat.history.md': 'aider',
  'anthropic-request.json': 'anthropic',
  'anthropic-response.json': 'anthropic',
  'chat-request.json': 'openai-chat',
  'claude-code-session.jsonl': 'claude-code',
  'codex-rollout.jsonl': 'codex',
  'gemini-session.json': 'gemini-cli',
  'gemini-session.jsonl': 'gemini-cli',
  'langchain.json': 'langchain',
  'messages.jsonl': 'jsonl',
  'mini-swe-agent.traj.json': 'mini-swe-agent',
  'openai-chat-response.json': 'openai-chat',
  'openhands-events.json': 'openhands',
  'openhands-output.jsonl': 'openhands',
  'openhands-eval.jsonl': 'openhands',
  'otel.json': 'otel',
  'responses.jsonl': 'openai-responses',
  'sharegpt.json': 'sharegpt',
  'stream.jsonl': 'claude-stream-json',
  'swe-agent.traj': 'swe-agent',
};

const load = (file: string): Promise<ImportOutcome> => importSource(fileSource(join(dir, file)));
const texts = (s: Session): string[] => s.messages.map(messageText);
const indexOf = (s: Session, text: string): number => s.messages.findIndex((m) => messageText(m) === text);
const calls = (m: Message): string[] => m.parts.flatMap((p) => (p.kind === 'tool_call' ? [p.id] : []));

describe('fixtures', () => {
  it('every fixture has an expected format', () => {
    expect(readdirSync(dir).sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [file, format] of Object.entries(expected)) {
    it(`${file} → ${format}, same with or without the format named`, async () => {
      const auto = await importSource(fileSource(join(dir, file)));
      expect(auto.format).toBe(format);
      const named = await importSource(fileSource(join(dir, file)), { format: auto.format });
      expect(named.sessions).toEqual(auto.sessions);
      expect(dumpSessions(auto.format, auto.sessions)).toMatchSnapshot();
    });
  }

  it('keeps what each format says about usage and its convention', async () => {
    const a = await importSource(fileSource(join(dir, 'anthropic-request.json')));
    expect(a.sessions[0]!.messages.at(-1)!.usage).toEqual({
      convention: 'anthropic',
      input: 12,
      cacheRead: 900,
      cacheWrite: 50,
      output: 8,
    });
    const r = await importSource(fileSource(join(dir, 'responses.jsonl')));
    expect(r.sessions[0]!.messages.find((m) => m.usage)!.usage).toMatchObject({
      convention: 'openai',
      input: 120,
      cacheRead: 100,
      reasoning: 12,
    });
    const aider = await importSource(fileSource(join(dir, 'aider.chat.history.md')));
    expect(aider.sessions[0]!.messages.filter((m) => m.usage).map((m) => [m.usage!.input, m.usage!.output, m.usage!.coarse])).toEqual([
      [2_400, 104, true],
      [2_600, 80, true],
    ]);
  });
});

describe('Claude Code fixture', () => {
  it('merges split lines into one call and takes its usage once (the last copy)', async () => {
    const s = (await load('claude-code-session.jsonl')).sessions[0]!;
    const assistants = s.messages.filter((m) => m.role === 'assistant');
    // 10 API calls on the live chain (unique message.id), whatever the number of lines.
    expect(assistants).toHaveLength(10);
    const first = assistants[0]!;
    expect(first.parts.map((p) => p.kind)).toEqual(['reasoning', 'text', 'tool_call']);
    // The call's identity (message.id + requestId) keys it across files (a resumed session repeats it).
    expect(first.usage).toEqual({
      convention: 'anthropic',
      input: 4,
      cacheRead: 11_873,
      cacheWrite: 2_104,
      output: 156,
      callKey: 'msg_01A1:req_01A1',
    });
    // Summed over calls, each usage is counted once.
    expect(assistants.reduce((n, m) => n + (m.usage?.output ?? 0), 0)).toBe(156 + 88 + 140 + 71 + 133 + 24 + 151 + 18 + 97 + 15);
  });

  it('follows the live branch: the rewound exchange is not counted', async () => {
    const out = await load('claude-code-session.jsonl');
    const s = out.sessions[0]!;
    expect(texts(s)).not.toContain('Also add a test');
    expect(texts(s).some((t) => t.includes('unittest'))).toBe(false);
    expect(texts(s)).toContain('Also add a test, using pytest.mark.parametrize for "", " " and "\\t".');
    expect(out.warnings).toContain('2 message line(s) are off the main chain (rewinds or forks) and were left out');
  });

  it('keeps the sidechain as a subagent session, out of the main window', async () => {
    const s = (await load('claude-code-session.jsonl')).sessions[0]!;
    expect(s.subagents).toHaveLength(1);
    const sub = s.subagents[0]!;
    expect(sub.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(sub.messages[1]!.parts.find((p) => p.kind === 'tool_call')).toMatchObject({ id: 'toolu_S1G', name: 'Grep' });
    expect(s.messages.some((m) => m.sidechain || calls(m).includes('toolu_S1G'))).toBe(false);
    // The Task result the main agent saw is still there.
    expect(s.messages[4]!.parts[0]).toMatchObject({ kind: 'tool_result', callId: 'toolu_02T' });
  });

  it('records the compaction with tokens before/after and keeps the summary out of the history', async () => {
    const s = (await load('claude-code-session.jsonl')).sessions[0]!;
    expect(s.sourceCompactions).toHaveLength(1);
    const c = s.sourceCompactions[0]!;
    expect(c).toMatchObject({
      trigger: 'manual',
      tokensBefore: 15_574,
      tokensAfter: 2_210,
      atMessage: indexOf(s, 'Now add a CHANGELOG entry.'),
    });
    expect(c.summary).toMatch(/^This session is being continued/);
    expect(texts(s).some((t) => t.includes('being continued'))).toBe(false);
    // The chain crossed the boundary (logicalParentUuid): everything before it is still there.
    expect(texts(s)[0]).toMatch(/KeyError/);
  });

  it('skips and counts unknown line types, drops isMeta lines, keeps the image and the title', async () => {
    const out = await load('claude-code-session.jsonl');
    const s = out.sessions[0]!;
    expect(out.warnings).toContain('skipped 2 line(s) of unknown type "agent-color"');
    expect(texts(s).some((t) => t.includes('system-reminder'))).toBe(false);
    expect(s.messages[0]!.parts[1]).toMatchObject({ kind: 'media', mediaType: 'image/png' });
    expect(s.messages[6]!.parts[0]).toMatchObject({ kind: 'tool_result', callId: 'toolu_03E', isError: true });
    expect(s.title).toBe('Blank city name crashes forecast');
    expect(s.cwd).toBe('/home/dev/weather-cli');
  });
});

describe('Codex fixture', () => {
  it('builds the context from response items only: event_msg duplicates are ignored', async () => {
    const s = (await load('codex-rollout.jsonl')).sessions[0]!;
    expect(texts(s).filter((t) => t === 'Why does `cargo test -p parser` fail on main?')).toHaveLength(1);
    expect(texts(s).filter((t) => t.startsWith('The lexer stops keys'))).toHaveLength(1);
    expect(s.messages.filter((m) => m.role === 'assistant')).toHaveLength(7);
    expect(s.systemPrompt).toMatch(/^You are Codex/);
    expect(s.messages[0]).toMatchObject({ role: 'system' });
  });

  it('takes per-call usage from last_token_usage, once per call, and ignores a window of 0', async () => {
    const s = (await load('codex-rollout.jsonl')).sessions[0]!;
    expect(s.messages[3]!.usage).toEqual({
      convention: 'openai',
      input: 8_120,
      cacheRead: 3_072,
      cacheWrite: 0,
      output: 214,
      reasoning: 128,
    });
    expect(s.messages[7]!.usage).toMatchObject({ input: 8_790, output: 58 });
    expect(s.messages.filter((m) => m.role === 'assistant').every((m) => m.usage)).toBe(true);
    expect(s.reportedContextWindow).toBe(272_000);
  });

  it('records the compaction: tokens before from the last token_count, summary and kept messages from the replacement history', async () => {
    const s = (await load('codex-rollout.jsonl')).sessions[0]!;
    expect(s.sourceCompactions).toHaveLength(1);
    const c = s.sourceCompactions[0]!;
    expect(c.atMessage).toBe(indexOf(s, 'Now run clippy on the crate.'));
    expect(c.tokensBefore).toBe(9_377 + 41);
    expect(c.tokensAfter).toBeUndefined();
    expect(c.summary).toMatch(/^Another language model started.*\n\nThe parser lexer panicked/s);
    expect(c.keptIds!.map((id) => s.messages.findIndex((m) => m.id === id))).toEqual([0, 1, 2, 8]);
  });
});

describe('Gemini CLI fixtures', () => {
  it('JSON: a gemini record is the call, its toolCalls the results; thoughts count as output', async () => {
    const out = await load('gemini-session.json');
    const s = out.sessions[0]!;
    expect(s.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(calls(s.messages[1]!)).toEqual(['read_file-1773073215002-0', 'run_shell_command-1773073215002-1']);
    expect(s.messages[2]!.parts.map((p) => (p.kind === 'tool_result' ? [p.callId, p.isError, p.name] : null))).toEqual([
      ['read_file-1773073215002-0', false, 'read_file'],
      ['run_shell_command-1773073215002-1', true, 'run_shell_command'],
    ]);
    expect(s.messages[1]!.usage).toEqual({
      convention: 'openai',
      input: 9_412,
      cacheRead: 0,
      cacheWrite: 0,
      output: 61 + 118,
      reasoning: 118,
    });
    expect(out.warnings.join()).toMatch(/skipped 1 record/);
    expect(s.title).toBe('Find why the nightly backup script skips /srv/media');
  });

  it('JSONL: a record written again replaces its copy, $rewindTo drops the rewound exchange, $set patches the metadata', async () => {
    const out = await load('gemini-session.jsonl');
    const s = out.sessions[0]!;
    expect(texts(s)).not.toContain('Delete them all.');
    expect(texts(s)).not.toContain('Deleting the three TODO lines now.');
    expect(s.messages.filter((m) => m.role === 'assistant')).toHaveLength(3);
    expect(s.messages[1]!.usage).toMatchObject({ input: 7_310 });
    expect(s.messages[2]!.parts[0]).toMatchObject({ kind: 'tool_result', callId: 'search_file_content-1777713295030-0' });
    expect(s.title).toBe('Count TODOs in src and draft issues');
    expect(out.warnings).toContain('2 record(s) were rewound ($rewindTo) and left out');
  });
});

describe('OpenHands fixtures', () => {
  it('event list: actions of one model response are one call with the arguments the model sent; condensation is recorded', async () => {
    const out = await load('openhands-events.json');
    const s = out.sessions[0]!;
    expect(s.systemPrompt).toMatch(/^You are OpenHands agent/);
    const two = s.messages[3]!;
    expect(calls(two)).toEqual(['toolu_a2', 'toolu_a3']);
    // Not OpenHands' own action args (impl_source, …): what the model sent.
    expect(two.parts[2]).toMatchObject({
      kind: 'tool_call',
      name: 'think',
      args: '{"thought":"Also check the password length rule in forms.py."}',
    });
    expect(two.parts[1]).toMatchObject({ kind: 'tool_call', name: 'str_replace_editor' });
    expect(two.parts[1]!.kind === 'tool_call' && two.parts[1]!.args.includes('impl_source')).toBe(false);
    expect(s.messages.filter((m) => m.role === 'assistant')).toHaveLength(4);
    expect(s.sourceCompactions).toHaveLength(1);
    const c = s.sourceCompactions[0]!;
    expect(c.droppedIds!.map((id) => s.messages.findIndex((m) => m.id === id))).toEqual([1, 2]);
    expect(c.summary).toMatch(/^USER_CONTEXT/);
    expect(c.atMessage).toBe(6);
    expect(out.warnings.join()).toMatch(/skipped 3 event\(s\)/);
  });

  it('eval output.jsonl: one session per instance', async () => {
    const out = await load('openhands-output.jsonl');
    expect(out.sessions.map((s) => s.id)).toEqual(['un33k__python-slugify-142', 'example__dates-7']);
    const [a, b] = out.sessions as [Session, Session];
    expect(a.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(a.sourceCompactions).toEqual([]);
    expect(b.sourceCompactions).toHaveLength(1);
    expect(b.sourceCompactions[0]!.droppedIds!.map((id) => b.messages.findIndex((m) => m.id === id))).toEqual([1, 2]);
    expect(b.messages[4]!.parts[0]).toMatchObject({ kind: 'tool_result', callId: 'toolu_c2', isError: true });
    // litellm usage: prompt includes the cache; Anthropic's cache writes are kept alongside.
    expect(a.messages[1]!.usage).toEqual({ convention: 'openai', input: 6_100, cacheRead: 0, cacheWrite: 6_096, output: 70 });
  });
});

describe('SWE-agent, mini-swe-agent and single responses', () => {
  it('SWE-agent: history is the context; results answer tool_call_ids; usage is aggregate only', async () => {
    const out = await load('swe-agent.traj');
    const s = out.sessions[0]!;
    expect(s.systemPrompt).toMatch(/^SETTING: You are an autonomous programmer/);
    expect(s.model).toBe('claude-sonnet-4-20250514');
    // The demonstration is sent as a user message, so it stays in the history.
    expect(texts(s)[0]).toMatch(/^Here is a demonstration/);
    expect(s.messages.filter((m) => m.role === 'tool').map((m) => (m.parts[0]!.kind === 'tool_result' ? m.parts[0]!.callId : ''))).toEqual([
      'call_h1',
      'call_h2',
      'call_h3',
    ]);
    expect(s.messages.some((m) => m.usage)).toBe(false);
    expect(out.warnings.join()).toMatch(/aggregate: 14873 tokens sent over 3 calls/);
  });

  it('mini-swe-agent: per-call usage from extra.response', async () => {
    const s = (await load('mini-swe-agent.traj.json')).sessions[0]!;
    expect(s.messages.filter((m) => m.role === 'assistant').map((m) => [m.usage?.input, m.usage?.cacheRead, m.usage?.output])).toEqual([
      [2_210, 0, 61],
      [2_390, 2_206, 74],
      [2_530, 2_386, 41],
    ]);
    expect(s.model).toBe('anthropic/claude-sonnet-4-5-20250929');
  });

  it('a Chat Completions response and an Anthropic response: one call with its usage', async () => {
    const chat = (await load('openai-chat-response.json')).sessions[0]!;
    expect(chat.messages).toHaveLength(1);
    expect(calls(chat.messages[0]!)).toEqual(['call_Qm3vT8', 'call_Zk1pW4']);
    expect(chat.messages[0]!.usage).toEqual({
      convention: 'openai',
      input: 1_312,
      cacheRead: 1_024,
      cacheWrite: 0,
      output: 58,
      reasoning: 0,
    });
    const anth = (await load('anthropic-response.json')).sessions[0]!;
    expect(anth.messages[0]!.parts.map((p) => (p.kind === 'reasoning' ? `reasoning${p.redacted ? '!' : ''}` : p.kind))).toEqual([
      'reasoning',
      'reasoning!',
      'text',
      'tool_call',
    ]);
    expect(anth.messages[0]!.usage).toEqual({ convention: 'anthropic', input: 21, cacheRead: 18_944, cacheWrite: 1_530, output: 214 });
  });
});
