/**
 * Live tail's fast paths for Codex rollouts and the generic JSONL of messages (docs/user-guide.md "Live
 * tail"): an append that only continues the session is parsed alone and stores exactly what a
 * first import of the grown file stores; lines that could change what came before take the
 * whole-file path.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFileToStore } from '../../../src/main/store/index';
import { openTail, updateTail, type TailState } from '../../../src/main/store/tail';
import { codexLines } from '../../bench/corpus';
import { sameAsFreshImport } from './fresh-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tailfmt-');

let clock = Date.UTC(2026, 1, 17, 8, 30, 0);
const line = (type: string, payload: Record<string, unknown>): string =>
  JSON.stringify({ timestamp: new Date((clock += 700)).toISOString(), type, payload });
const item = (payload: Record<string, unknown>): string => line('response_item', payload);
const user = (text: string): string => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const reasoning = (text: string): string =>
  item({ type: 'reasoning', summary: [{ type: 'summary_text', text }], content: null, encrypted_content: 'gAAA' });
const call = (n: number): string =>
  item({
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['bash', '-lc', `cat f${n}`] }),
    call_id: `call_${n}`,
  });
const output = (n: number): string => item({ type: 'function_call_output', call_id: `call_${n}`, output: `contents of f${n}\n`.repeat(3) });
const answer = (text: string): string => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const tokens = (input: number, window = 272_000): string =>
  line('event_msg', {
    type: 'token_count',
    info: {
      last_token_usage: {
        input_tokens: input,
        cached_input_tokens: input - 100,
        output_tokens: 40,
        reasoning_output_tokens: 10,
        total_tokens: input + 40,
      },
      model_context_window: window,
    },
  });
const turnContext = (model = 'gpt-5-codex'): string => line('turn_context', { cwd: '/w', model, approval_policy: 'on-request' });
const event = (type: string): string => line('event_msg', { type, text: 'streamed' });
const head = (): string[] => [
  line('session_meta', {
    id: '0199a3c4-tail',
    timestamp: new Date(clock).toISOString(),
    cwd: '/w',
    base_instructions: { text: 'You are Codex.' },
  }),
  turnContext(),
  user('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'),
];
/** One turn: a prompt, a tool call with its usage and output, and the answer with its usage. */
const turn = (n: number): string[] => [
  turnContext(),
  user(`prompt ${n}`),
  reasoning(`thinking ${n}`),
  call(n),
  tokens(1000 * n),
  output(n),
  answer(`answer ${n}`),
  tokens(1000 * n + 500),
];

async function imported(name: string, lines: string[], pipeline = false): Promise<{ file: string; id: string; tail: TailState }> {
  const file = join(t.dir, name);
  writeFileSync(file, lines.join('\n') + '\n');
  const id = (await importFileToStore(t.store, file, { pipeline })).sessionIds[0]!;
  return { file, id, tail: await openTail(t.store, id) };
}
const append = (file: string, lines: string[]): void => appendFileSync(file, lines.join('\n') + '\n');

