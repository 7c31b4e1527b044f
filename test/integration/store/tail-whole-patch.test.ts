/**
 * The whole-file path hands the host the messages it wrote when the ones before them and the
 * session's fields are kept (docs/user-guide.md "Live tail"), so a host patches the session it holds instead
 * of reading it all again — and keeps what its replays extracted. The patched session must be the
 * stored one, for a line format with its fast path's state dropped (Gemini CLI JSONL) and a JSON document
 * written again whole (Gemini CLI JSON), generated as the tail bench makes them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendToSession } from '../../../src/main/host/session-append';
import { importFileToStore } from '../../../src/main/store/index';
import { openTail, updateTail } from '../../../src/main/store/tail';
import { geminiJson, geminiJsonl, openHandsEvents, type TailCorpus } from '../../bench/tail-corpus';
import { sameAsFreshImport } from './fresh-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tail-whole-', 's.db');

describe.each([
  ['Gemini CLI JSONL', geminiJsonl, 'session.jsonl'],
  ['Gemini CLI JSON', geminiJson, 'session.json'],
  ['OpenHands events', openHandsEvents, 'events.json'],
] as [string, TailCorpus, string][])('the whole-file path on %s', (_name, corpus, name) => {
  it('hands over the messages it wrote: the held session patched with them is the stored one', async () => {
    const file = join(t.dir, name);
    await corpus.write(file, 0.05);
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    const tail = await openTail(t.store, id);
    let held = t.store.loadSession(id)!;
    for (let n = 0; n < 2; n++) {
      corpus.append(file, n);
      // Gemini CLI JSONL and JSON have fast paths (core/formats/gemini-cli.ts, store/tail-document.ts): dropped, as the tail does when it cannot take them.
      tail.lines = tail.doc = undefined;
      const u = await updateTail(t.store, tail);
      expect(u).toMatchObject({ fast: false, rewritten: false });
      const s = u!.sessions[0]!;
      expect(s.changedFrom).toBeGreaterThan(0);
      const patched = appendToSession(held, { from: s.changedFrom, previous: s.written!.previous, messages: s.written!.messages })!;
      expect(patched).toEqual(t.store.loadSession(id));
      await sameAsFreshImport(t.store, t.dir, file, id);
      held = patched;
    }
  });
});
