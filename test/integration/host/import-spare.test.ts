/**
 * The spare import worker (src/main/host/import-spare.ts; skipped without a build): started before
 * there is a file, it loads the import's code and opens the store, and the next import is run by
 * it — progressively, with its prefix visible first, cancelled as any import, and storing what a
 * worker started for the file stores.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startImport, type ImportRunOptions } from '../../../src/main/host/import-runner';
import { SpareImportWorker } from '../../../src/main/host/import-spare';
import { openStore } from '../../../src/main/store/index';
import { claudeCodeText } from '../../bench/corpus';
import { tempStoreEach } from '../../helpers/temp-store';

const worker = join(__dirname, '../../../out/cli/import-worker.js');
const t = tempStoreEach('ctxscope-import-spare-');
const before = process.env['CTXSCOPE_PROGRESSIVE'];

describe.skipIf(!existsSync(worker))('a spare import worker', () => {
  let spare: SpareImportWorker | undefined;
  beforeEach(() => {
    // Every file progressively: a 64 KB prefix, then 256 KB chunks (the worker reads this as it starts).
    process.env['CTXSCOPE_PROGRESSIVE'] = '0,64,256';
  });
  afterEach(async () => {
    await spare?.close();
    if (before === undefined) delete process.env['CTXSCOPE_PROGRESSIVE'];
    else process.env['CTXSCOPE_PROGRESSIVE'] = before;
  });

  /** A file of `calls` calls imported into the test's store by the built worker (through `spare` when given). */
  const importCalls = (calls: number, options: Partial<ImportRunOptions> = {}) => {
    const file = join(t.dir, 'cc.jsonl');
    writeFileSync(file, claudeCodeText({ calls }));
    return { file, run: startImport({ path: file, store: t.store, dbPath: t.store.db.name, workerFile: worker, ...options }) };
  };

  const started = async (s: SpareImportWorker): Promise<void> => {
    s.prepare(0);
    for (let i = 0; i < 200 && !s.waiting; i++) await new Promise((r) => setTimeout(r, 10));
    expect(s.waiting).toBe(true);
  };

  it('runs the next import: its prefix visible first, then stored as a worker started for the file stores it', async () => {
    spare = new SpareImportWorker(worker, t.store.db.name);
    await started(spare);
    let visibleAt = -1;
    let grown = 0;
    const { file, run } = importCalls(600, {
      spare,
      progressive: true,
      onVisible: () => (visibleAt = grown),
      onGrown: () => grown++,
    });
    const r = await run.done;
    // Taken: the import ran in it, and none waits until the next prepare.
    expect(spare.waiting).toBe(false);
    expect(visibleAt).toBe(0);
    expect(grown).toBeGreaterThanOrEqual(2);
    const viaSpare = t.store.loadSession(r.sessionIds[0]!)!;

    // The same file through a worker started for it, into another store.
    const otherPath = join(t.dir, 'other.db');
    const other = openStore(otherPath);
    try {
      const r2 = await startImport({ path: file, store: other, dbPath: otherPath, workerFile: worker, progressive: true }).done;
      const direct = other.loadSession(r2.sessionIds[0]!)!;
      expect(viaSpare.messages).toEqual(direct.messages);
      expect(viaSpare.sourceCompactions).toEqual(direct.sourceCompactions);
    } finally {
      other.close();
    }
  }, 60_000);

  it('imports into the store its request names, not only the one it opened ahead', async () => {
    spare = new SpareImportWorker(worker, join(t.dir, 'elsewhere.db'));
    await started(spare);
    const r = await importCalls(60, { spare }).run.done;
    expect(spare.waiting).toBe(false);
    expect(t.store.loadSession(r.sessionIds[0]!)!.messages.length).toBeGreaterThan(60);
  }, 60_000);

  it('is cancelled as any import: nothing of it is stored', async () => {
    spare = new SpareImportWorker(worker, t.store.db.name);
    await started(spare);
    const { run } = importCalls(3000, { spare, progressive: true, onVisible: () => run.cancel() });
    await expect(run.done).rejects.toMatchObject({ code: 'cancelled' });
    expect(t.store.listSessions()).toEqual([]);
  }, 60_000);

  it('starts no spare once closed, even one prepared before', async () => {
    spare = new SpareImportWorker(worker, t.store.db.name);
    await started(spare);
    const first = spare.take();
    expect(first).toBeDefined();
    await first!.terminate();
    spare.prepare(0);
    spare.prepare(0);
    await spare.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(spare.waiting).toBe(false);
    expect(spare.take()).toBeUndefined();
  }, 60_000);
});
