/**
 * Peak memory of an import on the input shape that costs the most per byte: a million tiny JSONL
 * lines (~33 MB). Not a test (no timings or memory figures belong in tests): run it by hand,
 *   node --import tsx test/integration/reliability/peak-memory.mts [lines] [raw]
 * and compare the peak RSS with docs/reliability.md (at most 4× the input or 500 MB).
 */
import { mkdtempSync, openSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSource } from '../../../src/core/import/index';
import { fileSource } from '../../../src/main/io/file-source';

const lines = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'ctxscope-mem-'));
const file = join(dir, 'tiny.jsonl');
const fd = openSync(file, 'w');
for (let i = 0; i < lines; i += 10_000) {
  const chunk: string[] = [];
  for (let k = i; k < Math.min(lines, i + 10_000); k++)
    chunk.push(k % 2 ? '{"role":"assistant","content":"ok"}' : '{"role":"user","content":"hi"}');
  writeSync(fd, chunk.join('\n') + '\n');
}
closeSync(fd);

let peak = process.memoryUsage().rss;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
const started = performance.now();
const out = await importSource(fileSource(file), { keepRaw: process.argv[3] === 'raw' });
peak = Math.max(peak, process.memoryUsage().rss);
clearInterval(sampler);
const size = statSync(file).size;
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${lines.toLocaleString('en-US')} lines, ${(size / 1e6).toFixed(1)} MB: ${out.sessions[0]!.messages.length.toLocaleString('en-US')} messages, peak RSS ${Math.round(peak / 1e6)} MB (${(peak / size).toFixed(1)}× the input), ${Math.round(performance.now() - started)} ms\n`,
);
