/**
 * A watch that stops keeps a document's arrays (host/tail.ts → store closeTail), so the watch
 * begun again on the unchanged file (the window switching back to the session) does not walk the
 * document again — and one begun after the file changed does, and follows it exactly.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { TailService } from '../../../src/main/host/tail';
import type * as TailDocument from '../../../src/main/store/tail-document';
import { importFileToStore } from '../../../src/main/store/index';
import { geminiJson } from '../../bench/tail-corpus';
import { sameAsFreshImport } from '../store/fresh-import';
import { tempStoreEach } from '../../helpers/temp-store';

// The walk of a document's arrays at a watch's start, counted.
const walks = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../../src/main/store/tail-document', async (importOriginal) => {
  const actual = await importOriginal<typeof TailDocument>();
  return {
    ...actual,
    documentTail: (...args: Parameters<typeof actual.documentTail>) => (walks.n++, actual.documentTail(...args)),
    documentTailOf: (...args: Parameters<typeof actual.documentTailOf>) => (walks.n++, actual.documentTailOf(...args)),
  };
});

const t = tempStoreEach('ctxscope-tailpark-');

describe('a stopped watch keeps the arrays of a document', () => {
  it('a watch begun again on the unchanged file takes them; after a change it walks again', async () => {
    const file = join(t.dir, 'session.json');
    await geminiJson.write(file, 0.05);
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    const updated: string[] = [];
    const tails = new TailService({ store: t.store, emit: (event) => void updated.push(event), invalidate: () => undefined });
    try {
      await tails.watchSession(id, true);
      expect(walks.n).toBe(1);
      // Parked as the watch stops (its state settled long before).
      await tails.watchSession(id, false);
      await tails.watchSession(id, true);
      expect(walks.n).toBe(1);
      await tails.watchSession(id, false);
      // Written again while nobody watched: the parked arrays are not those of the file now (it is
      // read whole, and its arrays walked from what that import read).
      geminiJson.append(file, 0);
      await tails.watchSession(id, true);
      await vi.waitFor(() => expect(updated).toContain('sessionUpdated'), { timeout: 5000 });
      expect(walks.n).toBe(2);
      await sameAsFreshImport(t.store, t.dir, file, id);
    } finally {
      tails.close();
    }
  });
});
