/**
 * Live tail's fast path for a Gemini CLI checkpoint (`/chat save <tag>`: a bare `[{role, parts}]`;
 * store/tail-document.ts with tail-gemini-json.ts): saved again whole with more turns, it is read
 * from its new elements alone (the last one written again replaced in place) and stores exactly
 * what a first import of the file stores; an earlier turn changed, an element the import refuses,
 * or another model takes the whole-file path.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { updateTail } from '../../../src/main/store/tail';
import { geminiCheckpoint } from '../../bench/tail-corpus';
import { sameAsFreshImport } from '../../integration/store/fresh-import';
import { followsBenchCorpusFast, importedForTail } from '../../helpers/tail-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tailgemcp-');

type Rec = Record<string, unknown>;
const prompt = (n: number, text = `Fix step ${n} in src/m${n}.ts`): Rec => ({ role: 'user', parts: [{ text }] });
const call = (n: number): Rec => ({
  role: 'model',
  parts: [
    { thought: true, text: `Reading m${n}.` },
    { functionCall: { id: `read-${n}`, name: 'read_file', args: { absolute_path: `/w/src/m${n}.ts` } } },
  ],
});
const result = (n: number): Rec => ({
  role: 'user',
  parts: [{ functionResponse: { id: `read-${n}`, name: 'read_file', response: { output: `export const v${n} = "${n}";\n` } } }],
});
const answer = (n: number, text = `Step ${n} is fixed.`): Rec => ({ role: 'model', parts: [{ text }] });
const turn = (n: number): Rec[] => [prompt(n), call(n), result(n), answer(n)];
const save = (records: Rec[], pretty = true): string => (pretty ? JSON.stringify(records, null, 2) : JSON.stringify(records));

const imported = (text: string) => importedForTail(t, 'checkpoint-tail.json', text);

describe('live tail of a Gemini CLI checkpoint', () => {
  it.each([true, false])('stores the turns a new save adds from them alone, as a first import would (pretty: %s)', async (pretty) => {
    const records = [...turn(1)];
    const { file, id, tail } = await imported(save(records, pretty));
    expect(t.store.getRow(id)).toMatchObject({ format: 'gemini-cli' });
    expect(tail.doc).toBeDefined();
    const before = t.store.getRow(id)!.messageCount;
    records.push(...turn(2), ...turn(3));
    writeFileSync(file, save(records, pretty));
    expect(await updateTail(t.store, tail)).toMatchObject({
      fast: true,
      rewritten: false,
      sessions: [{ id, changedFrom: before, messages: before * 3 }],
    });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // The last answer saved again, longer (a streamed answer), with the next prompt after it.
    records[records.length - 1] = answer(3, 'Step 3 is fixed, and the test passes.');
    records.push(prompt(4));
    writeFileSync(file, save(records, pretty));
    expect(await updateTail(t.store, tail)).toMatchObject({
      fast: true,
      sessions: [{ changedFrom: before * 3 - 1, messages: before * 3 + 1 }],
    });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('takes the whole-file path for a save that changes what came before or that the import refuses, then the fast path again', async () => {
    const records = [...turn(1), ...turn(2)];
    const { file, id, tail } = await imported(save(records));
    let n = 10;
    const step = async (fast: boolean): Promise<void> => {
      writeFileSync(file, save(records));
      expect(await updateTail(t.store, tail)).toMatchObject({ fast });
      await sameAsFreshImport(t.store, t.dir, file, id);
    };
    const whole = async (): Promise<void> => {
      await step(false);
      records.push(...turn(n++));
      await step(true);
    };
    // An earlier turn edited (with a new one after it).
    records[1] = answer(1, 'Rewritten.');
    records.push(...turn(n++));
    await whole();
    // The prompt written again in place (the title may come from it).
    records.push(prompt(20));
    await step(true);
    records[records.length - 1] = prompt(20, 'Another wording');
    await whole();
    // Another model named: the session's model.
    records.push({ ...answer(30), model: 'gemini-2.5-pro' });
    await whole();
    // An element the import refuses: the file is refused as a first import refuses it, the session kept.
    const count = t.store.getRow(id)!.messageCount;
    writeFileSync(file, save([...records, { role: 'system', parts: [{ text: 'not a turn' }] }]));
    await expect(updateTail(t.store, tail)).rejects.toThrow(/checkpoint/);
    expect(t.store.getRow(id)!.messageCount).toBe(count);
    records.push(...turn(n++));
    await step(true);
  });

  it('follows the tail bench checkpoint (test/bench/tail-corpus.ts) on the fast path', async () => {
    await followsBenchCorpusFast(t, geminiCheckpoint, 'checkpoint-bench.json');
  });
});
