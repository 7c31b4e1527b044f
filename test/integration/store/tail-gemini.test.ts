/**
 * Live tail's fast path for Gemini CLI's JSONL session (store/tail-gemini.ts): appended records,
 * and the running call written again under its id, are parsed alone and store exactly what a
 * first import of the grown file stores; lines that could change what came before take the
 * whole-file path.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFileToStore } from '../../../src/main/store/index';
import { openTail, updateTail, type TailState } from '../../../src/main/store/tail';
import { sameAsFreshImport } from './fresh-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tailgem-');

const iso = (t: number, s = 0): string => new Date(Date.UTC(2026, 4, 2, 9, 0, 0) + t * 60_000 + s * 1000).toISOString();
const j = (v: unknown): string => JSON.stringify(v);
const header = (): string =>
  j({ sessionId: 'c8f2d0e3-tail', projectHash: '2a4c'.repeat(16), startTime: iso(0), lastUpdated: iso(0), kind: 'main' });
const user = (t: number, text = `Fix step ${t} in src/m${t}.ts`): string =>
  j({ id: `u-${t}`, timestamp: iso(t), type: 'user', content: [{ text }] });
const tokens = (t: number) => ({ input: 7000 + t, output: 38, cached: 6000, thoughts: 12, tool: 0, total: 7050 + t });
const toolCall = (t: number) => ({
  id: `read_file-${t}`,
  name: 'read_file',
  args: { absolute_path: `/w/src/m${t}.ts` },
  status: 'executing',
  timestamp: iso(t, 1),
});
/** The call as Gemini CLI writes it when it starts, then again with its result and tokens. */
const running = (t: number, model = 'gemini-2.5-flash'): string =>
  j({ id: `g-${t}`, timestamp: iso(t, 1), type: 'gemini', content: '', thoughts: [], model, toolCalls: [toolCall(t)] });
const finished = (t: number): string =>
  j({
    id: `g-${t}`,
    timestamp: iso(t, 1),
    type: 'gemini',
    content: '',
    thoughts: [{ subject: 'Reading', description: `Read m${t}.`, timestamp: iso(t, 1) }],
    tokens: tokens(t),
    model: 'gemini-2.5-flash',
    toolCalls: [
      {
        ...toolCall(t),
        status: 'success',
        result: [{ functionResponse: { id: `read_file-${t}`, name: 'read_file', response: { output: `export const v${t} = ${t};\n` } } }],
        resultDisplay: '',
      },
    ],
  });
const answer = (t: number, model = 'gemini-2.5-flash'): string =>
  j({ id: `g-${t}-a`, timestamp: iso(t, 2), type: 'gemini', content: `Step ${t} is fixed.`, thoughts: [], tokens: tokens(t + 600), model });
const turn = (t: number): string[] => [user(t), j({ $set: { lastUpdated: iso(t) } }), running(t), finished(t), answer(t)];

