/**
 * Target: parse and normalise a Claude Code JSONL at ≥ 50% of a bare chunked
 * line-split + JSON.parse pass over the same file, side by side; peak RSS under 2× the file.
 */
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSource } from '../../src/core/import/index';
import { fileSource } from '../../src/main/io/file-source';
import { timeMs, type BenchRow, type BenchSuite } from './harness';
import { writeClaudeCodeJsonl } from './corpus';

const FULL = process.env['CTXSCOPE_BENCH_FULL'] === '1';

async function barePass(path: string): Promise<number> {
  let carry = '';
  let n = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, encoding: 'utf8' })) {
    const text = carry + (chunk as string);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      JSON.parse(text.slice(start, nl));
      n++;
      start = nl + 1;
    }
    carry = text.slice(start);
  }
  return n;
}

/** One JSON document of about `megabytes` MB: an OpenAI chat request whose messages alternate. */
async function writeChatDocument(path: string, megabytes: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('{"model":"gpt-4o","messages":[');
  const body = 'x'.repeat(600);
  let bytes = 0;
  for (let n = 0; bytes < megabytes * 1_000_000; n++) {
    const m = n % 2 === 0 ? { role: 'user', content: `question ${n} ${body}` } : { role: 'assistant', content: `answer ${n}` };
    const piece = (n > 0 ? ',' : '') + JSON.stringify(m);
    bytes += Buffer.byteLength(piece);
    if (!out.write(piece)) await once(out, 'drain');
  }
  out.end(']}');
  await once(out, 'finish');
}

/** A JSON document is read whole (readAll) and parsed once: beside a bare read + JSON.parse, no target. */
async function documentRows(dir: string): Promise<BenchRow[]> {
  const file = join(dir, 'big.json');
  await writeChatDocument(file, FULL ? 200 : 50);
  const mb = statSync(file).size / 1e6;
  const bareMs = await timeMs(() => JSON.parse(readFileSync(file, 'utf8')));
  let messages = 0;
  const importMs = await timeMs(async () => {
    const out = await importSource(fileSource(file), { format: 'openai-chat' });
    messages = out.sessions[0]!.messages.length;
  });
  return [
    { name: `bare readFile + JSON.parse, ${mb.toFixed(0)} MB JSON document`, value: mb / (bareMs / 1000), unit: 'MB/s' },
    { name: `import JSON document (OpenAI chat, ${messages} messages)`, value: mb / (importMs / 1000), unit: 'MB/s' },
    { name: 'JSON document: import vs bare', value: (bareMs / importMs) * 100, unit: '%' },
  ];
}

export const suite: BenchSuite = {
  name: 'import',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-bench-import-'));
    try {
      const file = join(dir, 'big.jsonl');
      await writeClaudeCodeJsonl(file, 100); // the size, always
      const mb = statSync(file).size / 1e6;
      await barePass(file);
      const bareMs = await timeMs(() => barePass(file));
      const rss0 = process.memoryUsage().rss;
      let peak = rss0;
      const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      let messages = 0;
      const importMs = await timeMs(async () => {
        const out = await importSource(fileSource(file));
        messages = out.sessions[0]!.messages.length;
      });
      clearInterval(timer);
      const ratio = bareMs / importMs;
      const rssGrowth = (peak - rss0) / 1e6;
      const rows: BenchRow[] = [
        { name: `bare chunked split + JSON.parse, ${mb.toFixed(0)} MB`, value: mb / (bareMs / 1000), unit: 'MB/s' },
        { name: `import Claude Code (parse + normalise, ${messages} messages)`, value: mb / (importMs / 1000), unit: 'MB/s' },
        { name: 'import vs bare pass', value: ratio * 100, unit: '%', target: '≥ 50%', pass: ratio >= 0.5 },
        {
          name: 'peak RSS growth during import',
          value: rssGrowth / mb,
          unit: '× file size',
          target: '< 2×',
          pass: rssGrowth / mb < 2,
          note: `${rssGrowth.toFixed(0)} MB`,
        },
      ];
      // After the JSONL rows, so that they are measured exactly as before.
      rmSync(file);
      return [...rows, ...(await documentRows(dir))];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
