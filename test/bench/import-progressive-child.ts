/**
 * One progressive import in a process of its own, for progressive.bench.ts: the app's path
 * (src/main/host/import-runner.ts `startImport` with the built import worker, a prefix then
 * chunks through the live tail's append path) of argv[2] into a fresh database at argv[3]. Prints
 * `{"ms":…,"visibleMs":…,"calls":…,"baseRssMb":…,"peakRssMb":…}`: the import's time, when its
 * first calls were stored, and the process's resident set before the import and at its peak
 * during it (VmRSS sampled every 20 ms: the main thread and the import worker's threads).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startImport } from '../../src/main/host/import-runner';
import { openStore } from '../../src/main/store/index';

const [file, dbPath] = process.argv.slice(2) as [string, string];
const worker = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'out', 'cli', 'import-worker.js');
const rssMb = (): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024;

const store = openStore(dbPath);
const baseRssMb = rssMb();
let peakRssMb = baseRssMb;
const timer = setInterval(() => (peakRssMb = Math.max(peakRssMb, rssMb())), 20);
let visibleMs = NaN;
const t0 = performance.now();
const r = await startImport({
  path: file,
  store,
  dbPath,
  workerFile: worker,
  progressive: true,
  onVisible: () => (visibleMs = performance.now() - t0),
}).done;
const ms = performance.now() - t0;
clearInterval(timer);
peakRssMb = Math.max(peakRssMb, rssMb());
const calls = store.getRow(r.sessionIds[0]!)!.stepCount;
store.close();
process.stdout.write(`${JSON.stringify({ ms, visibleMs, calls, baseRssMb, peakRssMb })}\n`);
