import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchRow, BenchSuite } from './harness';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const results: { suite: string; rows: BenchRow[] }[] = [];
for (const file of files) {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { suite: BenchSuite };
  process.stderr.write(`running ${mod.suite.name}...\n`);
  const rows = await mod.suite.run();
  results.push({ suite: mod.suite.name, rows });
}

const fmt = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));
const table = results.flatMap((r) =>
  r.rows.map((row) => ({
    suite: r.suite,
    case: row.name,
    value: `${fmt(row.value)} ${row.unit}`,
    target: row.target ?? '',
    ok: row.pass === undefined ? '' : row.pass ? 'yes' : 'NO',
  })),
);
const cols = ['suite', 'case', 'value', 'target', 'ok'] as const;
const width = Object.fromEntries(cols.map((c) => [c, Math.max(c.length, ...table.map((t) => t[c].length))])) as Record<
  (typeof cols)[number],
  number
>;
const line = (t: Record<(typeof cols)[number], string>): string => cols.map((c) => t[c].padEnd(width[c])).join('  ');
console.log(line({ suite: 'suite', case: 'case', value: 'value', target: 'target', ok: 'ok' }));
console.log(cols.map((c) => '-'.repeat(width[c])).join('  '));
for (const t of table) console.log(line(t));

const outDir = join(here, '..', '..', 'bench-results');
mkdirSync(outDir, { recursive: true });
const out = join(outDir, 'bench.json');
writeFileSync(
  out,
  JSON.stringify(
    { date: new Date().toISOString(), node: process.version, cpus: (await import('node:os')).cpus().length, results },
    null,
    2,
  ),
);
console.log(`\nwrote ${out}`);
