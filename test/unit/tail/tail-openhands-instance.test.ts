/**
 * Live tail's fast path for an OpenHands eval instance written as one JSON document
 * (`{instance_id, metadata, history[], metrics, …}`; store/tail-document.ts with
 * tail-openhands.ts): the instance written again with new events at the end of its history (and
 * their usages at the end of `metrics.token_usages`) is read from what is new alone and stores
 * exactly what a first import of the file stores; a usage that changes a stored message, another
 * key changed, or a run with text calling takes the whole-file path.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { updateTail } from '../../../src/main/store/tail';
import { openHandsInstance } from '../../bench/tail-corpus';
import { sameAsFreshImport } from '../../integration/store/fresh-import';
import { followsBenchCorpusFast, importedForTail } from '../../helpers/tail-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tailohi-');

type Rec = Record<string, unknown>;
/** The fixture's first instance (a system prompt, recalls, calls answered, an error, a finish). */
const fixture = JSON.parse(readFileSync(join(__dirname, '../../fixtures/import/openhands-eval.jsonl'), 'utf8').split('\n')[0]!) as Rec;
const history = fixture['history'] as Rec[];
const iso = (n: number): string => new Date(Date.UTC(2026, 4, 2, 10) + n * 2000).toISOString().replace('Z', '');
/** A response as litellm logs it, without its usage when the instance's `metrics.token_usages` has it. */
const response = (resp: string, call: string, usage: boolean, model = 'claude-sonnet-4-20250514') => ({
  id: resp,
  created: 1_777_700_000,
  model,
  object: 'chat.completion',
  choices: [
    {
      finish_reason: 'tool_calls',
      index: 0,
      message: {
        content: `Running ${call}.`,
        role: 'assistant',
        tool_calls: [
          {
            index: 0,
            function: { arguments: JSON.stringify({ command: `ls ${call}` }), name: 'execute_bash' },
            id: call,
            type: 'function',
          },
        ],
      },
    },
  ],
  ...(usage ? { usage: { completion_tokens: 40, prompt_tokens: 5000, total_tokens: 5040 } } : {}),
});
const meta = (call: string, resp: string, usage: boolean, model?: string) => ({
  function_name: 'execute_bash',
  tool_call_id: call,
  model_response: response(resp, call, usage, model),
  total_calls_in_response: 1,
});
/** A command and its output, the response logged with or without its usage. */
const turn = (id: number, o: { usage?: boolean; model?: string; call?: string } = {}): Rec[] => {
  const call = o.call ?? `toolu_i${id}`;
  const m = meta(call, `chatcmpl-i${id}`, o.usage ?? false, o.model);
  return [
    {
      id,
      timestamp: iso(id),
      source: 'agent',
      message: `Running command: ls ${call}`,
      action: 'run',
      tool_call_metadata: m,
      args: { command: `ls ${call}`, is_input: false, thought: '', blocking: false, hidden: false, confirmation_state: 'confirmed' },
    },
    {
      id: id + 1,
      timestamp: iso(id + 1),
      source: 'agent',
      message: 'Command executed.',
      cause: id,
      observation: 'run',
      tool_call_metadata: m,
      content: `a.py\nb "quoted" \\ ${call}.py\n${'x'.repeat(200)}`,
      extras: { command: `ls ${call}`, metadata: { exit_code: 0, pid: -1, working_dir: '/workspace' }, hidden: false },
    },
  ];
};
const usage = (id: number, prompt = 6000 + id): Rec => ({
  model: 'claude-sonnet-4-20250514',
  prompt_tokens: prompt,
  completion_tokens: 30,
  cache_read_tokens: prompt - 500,
  cache_write_tokens: 100,
  response_id: `chatcmpl-i${id}`,
});

interface Instance {
  events: Rec[];
  usages: Rec[];
  cost: number;
  instruction?: string;
  llm?: Rec;
}
/** The instance as the eval harness saves it (pretty-printed or compact); `metrics` after `history`, as OpenHands writes it. */
function doc(i: Instance, pretty = true): string {
  const metadata = {
    ...(fixture['metadata'] as Rec),
    ...(i.llm ? { llm_config: { ...((fixture['metadata'] as Rec)['llm_config'] as Rec), ...i.llm } } : {}),
  };
  const d = {
    instance_id: fixture['instance_id'],
    instruction: i.instruction ?? fixture['instruction'],
    metadata,
    history: i.events,
    metrics: {
      accumulated_cost: i.cost,
      accumulated_token_usage: { model: 'default', prompt_tokens: i.usages.length * 6000 },
      token_usages: i.usages,
    },
    error: null,
  };
  return pretty ? JSON.stringify(d, null, 2) : JSON.stringify(d);
}

/** The fixture's history up to its finish (its calls all answered), with its usages. */
const start = (): Instance => ({
  events: history.slice(0, 22),
  usages: [...((fixture['metrics'] as Rec)['token_usages'] as Rec[])],
  cost: 0.1,
});

