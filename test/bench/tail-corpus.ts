/**
 * Sessions of the formats the live tail follows without a line fast path (docs/user-guide.md "Live tail"),
 * at any size, for test/bench/tail.bench.ts. Each is the shape of its fixture in
 * test/fixtures/import scaled up: the fixture's turn repeated with its own ids, texts and usage, and
 * tool output of varying length (10–45 lines of code, as agents read files). A line format grows by
 * lines; a JSON document is written again whole with one more turn, as its agent saves it.
 */
import { appendFileSync, writeFileSync } from 'node:fs';

/** Deterministic lengths (the same file on every run). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31), s / 2 ** 31);
}
const code = (turn: number, lines: number): string =>
  Array.from(
    { length: lines },
    (_, j) => `${j + 1}:    const value${(turn + j) % 97} = compute${j % 13}(input${turn % 7}, ${(turn * 7 + j) % 1000}); // step ${turn}`,
  ).join('\n');
const iso = (turn: number, k = 0): string => new Date(Date.UTC(2026, 4, 2, 9) + turn * 20_000 + k * 1000).toISOString();

/** A format's session: `write` makes it at about `mb` MB (returns its turns), `append` adds turn `n` after it. */
export interface TailCorpus {
  readonly write: (path: string, mb: number) => Promise<number>;
  readonly append: (path: string, n: number) => void;
}

/** A document format: the whole text for `turns` turns, plus the turn after the last written. */
function documentCorpus(text: (turns: readonly string[]) => string, turn: (t: number, rnd: () => number) => string): TailCorpus {
  const made = new Map<string, string[]>();
  return {
    write: async (path, mb) => {
      const rnd = lcg(29);
      const turns: string[] = [];
      for (let bytes = 0, t = 0; bytes < mb * 1_000_000; t++) {
        const s = turn(t, rnd);
        turns.push(s);
        bytes += s.length + 2;
      }
      made.set(path, turns);
      writeFileSync(path, text(turns));
      return turns.length;
    },
    append: (path, n) => {
      const turns = made.get(path);
      if (!turns) throw new Error(`${path}: not written by this corpus`);
      turns.push(turn(turns.length, lcg(n + 1)));
      writeFileSync(path, text(turns));
    },
  };
}

/** Gemini CLI's JSONL session (fixture gemini-session.jsonl): a header, then per turn a prompt, a `$set`, the call while it runs and again with its result and tokens, and the answer. */
function geminiTurnLines(t: number, rnd: () => number): string[] {
  const call = `read_file-${1_777_713_295_030 + t}-0`;
  const output = code(t, 10 + Math.floor(rnd() * 35));
  const tokens = { input: 7000 + t * 3, output: 38, cached: 6000, thoughts: 52, tool: 0, total: 7090 + t * 3 };
  const toolCall = {
    id: call,
    name: 'read_file',
    args: { absolute_path: `/w/src/module${t % 40}.ts` },
    status: 'executing',
    timestamp: iso(t, 1),
  };
  return [
    JSON.stringify({
      id: `u-${t}`,
      timestamp: iso(t),
      type: 'user',
      content: [{ text: `Look at src/module${t % 40}.ts and fix step ${t}.` }],
    }),
    JSON.stringify({ $set: { lastUpdated: iso(t) } }),
    JSON.stringify({
      id: `g-${t}`,
      timestamp: iso(t, 1),
      type: 'gemini',
      content: '',
      thoughts: [],
      model: 'gemini-2.5-flash',
      toolCalls: [toolCall],
    }),
    JSON.stringify({
      id: `g-${t}`,
      timestamp: iso(t, 1),
      type: 'gemini',
      content: '',
      thoughts: [{ subject: 'Reading', description: `Read module${t % 40}.`, timestamp: iso(t, 1) }],
      tokens,
      model: 'gemini-2.5-flash',
      toolCalls: [
        {
          ...toolCall,
          result: [{ functionResponse: { id: call, name: 'read_file', response: { output } } }],
          status: 'success',
          resultDisplay: '',
          displayName: 'ReadFile',
        },
      ],
    }),
    JSON.stringify({
      id: `g-${t}-a`,
      timestamp: iso(t, 2),
      type: 'gemini',
      content: `Step ${t}: module${t % 40}.ts reads input${t % 7}; the fix is in compute${t % 13}.`,
      thoughts: [],
      tokens: { ...tokens, input: tokens.input + 600, total: tokens.total + 600 },
      model: 'gemini-2.5-flash',
    }),
  ];
}
export const geminiJsonl: TailCorpus = {
  write: async (path, mb) => {
    const rnd = lcg(29);
    const out: string[] = [
      JSON.stringify({
        sessionId: 'c8f2d0e3-4051-4b6c-9d7e-8f9a0b1c2d3e',
        projectHash: '2a4c'.repeat(16),
        startTime: iso(0),
        lastUpdated: iso(0),
        kind: 'main',
      }),
    ];
    let bytes = 0;
    let t = 0;
    for (; bytes < mb * 1_000_000; t++) {
      for (const l of geminiTurnLines(t, rnd)) {
        out.push(l);
        bytes += l.length + 1;
      }
    }
    writeFileSync(path, out.join('\n') + '\n');
    return t;
  },
  append: (path, n) => appendFileSync(path, geminiTurnLines(1_000_000 + n, lcg(n + 1)).join('\n') + '\n'),
};