async function imported(lines: string[]): Promise<{ file: string; id: string; tail: TailState }> {
  const file = join(t.dir, 'session-2026-05-02T09-00-tail.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
  return { file, id, tail: await openTail(t.store, id) };
}
const append = (file: string, lines: string[]): void => appendFileSync(file, lines.join('\n') + '\n');

describe('live tail of a Gemini CLI JSONL session', () => {
  it('stores appended turns on the fast path exactly as a first import would', async () => {
    const { file, id, tail } = await imported([header(), ...turn(1)]);
    expect(t.store.getRow(id)!.messageCount).toBe(4);
    append(file, turn(2));
    expect(await updateTail(t.store, tail)).toMatchObject({
      fast: true,
      rewritten: false,
      sessions: [{ id, changedFrom: 4, messages: 8 }],
    });
    await sameAsFreshImport(t.store, t.dir, file, id);
    append(file, turn(3));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 8, messages: 12 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // The rewritten call is stored once, with its result and its usage.
    const messages = t.store.loadSession(id)!.messages;
    expect(messages.filter((m) => m.id === 'g-3')).toHaveLength(1);
    expect(messages.at(-3)).toMatchObject({ id: 'g-3', role: 'assistant', model: 'gemini-2.5-flash', usage: { input: 7003 } });
    expect(messages.at(-2)).toMatchObject({ id: 'g-3/results', role: 'tool' });
  });

  it('replaces the running call when its result arrives in a later append (the record written again)', async () => {
    const { file, id, tail } = await imported([header(), ...turn(1)]);
    // A running call is stored with its (empty) results already, as the import makes it.
    append(file, [user(2), running(2)]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 4, messages: 7 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    append(file, [finished(2)]);
    // The call and its results replace the running call (index 5) in place.
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 5, messages: 7 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    expect(t.store.loadSession(id)!.messages.at(-1)!.parts[0]).toMatchObject({
      kind: 'tool_result',
      text: expect.stringContaining('v2 = 2'),
    });
    append(file, [finished(2), answer(2)]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 5, messages: 8 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('picks the last record up from the t.store when the watch begins on a running call', async () => {
    const { file, id, tail } = await imported([header(), ...turn(1), user(2), running(2)]);
    append(file, [finished(2), answer(2), j({ id: 'i-1', type: 'info', content: 'note' }), user(3)]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 5, messages: 9 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // Records without an id, and a title given by the first prompt of a session that had none.
    append(file, [
      j({ timestamp: iso(4), type: 'user', content: 'no id' }),
      j({ timestamp: iso(4, 1), type: 'gemini', content: 'ok', model: 'gemini-2.5-flash' }),
    ]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('takes the whole-file path for lines that change what came before or the session', async () => {
    const { file, id, tail } = await imported([header(), ...turn(1), ...turn(2)]);
    const whole = async (lines: string[], next = turn(tail.size)): Promise<void> => {
      append(file, lines);
      expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
      await sameAsFreshImport(t.store, t.dir, file, id);
      // And the fast path again on the next plain turn.
      append(file, next);
      expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
      await sameAsFreshImport(t.store, t.dir, file, id);
    };
    // A rewind drops stored records.
    await whole([j({ $rewindTo: 'u-2' }), user(20, 'Do it differently.')]);
    // An earlier record written again keeps its place, before the later ones.
    await whole([j({ id: 'u-1', timestamp: iso(1), type: 'user', content: [{ text: 'Edited prompt' }] })]);
    // A summary is the session's title.
    await whole([j({ $set: { lastUpdated: iso(30), summary: 'Fix the steps' } })]);
    // Another model is the session's model.
    await whole([user(31), answer(31, 'gemini-2.5-pro')], [user(32), answer(32, 'gemini-2.5-pro')]);
    // An info record (no message) whose id a later record takes: the record keeps the info's place.
    append(file, [j({ id: 'i-9', type: 'info', content: 'note' })]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await whole(
      [j({ id: 'i-9', timestamp: iso(40), type: 'user', content: 'now a prompt' }), answer(40, 'gemini-2.5-pro')],
      [user(41), answer(41, 'gemini-2.5-pro')],
    );
    expect(t.store.getRow(id)).toMatchObject({ title: 'Fix the steps', model: 'gemini-2.5-pro' });
    // The last record written again when it is a prompt (a title may come from it).
    append(file, [user(50)]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await whole([user(50, 'The prompt edited')], [answer(50, 'gemini-2.5-pro')]);
    // An id like the import's key for a record without one: the next record without an id replaces it in place.
    await whole(
      [j({ id: '#1', timestamp: iso(60), type: 'gemini', content: 'odd id', model: 'gemini-2.5-pro' })],
      [user(61), answer(61, 'gemini-2.5-pro')],
    );
    append(file, [j({ timestamp: iso(62), type: 'user', content: 'no id' })]);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('stays equal to a first import however the agent’s writes are cut (every line of the fixture, with its rewind and summary, and of generated turns)', async () => {
    const fixture = readFileSync(join(__dirname, '..', '..', 'fixtures', 'import', 'gemini-session.jsonl'), 'utf8')
      .trimEnd()
      .split('\n');
    const all = [...fixture, ...turn(7), ...turn(8), user(9), running(9), finished(9), answer(9)];
    const { file, id, tail } = await imported(all.slice(0, 2));
    let fast = 0;
    for (const l of all.slice(2)) {
      append(file, [l]);
      if ((await updateTail(t.store, tail))?.fast) fast++;
      await sameAsFreshImport(t.store, t.dir, file, id);
    }
    // Most lines take the fast path; the rewind, the summary and what follows them right after do not.
    expect(fast).toBeGreaterThan(all.length / 2);
  });

  it('leaves a JSON-document session to the document fast path (store/tail-document.ts), not this one', async () => {
    const file = join(t.dir, 'session.json');
    const doc = (n: number): string =>
      j({
        sessionId: 'doc',
        projectHash: 'ab'.repeat(32),
        startTime: iso(0),
        messages: Array.from({ length: n }, (_, t) => [JSON.parse(user(t)), JSON.parse(answer(t))]).flat(),
      }) + '\n';
    writeFileSync(file, doc(2));
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    const tail = await openTail(t.store, id);
    expect(tail.lines).toBeUndefined();
    writeFileSync(file, doc(3));
    expect(tail.doc).toBeDefined();
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 4, messages: 6 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });
});
