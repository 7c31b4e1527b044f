/**
 * Issue 6's targets: importing a transcript into SQLite with chars/4 estimates at ≥ 70% of the raw
 * pipeline floor (read, parse, extract text, insert in one transaction, chars/4), measured side by
 * side; loading a stored session's counts reads only numbers (~30 ms per 100k messages).
 */
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startImport } from '../../src/main/host/import-runner';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { importFileToStore, openStore } from '../../src/main/store/index';
import { bestOfMs, timeMs, type BenchSuite } from './harness';
import { writeClaudeCodeJsonl } from './corpus';

const FULL = process.env['CTXSCOPE_BENCH_FULL'] === '1';
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The floor: read, parse, pull the text out, insert it with a chars/4 estimate, one transaction. */
async function rawFloor(file: string, dbPath: string): Promise<void> {
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE m (i INTEGER PRIMARY KEY, body TEXT, est INTEGER)');
  const ins = db.prepare('INSERT INTO m (body, est) VALUES (?, ?)');
  const rows: [string, number][] = [];
  let carry = '';
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20, encoding: 'utf8' })) {
    const text = carry + (chunk as string);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const v = JSON.parse(text.slice(start, nl)) as { message?: { content?: unknown } };
      const body = JSON.stringify(v.message?.content ?? '');
      rows.push([body, Math.ceil(body.length / 4)]);
      start = nl + 1;
    }
    carry = text.slice(start);
  }
  db.transaction(() => {
    for (const r of rows) ins.run(r[0], r[1]);
  })();
  db.close();
}

export const suite: BenchSuite = {
  name: 'store',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-bench-store-'));
    try {
      const file = join(dir, 'big.jsonl');
      await writeClaudeCodeJsonl(file, FULL ? 100 : 30);
      const mb = statSync(file).size / 1e6;
      const floorMs = await timeMs(() => rawFloor(file, join(dir, 'floor.db')));
      const store = openStore(join(dir, 'store.db'));
      let ids: string[] = [];
      const importMs = await timeMs(async () => {
        // The import stores chars/4 counts with the sessions.
        ids = (await importFileToStore(store, file)).sessionIds;
      });
      const n = store.getRow(ids[0]!)!.messageCount;

      // The host's path: the import in a worker thread (the built one) while this thread keeps
      // serving; the longest event-loop stall and the process's peak RSS while it runs.
      const worker = join(root, 'out', 'cli', 'import-worker.js');
      const stallRows = [];
      if (existsSync(worker)) {
        const dbPath = join(dir, 'host.db');
        const hostStore = openStore(dbPath);
        const h = monitorEventLoopDelay({ resolution: 5 });
        const rss0 = process.memoryUsage().rss;
        let peak = rss0;
        const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
        h.enable();
        await startImport({ path: file, store: hostStore, dbPath, workerFile: worker }).done;
        h.disable();
        clearInterval(timer);
        hostStore.close();
        const maxStall = h.max / 1e6;
        stallRows.push(
          { name: `main-thread stall during a ${mb.toFixed(0)} MB import in the worker`, value: maxStall, unit: 'ms (max event-loop delay)', target: '≤ 50 ms', pass: maxStall <= 50 },
          { name: 'peak RSS growth during that import', value: (peak - rss0) / 1e6, unit: 'MB', target: `≤ 500 MB at 100 MB`, pass: (peak - rss0) / 1e6 <= (500 * mb) / 100 },
        );
      } else stallRows.push({ name: 'main-thread stall during import', value: 0, unit: 'skipped', note: 'run npm run build first' });
      const loadMs = await bestOfMs(3, () => store.loadCounts(ids[0]!, 'chars4'));
      store.close();
      const ratio = floorMs / importMs;
      return [
        { name: `raw pipeline floor, ${mb.toFixed(0)} MB`, value: mb / (floorMs / 1000), unit: 'MB/s' },
        { name: 'import into the store with chars/4 counts', value: mb / (importMs / 1000), unit: 'MB/s' },
        { name: 'import vs floor', value: ratio * 100, unit: '%', target: '≥ 70%', pass: ratio >= 0.7 },
        { name: `load stored counts (${n} messages)`, value: (loadMs * 100_000) / n, unit: 'ms / 100k messages', target: '~30 ms', pass: (loadMs * 100_000) / n <= 45 },
        ...stallRows,
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