/** Gemini CLI's JSON session (fixture gemini-session.json): the same turns as one document. */
export const geminiJson: TailCorpus = documentCorpus(
  (turns) =>
    `{"sessionId":"b7e1c9d2-3f40-4a5b-8c6d-7e8f9a0b1c2d","projectHash":"${'9c1f'.repeat(16)}","startTime":"${iso(0)}","lastUpdated":"${iso(turns.length)}","kind":"main","messages":[\n${turns.join(',\n')}\n]}\n`,
  (t, rnd) => {
    const [user, , , called, answer] = geminiTurnLines(t, rnd);
    return [user, called, answer].join(',\n');
  },
);

/** A Gemini CLI checkpoint (`/chat save <tag>`: a bare `[{role, parts}]`, no ids, usage or time): the same turns as the session, saved again whole. */
export const geminiCheckpoint: TailCorpus = documentCorpus(
  (turns) => `[\n${turns.join(',\n')}\n]\n`,
  (t, rnd) => {
    const call = { id: `read_file-${1_777_713_295_030 + t}-0`, name: 'read_file' };
    return [
      { role: 'user', parts: [{ text: `Look at src/module${t % 40}.ts and fix step ${t}.` }] },
      {
        role: 'model',
        parts: [
          { thought: true, text: `Reading: Read module${t % 40}.` },
          { functionCall: { ...call, args: { absolute_path: `/w/src/module${t % 40}.ts` } } },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { ...call, response: { output: code(t, 10 + Math.floor(rnd() * 35)) } } }] },
      { role: 'model', parts: [{ text: `Step ${t}: module${t % 40}.ts reads input${t % 7}; the fix is in compute${t % 13}.` }] },
    ]
      .map((m) => JSON.stringify(m))
      .join(',\n');
  },
);

/** OpenHands' system prompt and task, the first two events of a run. */
const openHandsHead = (): string =>
  `${JSON.stringify({ id: 0, timestamp: iso(0), source: 'agent', message: 'You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.', action: 'system', args: { content: 'You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.', tools: [{ type: 'function', function: { name: 'execute_bash' } }], openhands_version: '0.51.0', agent_class: 'CodeActAgent' } })},\n${JSON.stringify({ id: 1, timestamp: iso(0, 1), source: 'user', message: 'Add server-side email validation to the signup form.', action: 'message', args: { content: 'Add server-side email validation to the signup form.', image_urls: null, file_urls: null, wait_for_response: false } })}`;

/** OpenHands' event stream (fixture openhands-events.json): per turn a command with its output, an edit with its result, the LLM response and usage on each action. */
export const openHandsEvents: TailCorpus = documentCorpus(
  (turns) => `[\n${openHandsHead()},\n${turns.join(',\n')}\n]\n`,
  (t, rnd) => openHandsTurn(t, rnd),
);

/**
 * An OpenHands eval instance saved as one document (fixture openhands-eval.jsonl, one line): the
 * same events in its `history`, and per response its `metrics.token_usages` entry after it, as
 * the run's metrics grow with it.
 */
