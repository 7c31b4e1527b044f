/**
 * Starting the live tail of a JSON document (store/tail.ts openTail, store/tail-document.ts): the
 * arrays are found in the bytes the watch reads to hash the file, and a watch begun again on the
 * unchanged file takes the state its last watch left (closeTail) instead of walking the document
 * again — only when that state was read from what is stored now. An OpenHands event list (its
 * events converted by content, not place) is found by its closing bracket, its events not counted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFileToStore } from '../../../src/main/store/index';
import { closeTail, openTail, updateTail } from '../../../src/main/store/tail';
import { UNCOUNTED } from '../../../src/main/store/tail-document';
import { geminiJson, openHandsEvents, openHandsInstance, type TailCorpus } from '../../bench/tail-corpus';
import { sameAsFreshImport } from '../../integration/store/fresh-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-taildocstart-');

describe.each([
  ['Gemini CLI JSON', geminiJson, 'session.json'],
  ['OpenHands eval instance', openHandsInstance, 'instance.json'],
] as [string, TailCorpus, string][])('starting the tail of a %s document', (_name, corpus, name) => {
  async function imported(): Promise<{ file: string; id: string }> {
    const file = join(t.dir, name);
    await corpus.write(file, 0.05);
    return { file, id: (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]! };
  }

  it('takes the arrays a closed watch left on the unchanged file, and follows on from them', async () => {
    const { file, id } = await imported();
    const first = await openTail(t.store, id);
    corpus.append(file, 0);
    expect(await updateTail(t.store, first)).toMatchObject({ fast: true });
    const left = first.doc;
    expect(left).toBeDefined();
    closeTail(t.store, first);
    expect(first.doc).toBeUndefined();
    const again = await openTail(t.store, id);
    expect(again.doc).toBe(left);
    corpus.append(file, 1);
    expect(await updateTail(t.store, again)).toMatchObject({ fast: true, sessions: [{ id }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // Taken once: another watch of the file walks it itself.
    const other = await openTail(t.store, id);
    expect(other.doc).toBeDefined();
    expect(other.doc).not.toBe(left);
  });

  it('walks the document again when the stored source moved on after the watch closed', async () => {
    const { file, id } = await imported();
    const closed = await openTail(t.store, id);
    const live = await openTail(t.store, id);
    const left = closed.doc;
    closeTail(t.store, closed);
    // Another tail stores a new write: the parked arrays are those of the shorter document.
    corpus.append(file, 0);
    expect(await updateTail(t.store, live)).toMatchObject({ fast: true });
    const again = await openTail(t.store, id);
    expect(again.doc).toBeDefined();
    expect(again.doc).not.toBe(left);
    corpus.append(file, 1);
    expect(await updateTail(t.store, again)).toMatchObject({ fast: true, sessions: [{ id }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('walks the bytes the whole-file path imported: the next write takes the fast path', async () => {
    const { file, id } = await imported();
    const tail = await openTail(t.store, id);
    // Its state dropped: the next write goes through the whole file, which sets it again.
    tail.doc = undefined;
    corpus.append(file, 0);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    expect(tail.doc).toBeDefined();
    corpus.append(file, 1);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ id }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });
});

describe('starting the tail of an OpenHands event list', () => {
  it.each([false, true])(
    'finds the imported events by the closing bracket, uncounted, and follows on from them (pretty: %s)',
    async (pretty) => {
      const file = join(t.dir, 'events.json');
      await openHandsEvents.write(file, 0.05);
      // Written again as OpenHands' pretty-printed list, blank lines after it.
      const written = (): void => {
        if (pretty) writeFileSync(file, JSON.stringify(JSON.parse(readFileSync(file, 'utf8')), null, 2) + '\n\n');
      };
      written();
      const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
      const tail = await openTail(t.store, id);
      expect(tail.doc!.arrays).toMatchObject([{ key: '', count: UNCOUNTED }]);
      for (let n = 0; n < 2; n++) {
        openHandsEvents.append(file, n);
        written();
        expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ id }] });
        await sameAsFreshImport(t.store, t.dir, file, id);
      }
    },
  );
});
