/**
 * Live tail's fast path for Gemini CLI's JSON session (store/tail-document.ts with
 * tail-gemini-json.ts): the document written again whole with more records (and the running call
 * written again in place) is read from its new records alone and stores exactly what a first
 * import of the file stores; any other change takes the whole-file path; a document cut short
 * waits for the rest.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { updateTail } from '../../../src/main/store/tail';
import { sameAsFreshImport } from '../../integration/store/fresh-import';
import { importedForTail } from '../../helpers/tail-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tailgemjson-');

type Rec = Record<string, unknown>;
const iso = (n: number, s = 0): string => new Date(Date.UTC(2026, 4, 2, 9, 0, 0) + n * 60_000 + s * 1000).toISOString();
const user = (n: number, text = `Fix step ${n} in src/m${n}.ts`): Rec => ({
  id: `u-${n}`,
  timestamp: iso(n),
  type: 'user',
  content: [{ text }],
});
const tokens = (n: number) => ({ input: 7000 + n, output: 38, cached: 6000, thoughts: 12, tool: 0, total: 7050 + n });
const toolCall = (n: number) => ({
  id: `read_file-${n}`,
  name: 'read_file',
  args: { absolute_path: `/w/src/m${n}.ts` },
  status: 'executing',
  timestamp: iso(n, 1),
});
/** The call as Gemini CLI records it when it starts, then again (in place) with its result and tokens. */
const running = (n: number): Rec => ({
  id: `g-${n}`,
  timestamp: iso(n, 1),
  type: 'gemini',
  content: '',
  thoughts: [],
  model: 'gemini-2.5-flash',
  toolCalls: [toolCall(n)],
});
const finished = (n: number): Rec => ({
  ...running(n),
  thoughts: [{ subject: 'Reading', description: `Read m${n}.`, timestamp: iso(n, 1) }],
  tokens: tokens(n),
  toolCalls: [
    {
      ...toolCall(n),
      status: 'success',
      result: [{ functionResponse: { id: `read_file-${n}`, name: 'read_file', response: { output: `export const v${n} = "${n}";\n` } } }],
      resultDisplay: '',
    },
  ],
});
const answer = (n: number, model = 'gemini-2.5-flash'): Rec => ({
  id: `g-${n}-a`,
  timestamp: iso(n, 2),
  type: 'gemini',
  content: `Step ${n} is fixed.`,
  thoughts: [],
  tokens: tokens(n + 600),
  model,
});
const turn = (n: number): Rec[] => [user(n), finished(n), answer(n)];

/** The document as Gemini CLI saves it (pretty-printed, 2 spaces), or compact. */
function doc(records: Rec[], o: { pretty?: boolean; updated?: number; summary?: string } = {}): string {
  const d = {
    sessionId: 'b7e1c9d2-tail',
    projectHash: '9c1f'.repeat(16),
    startTime: iso(0),
    lastUpdated: iso(o.updated ?? records.length),
    ...(o.summary ? { summary: o.summary } : {}),
    messages: records,
  };
  return o.pretty === false ? JSON.stringify(d) : JSON.stringify(d, null, 2);
}

const imported = (text: string) => importedForTail(t, 'session-2026-05-02T09-00-tail.json', text);

