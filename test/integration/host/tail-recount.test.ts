/**
 * After a fast-path append the host asks for an exact recount of the counts the tail extended
 * with scaled estimates (docs/user-guide.md "Live tail"). It must name tokenizers, not the keys counts are
 * stored under (`calibrated@v1`): a count worker asked for `calibrated@v1` loads the whole session
 * and fails, so the exact counts never came back and the CPU went to nothing. It waits for a quiet
 * moment, so the chart replay of the same update is not slowed by it.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TailService } from '../../../src/main/host/tail';
import { importFileToStore } from '../../../src/main/store/index';
import { countWith, getTokenizer } from '../../../src/core/tokens/index';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tail-recount-', 's.db');

const line = (role: string, content: string): string => JSON.stringify({ role, content });

describe('the recount after a fast-path append', () => {
  it('asks for the tokenizers whose counts were extended, by name', async () => {
    const file = join(t.dir, 'chat.jsonl');
    writeFileSync(file, [line('user', 'hello'), line('assistant', 'hi there')].join('\n') + '\n');
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    expect(getTokenizer('calibrated')).toBeDefined();
    t.store.saveCounts(id, countWith(t.store.loadSession(id)!, 'calibrated'));
    const asked: string[] = [];
    let updated: () => void = () => {};
    const done = new Promise<void>((r) => (updated = r));
    const tail = new TailService({
      store: t.store,
      emit: (event) => event === 'sessionUpdated' && updated(),
      invalidate: () => {},
      recount: (_id, tokenizer) => asked.push(tokenizer),
      recountDelayMs: 100,
    });
    try {
      await tail.watchSession(id, true);
      appendFileSync(file, [line('user', 'and now?'), line('assistant', 'done')].join('\n') + '\n');
      await done;
      // Not at once: the chart the window asks for on this update gets the CPU first.
      expect(asked).toEqual([]);
      await new Promise((r) => setTimeout(r, 300));
      expect(asked).toEqual(['calibrated']);
      expect(t.store.loadCounts(id, 'calibrated')).toMatchObject({ approximate: true });
      // What it asks for is a tokenizer a count can run with.
      for (const name of asked) expect(() => countWith(t.store.loadSession(id)!, name)).not.toThrow();
    } finally {
      tail.close();
    }
  });
});