export const openHandsInstance: TailCorpus = documentCorpus(
  (turns) => {
    const usages = turns.flatMap((_, t) =>
      ['r', 'e'].map((k, j) =>
        JSON.stringify({
          model: 'claude-sonnet-4-20250514',
          prompt_tokens: 5000 + t * 4 + j * 400,
          completion_tokens: 88,
          cache_read_tokens: 4700 + t * 4 + j * 400,
          cache_write_tokens: 300,
          response_id: `chatcmpl-toolu_${k}${t}`,
        }),
      ),
    );
    const metadata = {
      agent_class: 'CodeActAgent',
      llm_config: { model: 'litellm_proxy/claude-sonnet-4-20250514', temperature: 0, max_message_chars: 30000, native_tool_calling: true },
      max_iterations: 100,
      condenser_config: { type: 'noop' },
    };
    return `{"instance_id":"acme__signup-42","instruction":"Add server-side email validation to the signup form.","metadata":${JSON.stringify(metadata)},"history":[\n${openHandsHead()},\n${turns.join(',\n')}\n],"metrics":{"accumulated_cost":${(turns.length * 0.01).toFixed(2)},"token_usages":[\n${usages.join(',\n')}\n]},"error":null}\n`;
  },
  (t, rnd) => openHandsTurn(t, rnd),
);

/** One OpenHands turn of four events (a command and its output, an edit and its result). */
function openHandsTurn(t: number, rnd: () => number): string {
  const id = 2 + t * 4;
  const meta = (call: string, name: string, args: string, text: string, prompt: number) => ({
    function_name: name,
    tool_call_id: call,
    model_response: {
      id: `chatcmpl-${call}`,
      created: 1_776_160_802 + t,
      model: 'claude-sonnet-4-20250514',
      object: 'chat.completion',
      choices: [
        {
          finish_reason: 'tool_calls',
          index: 0,
          message: {
            content: text,
            role: 'assistant',
            tool_calls: [{ index: 1, function: { arguments: args, name }, id: call, type: 'function' }],
          },
        },
      ],
      usage: {
        completion_tokens: 88,
        prompt_tokens: prompt,
        total_tokens: prompt + 88,
        prompt_tokens_details: { cached_tokens: prompt - 300 },
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: prompt - 300,
      },
    },
    total_calls_in_response: 1,
  });
  const command = `grep -n "compute${t % 13}" -A 30 app/module${t % 40}.py`;
  const run = meta(
    `toolu_r${t}`,
    'execute_bash',
    JSON.stringify({ command, is_input: 'false' }),
    `Let me look at module${t % 40} (step ${t}).`,
    5000 + t * 4,
  );
  const edit = meta(
    `toolu_e${t}`,
    'str_replace_editor',
    JSON.stringify({
      command: 'str_replace',
      path: `/workspace/app/module${t % 40}.py`,
      old_str: `compute${t % 13}(`,
      new_str: `compute${t % 13}_checked(`,
    }),
    `Guarding compute${t % 13}.`,
    5400 + t * 4,
  );
  return [
    {
      id,
      timestamp: iso(t),
      source: 'agent',
      message: `Running command: ${command}`,
      action: 'run',
      tool_call_metadata: run,
      args: {
        command,
        is_input: false,
        thought: `Let me look at module${t % 40} (step ${t}).`,
        blocking: false,
        hidden: false,
        confirmation_state: 'confirmed',
      },
    },
    {
      id: id + 1,
      timestamp: iso(t, 1),
      source: 'agent',
      message: `Command \`${command}\` executed with exit code 0.`,
      cause: id,
      observation: 'run',
      tool_call_metadata: run,
      content: code(t, 10 + Math.floor(rnd() * 35)),
      extras: { command, metadata: { exit_code: 0, pid: -1, working_dir: '/workspace' }, hidden: false },
    },
    {
      id: id + 2,
      timestamp: iso(t, 2),
      source: 'agent',
      message: `Editing /workspace/app/module${t % 40}.py`,
      action: 'edit',
      tool_call_metadata: edit,
      args: {
        path: `/workspace/app/module${t % 40}.py`,
        command: 'str_replace',
        old_str: `compute${t % 13}(`,
        new_str: `compute${t % 13}_checked(`,
        thought: `Guarding compute${t % 13}.`,
      },
    },
    {
      id: id + 3,
      timestamp: iso(t, 3),
      source: 'agent',
      message: `I edited the file /workspace/app/module${t % 40}.py.`,
      cause: id + 2,
      observation: 'edit',
      tool_call_metadata: edit,
      content: `The file /workspace/app/module${t % 40}.py has been edited.\n${code(t, 6)}`,
      extras: {
        path: `/workspace/app/module${t % 40}.py`,
        prev_exist: true,
        old_content: null,
        new_content: null,
        impl_source: 'oh_aci',
        diff: null,
      },
    },
  ]
    .map((e) => JSON.stringify(e))
    .join(',\n');
}

