/**
 * Live tail's fast path for an OpenHands event list (store/tail-document.ts with
 * tail-openhands.ts): the list written again with complete new turns is read from its new events
 * alone and stores exactly what a first import of the file stores; events that depend on earlier
 * ones (a response seen before, a call waiting for its result, a condensation, a recall, a new
 * system prompt) and any other change take the whole-file path.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFileToStore } from '../../../src/main/store/index';
import { openTail, updateTail, type TailState } from '../../../src/main/store/tail';
import { openHandsEvents } from '../../bench/tail-corpus';
import { sameAsFreshImport } from '../../integration/store/fresh-import';
import { tempStoreEach } from '../../helpers/temp-store';
import { followsBenchCorpusFast } from '../../helpers/tail-import';

const t = tempStoreEach('ctxscope-tailoh-');

type Event = Record<string, unknown>;
const fixture = JSON.parse(readFileSync(join(__dirname, '../../fixtures/import/openhands-events.json'), 'utf8')) as Event[];
const iso = (n: number): string => new Date(Date.UTC(2026, 3, 14, 10) + n * 2000).toISOString();
const meta = (call: string, resp: string, model = 'claude-sonnet-4-20250514') => ({
  function_name: 'execute_bash',
  tool_call_id: call,
  model_response: {
    id: resp,
    created: 1_776_160_900,
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
              index: 1,
              function: { arguments: JSON.stringify({ command: `ls ${call}` }), name: 'execute_bash' },
              id: call,
              type: 'function',
            },
          ],
        },
      },
    ],
    usage: { completion_tokens: 40, prompt_tokens: 5000, total_tokens: 5040 },
  },
  total_calls_in_response: 1,
});
/** An action with its LLM response, and its observation. */
const action = (id: number, call: string, resp = `chatcmpl-${call}`, model?: string): Event => ({
  id,
  timestamp: iso(id),
  source: 'agent',
  message: `Running command: ls ${call}`,
  action: 'run',
  tool_call_metadata: meta(call, resp, model),
  args: { command: `ls ${call}`, is_input: false, thought: '', blocking: false, hidden: false, confirmation_state: 'confirmed' },
});
const observation = (id: number, call: string, resp = `chatcmpl-${call}`, model?: string): Event => ({
  id,
  timestamp: iso(id),
  source: 'agent',
  message: 'Command executed.',
  cause: id - 1,
  observation: 'run',
  tool_call_metadata: meta(call, resp, model),
  content: `a.py\nb "quoted" \\ ${call}.py`,
  extras: { command: `ls ${call}`, metadata: { exit_code: 0, pid: -1, working_dir: '/workspace' }, hidden: false },
});
const turn = (id: number, call = `toolu_t${id}`, model?: string): Event[] => [
  action(id, call, undefined, model),
  observation(id + 1, call, undefined, model),
];
const user = (id: number, text: string): Event => ({
  id,
  timestamp: iso(id),
  source: 'user',
  message: text,
  action: 'message',
  args: { content: text, image_urls: null, file_urls: null, wait_for_response: false },
});

async function imported(
  events: Event[],
  pretty = true,
): Promise<{ file: string; id: string; tail: TailState; write: (events: Event[]) => void }> {
  const file = join(t.dir, 'events.json');
  const write = (es: Event[]): void => writeFileSync(file, pretty ? JSON.stringify(es, null, 2) : JSON.stringify(es));
  write(events);
  const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
  return { file, id, tail: await openTail(t.store, id), write };
}