describe('live tail of a Codex rollout', () => {
  it('stores appended turns on the fast path exactly as a first import would', async () => {
    const { file, id, tail } = await imported('rollout.jsonl', [...head(), ...turn(1)]);
    const before = t.store.getRow(id)!.messageCount;
    append(file, turn(2));
    const u = await updateTail(t.store, tail);
    expect(u).toMatchObject({ fast: true, rewritten: false, sessions: [{ id, changedFrom: before, messages: before + 4 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    append(file, turn(3));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: before + 4, messages: before + 8 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // The new calls carry their reported usage and the session's model.
    const last = t.store.loadSession(id)!.messages.at(-1)!;
    expect(last).toMatchObject({ role: 'assistant', model: 'gpt-5-codex', usage: { output: 40 } });
  });

  it('extends the call being built: its next items, then its usage, arrive in later appends', async () => {
    const { file, id, tail } = await imported('rollout.jsonl', [...head(), ...turn(1), turnContext(), user('prompt 2')]);
    const n = t.store.getRow(id)!.messageCount;
    // The call starts: reasoning only (no token_count yet).
    append(file, [reasoning('thinking 2')]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: n, messages: n + 1 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // Streamed events only: nothing changes.
    append(file, [event('agent_reasoning')]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [] });
    // The call goes on (same message), then its token_count gives it its usage.
    append(file, [call(2)]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: n, messages: n + 1 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    append(file, [tokens(2000), output(2)]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: n, messages: n + 2 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    expect(t.store.loadSession(id)!.messages[n]).toMatchObject({ role: 'assistant', usage: { input: 2000 } });
    expect(t.store.rawOf(id, n)!.split('\n')).toHaveLength(2);
  });

  it('picks up a call still being built when the watch begins (the state read from the file’s end)', async () => {
    const { file, id, tail } = await imported('rollout.jsonl', [
      ...head(),
      ...turn(1),
      user('prompt 2'),
      reasoning('thinking 2'),
      event('agent_reasoning'),
    ]);
    append(file, [call(2), tokens(2000)]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('numbers items without an id as a first import does, own ids kept (a file imported through the writer thread)', async () => {
    const own = item({ type: 'function_call', id: 'fc_own', name: 'shell', arguments: '{}', call_id: 'call_own' });
    const lines = [...head()];
    for (let t = 1; t <= 60; t++) lines.push(...turn(t));
    const { file, id, tail } = await imported('rollout.jsonl', lines, true);
    append(file, [
      user('prompt with own ids'),
      own,
      tokens(9000),
      item({ type: 'function_call_output', id: 'out_own', call_id: 'call_own', output: 'ok' }),
      item({ type: 'ghost_snapshot', ghost_commit: {} }),
      ...turn(61),
    ]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await sameAsFreshImport(t.store, t.dir, file, id);
    expect(t.store.loadSession(id)!.messages.some((m) => m.id === 'fc_own')).toBe(true);
  });

  it('stays equal to a first import however the agent’s writes are cut (every line boundary of a generated rollout)', async () => {
    const all = [...codexLines({ calls: 40 })].map((l) => l.trimEnd());
    const { file, id, tail } = await imported('rollout.jsonl', all.slice(0, 12));
    let fast = 0;
    let updates = 0;
    // Cut after 1, 2, 3, 1, 2, 3… lines: appends end inside calls, before and after their token_count.
    for (let at = 12, k = 0; at < all.length; k++) {
      const next = Math.min(all.length, at + 1 + (k % 3));
      append(file, all.slice(at, next));
      at = next;
      const u = await updateTail(t.store, tail);
      if (!u) continue;
      updates++;
      if (u.fast) fast++;
      if (k % 7 === 0) await sameAsFreshImport(t.store, t.dir, file, id);
    }
    await sameAsFreshImport(t.store, t.dir, file, id);
    // Every append of this rollout continues it: none needs the whole file.
    expect(fast).toBe(updates);
  });

  it('takes the fast path on the fixture rollout (own item ids, a compaction and unknown lines before the append)', async () => {
    const fixture = readFileSync(join(__dirname, '..', '..', 'fixtures', 'import', 'codex-rollout.jsonl'), 'utf8')
      .trimEnd()
      .split('\n');
    const { file, id, tail } = await imported('rollout.jsonl', fixture);
    append(file, turn(9).slice(1));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('takes the whole-file path for lines that could change what came before', async () => {
    const { file, id, tail } = await imported('rollout.jsonl', [...head(), ...turn(1)]);
    const step = async (lines: string[], fast: boolean): Promise<void> => {
      append(file, lines);
      expect(await updateTail(t.store, tail)).toMatchObject({ fast });
      await sameAsFreshImport(t.store, t.dir, file, id);
    };
    // Another model: the importer gives the last model to every earlier call.
    await step([turnContext('gpt-5.1-codex'), user('prompt 2'), answer('answer 2'), tokens(3000)], false);
    await step(turn(3).slice(1), true);
    // Another reported window (session metadata).
    await step([user('prompt 4'), answer('answer 4'), tokens(4000, 400_000)], false);
    // A compaction names earlier messages kept verbatim.
    await step([line('compacted', { message: 'summary of the work so far', replacement_history: [] }), user('prompt 5')], false);
    // A token_count after a tool output: the call it reports on is stored, and not last.
    await step([user('prompt 6'), call(6), output(6)], true);
    await step([tokens(6000)], false);
    await step(turn(7).slice(1), true);
    // A session_meta line sets the session's fields.
    await step([line('session_meta', { id: 'other', cwd: '/elsewhere' }), user('prompt 8')], false);
  });
});

describe('live tail of a JSONL of messages', () => {
  const msg = (role: string, content: unknown, extra: Record<string, unknown> = {}): string => JSON.stringify({ role, content, ...extra });

  it('stores appended messages on the fast path exactly as a first import would', async () => {
    const { file, id, tail } = await imported('chat.jsonl', [
      msg('system', 'You are terse.'),
      msg('user', 'hello'),
      msg('assistant', 'hi', { model: 'gpt-4o', usage: { prompt_tokens: 20, completion_tokens: 2 } }),
    ]);
    // (No tool calls in a file's first 64 KB: they would make a first import read it as OpenAI chat.)
    append(file, [
      msg('user', 'list files'),
      msg('assistant', 'a.txt and b.txt', { model: 'gpt-4o', usage: { prompt_tokens: 40, completion_tokens: 5 } }),
      msg('user', [{ type: 'text', text: 'and now?' }]),
    ]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ id, changedFrom: 2, messages: 5 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // A system line after messages is a message; a line with its own id keeps it; blank lines are skipped.
    appendFileSync(
      file,
      '\n' +
        [
          msg('system', 'be brief'),
          msg('user', 'thanks', { id: 'u-own' }),
          msg('assistant', 'ok', { model: 'gpt-4o', usage: { prompt_tokens: 60, completion_tokens: 1 } }),
        ].join('\n') +
        '\n',
    );
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 5, messages: 8 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    expect(t.store.getRow(id)).toMatchObject({ messageCount: 8, stepCount: 3, hasUsage: true });
  });

  it('stores the fast path of a file imported through the writer thread (records by line) as a first import would', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => msg(i % 2 ? 'assistant' : 'user', `message ${i} `.repeat(40)));
    const { file, id, tail } = await imported('big.jsonl', lines, true);
    append(file, [
      msg('user', 'one more'),
      msg('assistant', '', { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] }),
      msg('tool', 'a.txt', { tool_call_id: 'c1' }),
      msg('assistant', 'done'),
    ]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 3000, messages: 3004 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('gives the session its title when the first typed prompt arrives in an append', async () => {
    const { file, id, tail } = await imported('chat.jsonl', [
      msg('user', '<environment_context>cwd /w</environment_context>'),
      msg('assistant', 'ready'),
    ]);
    append(file, [msg('user', 'Fix the failing test'), msg('assistant', 'on it')]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    expect(t.store.getRow(id)?.title).toBe('Fix the failing test');
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('leaves the session as it was when an appended line is not a message (the whole file says where)', async () => {
    const { file, id, tail } = await imported('chat.jsonl', [msg('user', 'hello'), msg('assistant', 'hi')]);
    append(file, [JSON.stringify({ note: 'not a message' })]);
    await expect(updateTail(t.store, tail)).rejects.toThrow(/role, content/);
    expect(t.store.getRow(id)?.messageCount).toBe(2);
  });

  it('takes the whole-file path while the file has only its system prompt', async () => {
    const { file, id, tail } = await imported('chat.jsonl', [msg('system', 'You are terse.')]);
    append(file, [msg('system', 'More rules.'), msg('user', 'hello')]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
    append(file, [msg('assistant', 'hi')]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });
});
