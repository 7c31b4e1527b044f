/**
 * Live tail's fast path for a logged OpenAI chat request (store/tail-document.ts with
 * tail-openai-chat.ts): the log written again with the next request's longer message list is read
 * from its new messages alone and stores exactly what a first import of the file stores; any
 * other change takes the whole-file path.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { updateTail } from '../../../src/main/store/tail';
import { sameAsFreshImport } from '../../integration/store/fresh-import';
import { importedForTail } from '../../helpers/tail-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tailchat-');

type Msg = Record<string, unknown>;
const tools = [
  {
    type: 'function',
    function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  },
];
const turn = (n: number): Msg[] => [
  { role: 'user', content: `Look at src/m${n}.ts and fix "step ${n}".` },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: `call_${n}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/m${n}.ts` }) } },
    ],
  },
  { role: 'tool', tool_call_id: `call_${n}`, content: `export const v${n} = "\\\\${n}";\n` },
  { role: 'assistant', content: [{ type: 'text', text: `Step ${n} fixed.` }] },
];
const request = (messages: Msg[], extra: Record<string, unknown> = { model: 'gpt-4o' }, pretty = true): string => {
  const body = { ...extra, tools, messages: [{ role: 'system', content: 'You are a coding agent.' }, ...messages] };
  return pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body);
};

const imported = (text: string) => importedForTail(t, 'request.json', text);

describe('live tail of a logged OpenAI chat request', () => {
  it.each([true, false])(
    'stores the messages the next request adds from them alone, as a first import would (pretty: %s)',
    async (pretty) => {
      const messages = turn(1);
      const { file, id, tail } = await imported(request(messages, undefined, pretty));
      expect(tail.doc).toBeDefined();
      messages.push(...turn(2));
      writeFileSync(file, request(messages, undefined, pretty));
      expect(await updateTail(t.store, tail)).toMatchObject({
        fast: true,
        rewritten: false,
        sessions: [{ id, changedFrom: 4, messages: 8 }],
      });
      await sameAsFreshImport(t.store, t.dir, file, id);
      // Messages with their own id, a later system message, usage and a non-message element.
      messages.push(
        { role: 'system', content: 'Be brief.' },
        { id: 'own-id', role: 'user', content: 'go on' },
        'not a message' as unknown as Msg,
        { role: 'assistant', content: 'ok', usage: { prompt_tokens: 900, completion_tokens: 3 } },
      );
      writeFileSync(file, request(messages, undefined, pretty));
      expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 8, messages: 11 }] });
      await sameAsFreshImport(t.store, t.dir, file, id);
      expect(t.store.loadSession(id)!.messages.at(-2)).toMatchObject({ id: 'own-id', role: 'user' });
    },
  );

  it('replaces the last message written again, and keeps the model a message names when the request names none', async () => {
    const messages = turn(1);
    const { file, id, tail } = await imported(request(messages, {}));
    messages.push({ role: 'user', content: 'next' }, { role: 'assistant', content: 'thinking…' });
    writeFileSync(file, request(messages, {}));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 4, messages: 6 }] });
    messages[messages.length - 1] = { role: 'assistant', content: 'Done: all steps fixed.' };
    writeFileSync(file, request(messages, {}));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 5, messages: 6 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // The first message naming a model is the session's: the whole file decides.
    messages.push({ role: 'assistant', content: 'hi', model: 'gpt-4.1' });
    writeFileSync(file, request(messages, {}));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
    expect(t.store.getRow(id)).toMatchObject({ model: 'gpt-4.1' });
    // Later models do not change it.
    messages.push({ role: 'assistant', content: 'again', model: 'gpt-4o' });
    writeFileSync(file, request(messages, {}));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('walks strings and nesting as JSON reads them: brackets, quotes and backslashes in text, a nested messages key, numbers', async () => {
    const odd = (n: number): Msg[] => [
      { role: 'user', content: `a ] b } c [ { \\" \\\\ "quoted" \u2028 é ${n}` },
      {
        role: 'assistant',
        content: [{ type: 'text', text: `\\ ends with a backslash ${n}\\` }],
        tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 'read_file', arguments: '{"path":"a\\"]}"}' } }],
      },
      { role: 'tool', tool_call_id: `c${n}`, content: '[1, [2, [3]], {"k": "}"}]' },
    ];
    const messages = [...odd(1), 7 as unknown as Msg];
    const extra = { model: 'gpt-4o', metadata: { messages: ['x]', { y: '[' }], note: '"messages": [' } };
    const { file, id, tail } = await imported(request(messages, extra, false));
    expect(tail.doc).toBeDefined();
    // A number last: a digit after it is another number, not a new element.
    writeFileSync(file, request([...odd(1), 77 as unknown as Msg], extra, false));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
    messages.splice(messages.length - 1, 1, 77 as unknown as Msg, ...odd(2));
    writeFileSync(file, request(messages, extra, false));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ messages: 6 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    messages.push(...odd(3));
    writeFileSync(file, request(messages, extra));
    // Pretty-printed now: every byte before the new messages moved, so the whole file decides; then pretty on.
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
    messages.push(...odd(4));
    writeFileSync(file, request(messages, extra));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ messages: 12 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('takes the whole-file path for another model, other tools, an edited message or a logged response', async () => {
    const messages = [...turn(1), ...turn(2)];
    const { file, id, tail } = await imported(request(messages));
    const whole = async (text: string): Promise<void> => {
      writeFileSync(file, text);
      expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
      await sameAsFreshImport(t.store, t.dir, file, id);
    };
    messages.push(...turn(3));
    await whole(request(messages, { model: 'gpt-4.1' }));
    expect(t.store.getRow(id)).toMatchObject({ model: 'gpt-4.1' });
    messages.push(...turn(4));
    writeFileSync(file, request(messages, { model: 'gpt-4.1' }));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await sameAsFreshImport(t.store, t.dir, file, id);
    await whole(request(messages, { model: 'gpt-4.1', temperature: 0 }));
    messages[2] = { ...messages[2]!, content: 'edited' };
    await whole(request(messages, { model: 'gpt-4.1', temperature: 0 }));
    messages.push(...turn(5));
    await whole(
      request(messages, {
        model: 'gpt-4.1',
        temperature: 0,
        response: { object: 'chat.completion', id: 'r1', choices: [{ message: { role: 'assistant', content: 'answer' } }] },
      }),
    );
  });
});
