/**
 * One import in a process of its own, for import-line.bench.ts: imports argv[2] into a fresh
 * database at argv[3] and prints `{"maxRssBytes":…,"error":…}` — the peak resident set of the
 * whole process, as the CLI's `import` would have it.
 */
import { importFileToStore, openStore } from '../../src/main/store/index';

const [file, db] = process.argv.slice(2) as [string, string];
const store = openStore(db);
let error: string | null = null;
try {
  await importFileToStore(store, file);
} catch (e) {
  error = e instanceof Error ? e.message : String(e);
}
store.close();
// resourceUsage().maxRSS is in kilobytes.
process.stdout.write(`${JSON.stringify({ maxRssBytes: process.resourceUsage().maxRSS * 1024, error })}\n`);
