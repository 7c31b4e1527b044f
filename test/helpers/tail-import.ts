/**
 * A transcript written into a temp store's folder, imported, and a live tail opened on it: how
 * every tail fast-path test starts.
 */
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { join } from 'node:path';
import { importFileToStore } from '../../src/main/store/index';
import { openTail, updateTail, type TailState } from '../../src/main/store/tail';
import { sameAsFreshImport } from '../integration/store/fresh-import';
import type { TempStore } from './temp-store';

export async function importedForTail(t: TempStore, name: string, text: string): Promise<{ file: string; id: string; tail: TailState }> {
  const file = join(t.dir, name);
  writeFileSync(file, text);
  const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
  return { file, id, tail: await openTail(t.store, id) };
}

/** What the tail bench generates (test/bench/tail-corpus.ts): a session written, then grown turn by turn. */
interface BenchCorpus {
  readonly write: (path: string, mb: number) => Promise<number>;
  readonly append: (path: string, n: number) => void;
}

/**
 * A small session of the tail bench's generator, imported, then grown twice: each update must take
 * the fast path and store what a fresh import of the grown file stores.
 */
export async function followsBenchCorpusFast(t: TempStore, corpus: BenchCorpus, name: string): Promise<void> {
  const file = join(t.dir, name);
  await corpus.write(file, 0.05);
  const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
  const tail = await openTail(t.store, id);
  for (let n = 0; n < 2; n++) {
    corpus.append(file, n);
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ id }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  }
}
