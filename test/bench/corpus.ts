/** Generated inputs for the benchmarks: deterministic, in memory or in os.tmpdir(). */
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import type { Message, Session } from '../../src/core/model';

const WORDS = [
  'the',
  'order',
  'total',
  'function',
  'return',
  'value',
  'error',
  'config',
  'session',
  'window',
  'token',
  'summary',
  'agent',
  'file',
  'path',
  'test',
];
let seed = 42;
const rnd = (): number => ((seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff), seed / 0x7fffffff);

export function shortTexts(n: number): string[] {
  seed = 42;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 10;
    const len = 20 + Math.floor(rnd() * 60);
    if (kind === 7) out.push(`const x${i} = compute(${i}, [${i % 13}, ${i % 7}]); // ${WORDS[i % WORDS.length]}`);
    else if (kind === 9) out.push('日本語のテキスト、中文文本 ' + i);
    else out.push(Array.from({ length: len / 4 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' '));
  }
  return out;
}

/** A session of `steps` LLM calls, each a user message, an assistant call and a tool result. */
export function syntheticSession(steps: number): Session {
  const messages: Message[] = [];
  for (let i = 0; i < steps; i++) {
    if (i % 5 === 0)
      messages.push({ id: `u${i}`, role: 'user', parts: [{ kind: 'text', text: `Please handle task ${i} in src/module${i % 50}.ts` }] });
    messages.push({
      id: `a${i}`,
      role: 'assistant',
      parts: [
        { kind: 'text', text: `Working on step ${i}` },
        { kind: 'tool_call', id: `c${i}`, name: 'Read', args: `{"path":"src/module${i % 50}.ts"}` },
      ],
    });
    messages.push({
      id: `r${i}`,
      role: 'user',
      parts: [{ kind: 'tool_result', callId: `c${i}`, isError: false, text: `line ${i}\n`.repeat(5 + (i % 40)) }],
    });
  }
  return {
    id: 'bench',
    format: 'jsonl',
    model: 'gpt-4o',
    systemPrompt: 'You are a coding agent.',
    tools: [],
    messages,
    sourceCompactions: [],
    subagents: [],
    warnings: [],
  };
}

/** What bounds a generated Claude Code session: its size in MB, or its number of LLM calls. */
export interface ClaudeCodeCorpusOptions {
  /** Stop after this many LLM calls (assistant responses) instead of at a size. */
  readonly calls?: number;
}