describe('live tail of an OpenHands event list', () => {
  it.each([true, false])('stores complete new turns from the new events alone, as a first import would (pretty: %s)', async (pretty) => {
    // The fixture up to its condensation: a system prompt, a recall, actions of one response merged into one message.
    const events = fixture.slice(0, 10);
    const { file, id, tail, write } = await imported(events, pretty);
    expect(tail.doc).toBeDefined();
    const before = t.store.getRow(id)!.messageCount;
    events.push(...fixture.slice(11, 13));
    write(events);
    expect(await updateTail(t.store, tail)).toMatchObject({
      fast: true,
      rewritten: false,
      sessions: [{ id, changedFrom: before, messages: before + 2 }],
    });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // Two actions of one new response (merged into one message), their results, a user message, and an event that adds nothing.
    const second = { ...action(22, 'toolu_t22b', 'chatcmpl-pair'), id: 21 };
    events.push(
      action(20, 'toolu_t20', 'chatcmpl-pair'),
      second,
      observation(22, 'toolu_t20', 'chatcmpl-pair'),
      { ...observation(23, 'toolu_t22b', 'chatcmpl-pair'), cause: 21 },
      user(24, 'Now the login form.'),
      fixture[14]!,
    );
    write(events);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: before + 2, messages: before + 6 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    expect(t.store.loadSession(id)!.messages[before + 2]!.parts.filter((p) => p.kind === 'tool_call')).toHaveLength(2);
  });

  it('takes the whole-file path for events that depend on earlier ones, then the fast path again', async () => {
    const events = [...fixture.slice(0, 10), ...turn(30)];
    const { file, id, tail, write } = await imported(events);
    let next = 100;
    // The model the turns after a whole-file update name (the session's).
    const session: { model?: string } = {};
    const step = async (added: Event[], fast: boolean): Promise<void> => {
      events.push(...added);
      write(events);
      expect(await updateTail(t.store, tail)).toMatchObject({ fast });
      await sameAsFreshImport(t.store, t.dir, file, id);
    };
    const whole = async (added: Event[]): Promise<void> => {
      await step(added, false);
      await step(turn((next += 2), undefined, session.model), true);
    };
    // An action of a response already stored (merged into its earlier message).
    await whole([action(40, 'toolu_t40', 'chatcmpl-toolu_t30'), observation(41, 'toolu_t40', 'chatcmpl-toolu_t30')]);
    // A call whose result is not written yet, then its result (the earlier message changes).
    await step([action(50, 'toolu_t50')], false);
    await whole([observation(51, 'toolu_t50')]);
    // The same with a result that names no response (it answers the earlier call by its id alone).
    await step([action(52, 'toolu_t52')], false);
    await whole([{ ...observation(53, 'toolu_t52'), tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'toolu_t52' } }]);
    // A condensation (its range names earlier events), a recall, a new system prompt.
    await whole([fixture[10]!]);
    await whole([fixture[3]!].map((e) => ({ ...e, id: 60 })));
    await whole([{ ...fixture[0]!, id: 61 }]);
    // An event without an id, a call id an earlier event used, another model.
    await whole([{ ...user(0, 'no id'), id: undefined }]);
    await whole(turn(70, 'toolu_t30'));
    // A call left unanswered (stored without it), then a new call with its id, answered: the import gives the earlier one its call back too.
    await step([action(72, 'toolu_dup')], false);
    await whole([action(74, 'toolu_dup', 'chatcmpl-other'), observation(75, 'toolu_dup', 'chatcmpl-other')]);
    session.model = 'gpt-5';
    await whole(turn(80, 'toolu_t80', session.model));
    expect(t.store.getRow(id)).toMatchObject({ model: 'gpt-5' });
    // An earlier event edited.
    events[1] = user(1, 'An edited task.');
    await whole([]);
    // Finished: the finish action is the model's text, not a call.
    await step(fixture.slice(13), false);
  });

  it('leaves a session that may be sent with text calling to the whole file', async () => {
    const events = [...fixture.slice(0, 2), ...turn(4, 'toolu_01')];
    const { file, id, tail, write } = await imported(events);
    expect(tail.doc).toBeUndefined();
    events.push(...turn(6, 'toolu_02'));
    write(events);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('follows the tail bench session (test/bench/tail-corpus.ts) on the fast path', async () => {
    await followsBenchCorpusFast(t, openHandsEvents, 'events.json');
  });
});