describe('live tail of an OpenHands eval instance document', () => {
  it.each([true, false])(
    'stores new events and their usages from what is new alone, as a first import would (pretty: %s)',
    async (pretty) => {
      const i = start();
      const { file, id, tail } = await importedForTail(t, 'instance.json', doc(i, pretty));
      expect(tail.doc).toBeDefined();
      const before = t.store.getRow(id)!.messageCount;
      // Responses logged without usage: the import takes it from the usages written beside them.
      i.events.push(...turn(100), ...turn(102));
      i.usages.push(usage(100), usage(102));
      i.cost = 0.2;
      writeFileSync(file, doc(i, pretty));
      expect(await updateTail(t.store, tail)).toMatchObject({
        fast: true,
        rewritten: false,
        sessions: [{ id, changedFrom: before, messages: before + 4 }],
      });
      await sameAsFreshImport(t.store, t.dir, file, id);
      expect(t.store.loadSession(id)!.messages[before]).toMatchObject({ role: 'assistant', usage: { input: 6100, cacheRead: 5600 } });
      // A response that carries its own usage (no entry beside it).
      i.events.push(...turn(104, { usage: true }));
      writeFileSync(file, doc(i, pretty));
      expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: before + 4, messages: before + 6 }] });
      await sameAsFreshImport(t.store, t.dir, file, id);
      // Only the running totals moved: nothing to store.
      i.cost = 0.3;
      writeFileSync(file, doc(i, pretty));
      expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [] });
      await sameAsFreshImport(t.store, t.dir, file, id);
    },
  );

  it('takes the whole-file path for a change a first import would read differently, then the fast path again', async () => {
    const i = start();
    i.events.push(...turn(100));
    const { file, id, tail } = await importedForTail(t, 'instance.json', doc(i));
    expect(tail.doc).toBeDefined();
    let next = 200;
    const step = async (fast: boolean): Promise<void> => {
      writeFileSync(file, doc(i));
      expect(await updateTail(t.store, tail)).toMatchObject({ fast });
      await sameAsFreshImport(t.store, t.dir, file, id);
    };
    const whole = async (): Promise<void> => {
      await step(false);
      i.events.push(...turn(next));
      i.usages.push(usage(next));
      next += 2;
      await step(true);
    };
    // A usage for a response already stored (logged without its usage): that stored message changes.
    i.usages.push(usage(100));
    await whole();
    expect(t.store.loadSession(id)!.messages.find((m) => m.id === 'oh-100')).toMatchObject({ usage: { input: 6100 } });
    // A usage already written, changed; one dropped.
    i.usages[i.usages.length - 1] = usage(next - 2, 9999);
    await whole();
    i.usages.splice(0, 1);
    await whole();
    // Another key: the instruction, the LLM config (a message cap), with a new turn (a shorter file would be a rewrite).
    i.instruction = 'Another task.';
    i.events.push(...turn(next++, { usage: true }));
    next++;
    await whole();
    i.llm = { max_message_chars: 50 };
    i.events.push(...turn(next++, { usage: true }));
    next++;
    await whole();
    // An earlier event edited.
    i.events[1] = { ...i.events[1]!, args: { ...(i.events[1]!['args'] as Rec), content: 'An edited task.' } };
    await whole();
    // A call id an earlier event used, a call waiting for its result.
    i.events.push(...turn(300, { call: 'toolu_i100' }));
    await whole();
    i.events.push(turn(310)[0]!);
    await step(false);
    i.events.push(turn(310)[1]!);
    await whole();
  });

  it('follows an instance written on one line longer than the head detection reads (as Python writes it)', async () => {
    // A line past the import's 10 MiB line bound (src/core/import/read.ts MAX_LINE_BYTES): raised, as a user may.
    vi.stubEnv('CTXSCOPE_MAX_LINE_MB', '64');
    onTestFinished(() => void vi.unstubAllEnvs());
    const i = start();
    const [run, output] = turn(1000);
    // A command whose output is longer than the 16 MB head (its head alone looks like JSON lines).
    i.events.push(run!, { ...output!, content: 'a.py\n'.repeat(3_500_000) });
    const { file, id, tail } = await importedForTail(t, 'instance.json', doc(i, false));
    expect(readFileSync(file).length).toBeGreaterThan(16 << 20);
    expect(tail).toMatchObject({ document: true, doc: expect.anything() });
    i.events.push(...turn(100));
    i.usages.push(usage(100));
    writeFileSync(file, doc(i, false));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, rewritten: false, sessions: [{ id }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('leaves an instance run with text calling to the whole file', async () => {
    const i: Instance = { ...start(), llm: { native_tool_calling: false } };
    const { file, id, tail } = await importedForTail(t, 'instance.json', doc(i));
    expect(tail.doc).toBeUndefined();
    i.events.push(...turn(100));
    writeFileSync(file, doc(i));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('follows the tail bench instance (test/bench/tail-corpus.ts) on the fast path, its usages growing', async () => {
    await followsBenchCorpusFast(t, openHandsInstance, 'instance.json');
  });
});