/** The model the generated sessions name, and its auto-compact threshold (docs/policies.md, claude-code preset): min(floor((200,000 − 20,000) × 1), 200,000 − 33,000). */
const CC_MODEL = 'claude-sonnet-4-5-20250929';
const CC_THRESHOLD = 167_000;
/** System prompt + tool definitions as the provider counts them: in every prompt, never logged. */
const CC_BASE = 15_400;
/** The agent's own tokens per character (the provider's count, not ours). */
const ccTokens = (chars: number): number => Math.ceil(chars / 3.6);
const CODE = [
  'const',
  'return',
  'await',
  'function',
  'import',
  'export',
  'if',
  'else',
  'for',
  'throw',
  'new',
  'Error',
  'value',
  'result',
  'config',
  'session',
  'window',
  'tokens',
  'order',
  'total',
];
const codeLines = (n: number, tag: number): string => {
  let out = '';
  for (let i = 0; i < n; i++)
    out += `${String(i + 1).padStart(4)}\t${CODE[(i * 7 + tag) % CODE.length]} ${CODE[(i * 3 + tag) % CODE.length]}_${tag % 97}(${i}) { ${CODE[(i + tag) % CODE.length]} }\n`;
  return out;
};
const ccUuid = (n: number): string => `0c0ffee0-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const TOOLS = ['Read', 'Grep', 'Bash', 'Edit', 'Glob'] as const;

/**
 * A Claude Code session log, line by line, shaped like a real one (docs/reference/formats.md, Claude Code): an envelope with
 * uuid / parentUuid chains; one API response split over two lines (text, then tool_use) sharing
 * `message.id` and repeating its usage; `message.usage` on every assistant line with input,
 * cache read, cache creation and output growing with the context and reset by a compaction; and a
 * `compact_boundary` system line (compactMetadata { trigger: 'auto', preTokens }) followed by the
 * `isCompactSummary` user line whenever the prompt would pass Claude Code's auto-compact threshold.
 * Deterministic: the same bound gives the same bytes.
 */
export function* claudeCodeLines(bound: { readonly megabytes?: number; readonly calls?: number }): Generator<string> {
  seed = 7;
  const maxBytes = bound.megabytes !== undefined ? bound.megabytes * 1_000_000 : Infinity;
  const maxCalls = bound.calls ?? Infinity;
  let bytes = 0;
  let calls = 0;
  let n = 0;
  let parent: string | null = null;
  let time = Date.UTC(2026, 0, 5, 9, 0, 0);
  /** Tokens of the conversation since the last compaction, as the provider counts them. */
  let context = 0;
  /** The previous call's prompt: the cached prefix of the next one (0 after a compaction). */
  let cached = 0;
  let compactions = 0;
  const envelope = (type: string, uuid: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    parentUuid: parent,
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/orders-service',
    sessionId: '5e55b1d0-bench-4000-8000-000000000001',
    version: '2.0.14',
    gitBranch: 'main',
    type,
    ...extra,
    uuid,
    timestamp: new Date(time).toISOString(),
  });
  const emit = (record: Record<string, unknown>): string => {
    const line = JSON.stringify(record) + '\n';
    bytes += line.length;
    parent = record['uuid'] as string;
    time += 1_000 + Math.floor(rnd() * 6_000);
    return line;
  };
  const done = (): boolean => bytes >= maxBytes || calls >= maxCalls;

  while (!done()) {
    // A user turn: a typed prompt.
    const prompt = `Please look at ${WORDS[n % WORDS.length]} handling in src/orders/module${n % 40}.ts: ${Array.from({ length: 10 + Math.floor(rnd() * 40) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ')}`;
    yield emit(envelope('user', ccUuid(n++), { message: { role: 'user', content: prompt } }));
    context += ccTokens(prompt.length) + 4;
    const callsInTurn = 3 + Math.floor(rnd() * 22);
    for (let c = 0; c < callsInTurn && !done(); c++) {
      const last = c === callsInTurn - 1;
      const text = last
        ? `Done: ${prompt.slice(0, 120)}. The change is in place and the tests pass.`
        : `Let me check ${WORDS[(n + c) % WORDS.length]} in module${(n + c) % 40}.`;
      const tool = TOOLS[(n + c) % TOOLS.length]!;
      const input =
        tool === 'Bash'
          ? { command: `npm test -- module${(n + c) % 40}`, description: 'Run the tests' }
          : { file_path: `/home/dev/orders-service/src/orders/module${(n + c) % 40}.ts` };
      const outChars = text.length + (last ? 0 : JSON.stringify(input).length + 40);
      // The prompt of this call, as the provider would report it; compact first when it passes the threshold.
      if (CC_BASE + context > CC_THRESHOLD) {
        const preTokens = CC_BASE + context;
        const boundary = ccUuid(n++);
        const logical = parent;
        parent = null;
        yield emit({
          ...envelope('system', boundary, {
            subtype: 'compact_boundary',
            content: 'Conversation compacted',
            isMeta: false,
            level: 'info',
            logicalParentUuid: logical,
            compactMetadata: { trigger: 'auto', preTokens },
          }),
        });
        const summary = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\n${Array.from({ length: 60 }, (_, i) => `- ${WORDS[(i + compactions) % WORDS.length]} of module${(i * 7 + compactions) % 40}.ts was ${i % 3 === 0 ? 'fixed' : 'read'}`).join('\n')}\nPlease continue the conversation from where we left it off without asking the user any further questions.`;
        yield emit(
          envelope('user', ccUuid(n++), {
            isCompactSummary: true,
            isVisibleInTranscriptOnly: true,
            message: { role: 'user', content: summary },
          }),
        );
        context = ccTokens(summary.length) + 4;
        cached = 0;
        compactions++;
      }
      const promptTokens = CC_BASE + context;
      // What the previous call sent is cached (system + tools stay cached across a compaction).
      const cacheRead = cached > 0 ? cached : CC_BASE;
      const fresh = 1 + Math.floor(rnd() * 8);
      const usage = {
        input_tokens: fresh,
        cache_creation_input_tokens: Math.max(0, promptTokens - cacheRead - fresh),
        cache_read_input_tokens: cacheRead,
        output_tokens: ccTokens(outChars) + 20,
        service_tier: 'standard',
      };
      const id = `msg_bench${calls.toString(36).padStart(8, '0')}`;
      const requestId = `req_bench${calls.toString(36).padStart(8, '0')}`;
      const message = (content: unknown[], out: number, stop: string | null): Record<string, unknown> => ({
        id,
        type: 'message',
        role: 'assistant',
        model: CC_MODEL,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: { ...usage, output_tokens: out },
      });
      // One response, two lines: its text, then its tool call (usage repeated; the last copy is final).
      yield emit(
        envelope('assistant', ccUuid(n++), {
          requestId,
          message: message([{ type: 'text', text }], last ? usage.output_tokens : 12, last ? 'end_turn' : null),
        }),
      );
      calls++;
      cached = promptTokens;
      context += ccTokens(outChars) + 4;
      if (last) break;
      const toolId = `toolu_bench${calls.toString(36).padStart(8, '0')}`;
      yield emit(
        envelope('assistant', ccUuid(n++), {
          requestId,
          message: message([{ type: 'tool_use', id: toolId, name: tool, input }], usage.output_tokens, 'tool_use'),
        }),
      );
      const big = rnd() < 0.08;
      const resultText =
        tool === 'Bash'
          ? `> npm test\n${codeLines(big ? 120 : 8 + Math.floor(rnd() * 30), n)}Tests: ${n % 50} passed`
          : codeLines(big ? 160 : 10 + Math.floor(rnd() * 45), n);
      yield emit(
        envelope('user', ccUuid(n++), {
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: resultText }] },
          toolUseResult: {
            type: 'text',
            file: { filePath: (input as { file_path?: string }).file_path ?? 'bash', numLines: resultText.split('\n').length },
          },
        }),
      );
      context += ccTokens(resultText.length) + 8;
    }
  }
}

/**
 * Writes a Claude Code JSONL of about `megabytes` MB (or of `options.calls` LLM calls, like a real
 * session: see claudeCodeLines); resolves with its line count.
 */
export async function writeClaudeCodeJsonl(path: string, megabytes: number, options: ClaudeCodeCorpusOptions = {}): Promise<number> {
  const out = createWriteStream(path);
  let n = 0;
  for (const line of claudeCodeLines(options.calls !== undefined ? { calls: options.calls } : { megabytes })) {
    n++;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return n;
}

/** The same session as one string (for the in-memory benches). */
export function claudeCodeText(bound: { readonly megabytes?: number; readonly calls?: number }): string {
  const parts: string[] = [];
  for (const line of claudeCodeLines(bound)) parts.push(line);
  return parts.join('');
}

/**
 * `writeClaudeCodeJsonl` in a child process: generating 100 MB of lines leaves garbage that the
 * bench's own thread would otherwise collect in the middle of the stalls it measures.
 */
export function writeClaudeCodeJsonlApart(path: string, megabytes: number): void {
  const here = dirname(fileURLToPath(import.meta.url));
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, 'corpus.ts'), path, String(megabytes)], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`generating ${path} failed (exit ${r.status})`);
}

// `node --import tsx corpus.ts FILE MB` writes the corpus (see writeClaudeCodeJsonlApart).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.length === 4) {
  await writeClaudeCodeJsonl(process.argv[2]!, Number(process.argv[3]));
}

/** The model and window the generated Codex rollouts name; Codex compacts near 90% of the window. */
const CODEX_MODEL = 'gpt-5-codex';
const CODEX_WINDOW = 272_000;
const CODEX_COMPACT_AT = 244_800;
const CODEX_SESSION = '0199a3c4-bench-7a80-9b1c-2d3e4f5a6b7c';

/**
 * A Codex CLI rollout, line by line, shaped like a real one (docs/reference/formats.md, Codex CLI, the fixture
 * codex-rollout.jsonl): `session_meta` with the base instructions; per turn a `turn_context`, the
 * user's message as a response_item and its `user_message` event; per call a `reasoning` item
 * (summary and encrypted content) with its `agent_reasoning` event, a `function_call` (or the
 * final assistant message with its `agent_message` event), then the `token_count` event with
 * total and last usage (input, cached input, output, reasoning output), the window and rate
 * limits; tool output as `exec_command_end` event and `function_call_output` item; a `compacted`
 * line (the user's messages kept, the summary as a user message) when the context passes the
 * auto-compact point. Items carry no id (Codex strips them), so ids are generated. Deterministic.
 */
export function* codexLines(bound: { readonly megabytes?: number; readonly calls?: number }): Generator<string> {
  seed = 11;
  const maxBytes = bound.megabytes !== undefined ? bound.megabytes * 1_000_000 : Infinity;
  const maxCalls = bound.calls ?? Infinity;
  let bytes = 0;
  let calls = 0;
  let time = Date.UTC(2026, 1, 17, 8, 30, 0);
  let context = 0;
  let cached = 0;
  const total = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: 0 };
  const prompts: string[] = [];
  const emit = (type: string, payload: Record<string, unknown>): string => {
    const line = JSON.stringify({ timestamp: new Date(time).toISOString(), type, payload }) + '\n';
    bytes += line.length;
    time += 300 + Math.floor(rnd() * 4_000);
    return line;
  };
  const done = (): boolean => bytes >= maxBytes || calls >= maxCalls;
  const instructions = `You are Codex, a coding agent based on GPT-5. You and the user share the same workspace and collaborate to achieve the user's goals.\n${codeLines(40, 3)}`;
  yield emit('session_meta', {
    id: CODEX_SESSION,
    timestamp: new Date(time).toISOString(),
    cwd: '/home/dev/orders-service',
    originator: 'codex_cli_rs',
    cli_version: '0.46.0',
    source: 'cli',
    model_provider: 'openai',
    base_instructions: { text: instructions },
  });
  const context0 = ccTokens(instructions.length) + 900;
  context = context0;
  let turn = 0;
  yield emit('response_item', {
    type: 'message',
    role: 'user',
    content: [
      {
        type: 'input_text',
        text: '<environment_context>\n  <cwd>/home/dev/orders-service</cwd>\n  <approval_policy>on-request</approval_policy>\n  <shell>bash</shell>\n</environment_context>',
      },
    ],
  });
  while (!done()) {
    turn++;
    yield emit('turn_context', {
      turn_id: `turn-${turn}`,
      cwd: '/home/dev/orders-service',
      approval_policy: 'on-request',
      sandbox_policy: { type: 'workspace-write', network_access: false },
      model: CODEX_MODEL,
      effort: 'medium',
      summary: 'auto',
    });
    yield emit('event_msg', { type: 'task_started', turn_id: `turn-${turn}`, model_context_window: CODEX_WINDOW });
    const prompt = `Please look at ${WORDS[turn % WORDS.length]} handling in src/orders/module${turn % 40}.ts: ${Array.from({ length: 10 + Math.floor(rnd() * 40) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ')}`;
    prompts.push(prompt);
    yield emit('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
    yield emit('event_msg', { type: 'user_message', message: prompt, images: [] });
    context += ccTokens(prompt.length) + 4;
    const callsInTurn = 3 + Math.floor(rnd() * 22);
    for (let c = 0; c < callsInTurn && !done(); c++) {
      if (context > CODEX_COMPACT_AT) {
        const summary = `Summary of the work so far:\n${Array.from({ length: 60 }, (_, i) => `- ${WORDS[(i + turn) % WORDS.length]} of module${(i * 7 + turn) % 40}.ts was ${i % 3 === 0 ? 'fixed' : 'read'}`).join('\n')}`;
        yield emit('compacted', {
          message: '',
          replacement_history: [
            ...prompts.slice(-20).map((p) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text: p }] })),
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: summary }] },
          ],
        });
        yield emit('event_msg', { type: 'context_compacted' });
        context = context0 + ccTokens(summary.length) + 20 * 30;
        cached = 0;
      }
      const last = c === callsInTurn - 1;
      const thought = `**Checking ${WORDS[(turn + c) % WORDS.length]}**\n\nLook at module${(turn + c) % 40} before changing it.`;
      yield emit('response_item', {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: thought }],
        content: null,
        encrypted_content: `gAAAAAB${'x'.repeat(200 + Math.floor(rnd() * 600))}`,
      });
      yield emit('event_msg', { type: 'agent_reasoning', text: thought });
      const text = `Done: ${prompt.slice(0, 120)}. The change is in place and the tests pass.`;
      const args = JSON.stringify({
        command: [
          'bash',
          '-lc',
          c % 3 === 0 ? `npm test -- module${(turn + c) % 40}` : `sed -n 1,200p src/orders/module${(turn + c) % 40}.ts`,
        ],
        workdir: '/home/dev/orders-service',
      });
      if (last) {
        yield emit('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
        yield emit('event_msg', { type: 'agent_message', message: text });
      } else yield emit('response_item', { type: 'function_call', name: 'shell', arguments: args, call_id: `call_${calls.toString(36)}` });
      const output = ccTokens((last ? text.length : args.length) + thought.length) + 20;
      const reasoningOut = ccTokens(thought.length);
      const input = context;
      const cachedIn = Math.min(cached, input);
      const usage = {
        input_tokens: input,
        cached_input_tokens: cachedIn,
        output_tokens: output,
        reasoning_output_tokens: reasoningOut,
        total_tokens: input + output,
      };
      total.input_tokens += input;
      total.cached_input_tokens += cachedIn;
      total.output_tokens += output;
      total.reasoning_output_tokens += reasoningOut;
      total.total_tokens += input + output;
      yield emit('event_msg', {
        type: 'token_count',
        info: { total_token_usage: { ...total }, last_token_usage: usage, model_context_window: CODEX_WINDOW },
        rate_limits: {
          primary: { used_percent: (calls % 100) / 1.5, window_minutes: 300, resets_in_seconds: 9000 },
          secondary: { used_percent: 12.5, window_minutes: 10080, resets_in_seconds: 400000 },
        },
      });
      calls++;
      cached = input;
      context += output + 4;
      if (last) break;
      const big = rnd() < 0.08;
      const result =
        c % 3 === 0
          ? `> npm test\n${codeLines(big ? 120 : 8 + Math.floor(rnd() * 30), turn + c)}Tests: ${turn % 50} passed`
          : codeLines(big ? 160 : 10 + Math.floor(rnd() * 45), turn + c);
      yield emit('event_msg', {
        type: 'exec_command_end',
        call_id: `call_${(calls - 1).toString(36)}`,
        stdout: '',
        stderr: '',
        exit_code: 0,
      });
      yield emit('response_item', {
        type: 'function_call_output',
        call_id: `call_${(calls - 1).toString(36)}`,
        output: JSON.stringify({ output: result, metadata: { exit_code: 0, duration_seconds: 1.2 } }),
      });
      context += ccTokens(result.length) + 8;
    }
    yield emit('event_msg', { type: 'task_complete', turn_id: `turn-${turn}`, last_agent_message: 'Done.' });
  }
}