describe('live tail of a Gemini CLI JSON session', () => {
  it.each([true, false])('stores the records a new write adds from them alone, as a first import would (pretty: %s)', async (pretty) => {
    const records = [...turn(1)];
    const { file, id, tail } = await imported(doc(records, { pretty }));
    expect(tail.doc).toBeDefined();
    records.push(...turn(2));
    writeFileSync(file, doc(records, { pretty }));
    expect(await updateTail(t.store, tail)).toMatchObject({
      fast: true,
      rewritten: false,
      sessions: [{ id, changedFrom: 4, messages: 8 }],
    });
    await sameAsFreshImport(t.store, t.dir, file, id);
    records.push(...turn(3), { id: 'i-1', type: 'info', content: 'note' }, user(4));
    writeFileSync(file, doc(records, { pretty }));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 8, messages: 13 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    expect(t.store.loadSession(id)!.messages.at(-2)).toMatchObject({ id: 'g-3-a', role: 'assistant', usage: { input: 7603 } });
    // The source is the file as it is now (a later watch, or an import of it, finds it unchanged).
    const bytes = readFileSync(file);
    expect(t.store.db.prepare('SELECT size, hash FROM sources WHERE id = ?').get(tail.sourceId)).toEqual({
      size: bytes.length,
      hash: createHash('sha256').update(bytes).digest('hex'),
    });
    // Only lastUpdated written again: nothing to store.
    writeFileSync(file, doc(records, { pretty, updated: 99 }));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('replaces the running call written again in place with its result', async () => {
    const records = [...turn(1), user(2), running(2)];
    const { file, id, tail } = await imported(doc(records));
    expect(t.store.getRow(id)!.messageCount).toBe(7);
    records[records.length - 1] = finished(2);
    writeFileSync(file, doc(records));
    // The call (index 5) and its results written again.
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 5, messages: 7 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    expect(t.store.loadSession(id)!.messages.at(-1)!.parts[0]).toMatchObject({
      kind: 'tool_result',
      text: expect.stringContaining('v2 = '),
    });
    // Written again with the answer after it, then the next call starting.
    records.push(answer(2), user(3), running(3));
    writeFileSync(file, doc(records));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 7, messages: 11 }] });
    records[records.length - 1] = finished(3);
    records.push(answer(3));
    writeFileSync(file, doc(records));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 9, messages: 12 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('takes the whole-file path for the first prompt written again (the title comes from it)', async () => {
    // A greeting first (Gemini CLI may record one), then the first typed prompt, last.
    const records = [answer(0), user(1, 'First wording')];
    const { file, id, tail } = await imported(doc(records));
    expect(t.store.getRow(id)!.title).toContain('First wording');
    records[1] = user(1, 'Second wording');
    writeFileSync(file, doc(records));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
    expect(t.store.getRow(id)!.title).toContain('Second wording');
    records.push(finished(1), answer(1));
    writeFileSync(file, doc(records));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('takes the whole-file path for a write that changes what came before or the session, then the fast path again', async () => {
    const records = [...turn(1), ...turn(2)];
    const { file, id, tail } = await imported(doc(records));
    let n = 10;
    const whole = async (text: string, after: (r: Rec[]) => string = (r) => doc(r)): Promise<void> => {
      writeFileSync(file, text);
      expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
      await sameAsFreshImport(t.store, t.dir, file, id);
      records.push(...turn(n++));
      writeFileSync(file, after(records));
      expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
      await sameAsFreshImport(t.store, t.dir, file, id);
    };
    // An earlier record edited.
    records[0] = user(1, 'An edited prompt');
    records.push(...turn(5));
    await whole(doc(records));
    // A summary (the title) and another start time are the session's.
    await whole(doc(records, { summary: 'Fix the steps' }), (r) => doc(r, { summary: 'Fix the steps' }));
    expect(t.store.getRow(id)).toMatchObject({ title: 'Fix the steps' });
    const moved = doc(records, { summary: 'Fix the steps' }).replace(iso(0), iso(0, 5));
    await whole(moved, (r) => doc(r, { summary: 'Fix the steps' }).replace(iso(0), iso(0, 5)));
    // Another model is the session's model.
    records.push(user(30), answer(30, 'gemini-2.5-pro'));
    await whole(doc(records, { summary: 'Fix the steps' }).replace(iso(0), iso(0, 5)), (r) =>
      doc([...r, answer(31, 'gemini-2.5-pro')], { summary: 'Fix the steps' }).replace(iso(0), iso(0, 5)),
    );
    expect(t.store.getRow(id)).toMatchObject({ model: 'gemini-2.5-pro' });
  });

  it('drops records through the whole-file path, and waits for a document cut short', async () => {
    const records = [...turn(1), ...turn(2), ...turn(3)];
    const { file, id, tail } = await imported(doc(records));
    const full = doc([...records, ...turn(4)]);
    // Being written: the new bytes so far, not the closing brackets.
    writeFileSync(file, full.slice(0, full.length - 200));
    expect(await updateTail(t.store, tail)).toBeUndefined();
    expect(t.store.getRow(id)!.messageCount).toBe(12);
    writeFileSync(file, full);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 12, messages: 16 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // The last turn removed (a rewind): the whole file, a shorter document.
    writeFileSync(file, doc(records));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // A longer head and fewer records, the file no shorter: another document, not one cut short.
    writeFileSync(file, doc(records.slice(0, -3), { summary: 'A long summary. '.repeat(400) }));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
    writeFileSync(file, doc(records));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // Bytes that are not UTF-8, in a new record or in a key nothing is stored from: refused as a first import refuses them.
    const bad = (text: string, marker: string): Buffer => {
      const at = Buffer.from(text).indexOf(marker);
      return Buffer.concat([Buffer.from(text).subarray(0, at), Buffer.from([0xff]), Buffer.from(text).subarray(at + marker.length)]);
    };
    writeFileSync(file, bad(doc([...records, ...turn(6)]), 'Step 6 is fixed'));
    await expect(updateTail(t.store, tail)).rejects.toThrow(/UTF-8/);
    writeFileSync(file, bad(doc([...records, ...turn(6)]), iso(records.length + 3)));
    await expect(updateTail(t.store, tail)).rejects.toThrow(/UTF-8/);
    expect(t.store.getRow(id)!.messageCount).toBe(12);
    // Two records written again: the earlier one is not the last element.
    const two = [...records.slice(0, -2), { ...records.at(-2)!, content: 'changed' }, records.at(-1)!, ...turn(5)];
    writeFileSync(file, doc(two));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });
});
