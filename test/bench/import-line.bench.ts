/**
 * Imports of one huge line against the stated memory bound, max(4× the input, 500 MB)
 * (docs/limits.md, "Bounds"): a 50 MB and a 100 MB single-line JSONL transcript (refused:
 * longer than MAX_LINE_BYTES, with the line and the bound named), and a line just under the
 * limit (imported). Each import runs in a process of its own (import-line-child.ts, through tsx)
 * and reports that process's peak RSS; `node` + tsx alone take ~180 MB of it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_LINE_BYTES } from '../../src/core/import/read';
import type { BenchRow, BenchSuite } from './harness';

const here = dirname(fileURLToPath(import.meta.url));
const tsx = join(here, '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
const MB = 1_000_000;

/** A JSONL transcript whose first line is a user message of `bytes` characters of prose, then a short answer. */
function writeOneLine(path: string, bytes: number): void {
  const text = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, bytes);
  writeFileSync(path, `${JSON.stringify({ role: 'user', content: text })}\n${JSON.stringify({ role: 'assistant', content: 'ok' })}\n`);
}

function peakOf(file: string, db: string): { maxRssBytes: number; error: string | null } {
  const out = execFileSync(process.execPath, [tsx, join(here, 'import-line-child.ts'), file, db], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as { maxRssBytes: number; error: string | null };
}

export const suite: BenchSuite = {
  name: 'import-line',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-line-'));
    const rows: BenchRow[] = [];
    try {
      const cases = [
        { label: 'a line just under the limit', bytes: MAX_LINE_BYTES - 64 * 1024 },
        { label: '50 MB single line', bytes: 50 * MB },
        { label: '100 MB single line', bytes: 100 * MB },
      ];
      for (const c of cases) {
        const file = join(dir, `${c.bytes}.jsonl`);
        writeOneLine(file, c.bytes);
        const size = statSync(file).size;
        const bound = Math.max(4 * size, 500 * MB);
        const r = peakOf(file, join(dir, `${c.bytes}.db`));
        rows.push({
          name: `${c.label} (${(size / MB).toFixed(1)} MB): ${r.error ? 'refused' : 'imported'}`,
          value: r.maxRssBytes / MB,
          unit: 'MB peak RSS',
          target: `≤ ${(bound / MB).toFixed(0)} MB`,
          pass: r.maxRssBytes <= bound,
          ...(r.error ? { note: r.error } : {}),
        });
        rmSync(file);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