/** Writes a Codex rollout of about `megabytes` MB (see codexLines); resolves with its line count. */
export async function writeCodexJsonl(path: string, megabytes: number): Promise<number> {
  const out = createWriteStream(path);
  let n = 0;
  for (const line of codexLines({ megabytes })) {
    n++;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return n;
}

/**
 * A JSONL of `{role, content}` messages (the generic format, as the exporter writes it) of about
 * `megabytes` MB: a system line, then prompts, answers with their model and usage, and tool
 * output as user text (no tool calls, which would make it OpenAI chat). Deterministic.
 */
export async function writeMessagesJsonl(path: string, megabytes: number): Promise<number> {
  seed = 13;
  const out = createWriteStream(path);
  let bytes = 0;
  let n = 0;
  let context = 2_000;
  const write = async (record: Record<string, unknown>): Promise<void> => {
    const line = JSON.stringify(record) + '\n';
    bytes += line.length;
    n++;
    if (!out.write(line)) await once(out, 'drain');
  };
  await write({ role: 'system', content: 'You are a coding agent.' });
  for (let i = 0; bytes < megabytes * 1_000_000; i++) {
    const prompt =
      i % 6 === 0
        ? `Please look at module${i % 40}.ts: ${WORDS[i % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]}`
        : `Output of step ${i}:\n${codeLines(10 + Math.floor(rnd() * 45), i)}`;
    await write({ role: 'user', content: prompt });
    context += ccTokens(prompt.length);
    const answer = `Step ${i}: checking ${WORDS[i % WORDS.length]} in module${i % 40}.ts next.`;
    await write({
      role: 'assistant',
      content: answer,
      model: 'gpt-4o',
      usage: {
        prompt_tokens: context,
        completion_tokens: ccTokens(answer.length),
        prompt_tokens_details: { cached_tokens: Math.max(0, context - 400) },
      },
    });
    context += ccTokens(answer.length);
    if (context > 120_000) context = 2_000;
  }
  out.end();
  await once(out, 'finish');
  return n;
}