/** SWE-agent's trajectory (fixture swe-agent.traj): the history of messages with tool calls and observations, and a trajectory step per action. */
export const sweAgentTraj: TailCorpus = documentCorpus(
  (turns) => {
    const history = turns.map((t) => t.split('\u0000')[0]!).join(',\n');
    const steps = turns.map((t) => t.split('\u0000')[1]!).join(',\n');
    const system = JSON.stringify({
      role: 'system',
      content: 'SETTING: You are an autonomous programmer, and you are working directly in the command line with a special interface.',
      agent: 'main',
      message_type: 'system_prompt',
    });
    const task = JSON.stringify({
      role: 'user',
      content: '<uploaded_files>\n/testbed\n</uploaded_files>\nFix naturalsize so binary sizes say B.',
      agent: 'main',
      message_type: 'observation',
    });
    return `{"environment":"main","trajectory":[\n${steps}\n],"history":[\n${system},\n${task},\n${history}\n],"info":{"swe_agent_version":"1.1.0","model_stats":{"instance_cost":0,"tokens_sent":0,"tokens_received":0,"api_calls":${turns.length}}},"replay_config":null}\n`;
  },
  (t, rnd) => {
    const action = `grep -rn "compute${t % 13}" src/module${t % 40}.py`;
    const thought = `Step ${t}: where does module${t % 40} call compute${t % 13}?`;
    const observation = code(t, 10 + Math.floor(rnd() * 35));
    const call = { function: { arguments: JSON.stringify({ command: action }), name: 'bash' }, id: `call_${t}`, type: 'function' };
    const history = [
      JSON.stringify({ role: 'assistant', content: thought, thought, action, agent: 'main', tool_calls: [call], message_type: 'action' }),
      JSON.stringify({
        role: 'tool',
        content: `OBSERVATION:\n${observation}`,
        agent: 'main',
        message_type: 'observation',
        tool_call_ids: [`call_${t}`],
      }),
    ].join(',\n');
    const step = JSON.stringify({
      action,
      observation,
      response: thought,
      thought,
      execution_time: 0.21,
      state: { open_file: 'n/a', working_dir: '/testbed' },
      query: [],
      extra_info: {},
    });
    return `${history}\u0000${step}`;
  },
);

/** A raw OpenAI chat request log (fixture chat-request.json): the request of the last call, its messages growing by a tool call, its output and an answer per turn. */
export const openAIChatRequest: TailCorpus = documentCorpus(
  (turns) =>
    `{"model":"gpt-4o","tools":[{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}],"messages":[\n{"role":"system","content":"You are a coding agent."},\n${turns.join(',\n')}\n]}\n`,
  (t, rnd) =>
    [
      { role: 'user', content: `Look at src/module${t % 40}.ts and fix step ${t}.` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${t}`,
            type: 'function',
            function: { name: 'read_file', arguments: JSON.stringify({ path: `src/module${t % 40}.ts` }) },
          },
        ],
      },
      { role: 'tool', tool_call_id: `call_${t}`, content: code(t, 10 + Math.floor(rnd() * 35)) },
      { role: 'assistant', content: `Step ${t}: module${t % 40}.ts reads input${t % 7}; the fix is in compute${t % 13}.` },
    ]
      .map((m) => JSON.stringify(m))
      .join(',\n'),
);
