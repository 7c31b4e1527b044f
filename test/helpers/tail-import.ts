/**
 * A transcript written into a temp store's folder, imported, and a live tail opened on it: how
 * every tail fast-path test starts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFileToStore } from '../../src/main/store/index';
import { openTail, type TailState } from '../../src/main/store/tail';
import type { TempStore } from './temp-store';

export async function importedForTail(t: TempStore, name: string, text: string): Promise<{ file: string; id: string; tail: TailState }> {
  const file = join(t.dir, name);
  writeFileSync(file, text);
  const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
  return { file, id, tail: await openTail(t.store, id) };
}
