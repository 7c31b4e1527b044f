/**
 * A million minimal Claude Code lines (uuid, parentUuid, a 2-character text; ~143 MB, one chain)
 * through `ctxscope import` and `ctxscope inspect`, each in its own Node process whose JS heap
 * is capped with --max-old-space-size. The importer holds every line until it has walked the
 * chain from the leaf, so what it keeps per line beside the message is what this shape costs
 * beyond its session. A regression that holds more per line (the parsed
 * line, the parentUuid string, a pointer column per field, a uuid table with its own key
 * array) runs out of heap and the process aborts, so the test fails on memory, not on a timing.
 *
 * The cap, measured on the source CLI (tsx) with Node 20: the code before the fix aborted at
 * 290 MB on `import` and 300 MB on `inspect`; this code aborts at 240 / 250 MB and completes at
 * 255 / 260 MB. The two are only ~40–50 MB apart (the session itself, ~225 MB of messages, is
 * most of the heap either way), so the cap sits between them: ~25 MB above what this code needs,
 * 10–30 MB below what the old code needed, rather than the usual ~50 MB of headroom. A million
 * lines, not fewer: a smaller file shrinks that gap in proportion. The whole file: 20–45 s on 2 cores, with the load.
 *
 * (Measured again after the split-response changes below: both the code before them and this
 * code complete at 250–260 MB on this shape, which they do not touch much, so its cap stays.)
 *
 * Split responses (each response two assistant lines sharing `message.id`, merged into one
 * message; a million lines, 154 MB, bound 616 MB) have their own file and cap. Merging made a
 * dictionary-mode copy per message once (~800 bytes instead of ~330); then it still kept the
 * first line's message beside its merged copy and built a message for the second line only to
 * drop it. The code before those fixes completes at 320 MB (aborts at 310) on both commands,
 * this code at 270 (aborts at 260): the cap is 295 MB, ~25 MB either side.
 *
 * A capped heap shows what is live, not the garbage V8 leaves when it is not short of memory,
 * and that garbage was most of the split shape's peak RSS (~600 MB of a 616 MB bound): the last
 * tests read the peak RSS of the built CLI itself (skipped without a build, `npm run build`;
 * `npm test` builds first) and hold it to 90 % of the bound, so that a regression fails before
 * the bound does. The code before: ~600 MB on both; this code: ~445 (`inspect`) and ~485
 * (`import`). (The source CLI through tsx takes ~80 MB more, so those tests use the build.)
 * The whole file: ~60 s on 2 cores.
 * docs/reliability.md; figures in docs/benchmarks.md "Memory" has the peak RSS figures.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cappedCli, expectRanToEnd } from '../../helpers/capped-cli';

const LINES = 1_000_000;
const HEAP_MB = 280;
const SPLIT_LINES = 1_000_000;
const SPLIT_HEAP_MB = 295;
/** The import's memory bound (docs/limits.md): peak RSS ≤ max(4 × input, 500 MB); the RSS tests allow 90 % of it. */
const BOUND_SHARE = 0.9;
const builtCli = resolve(__dirname, '../../../out/cli/index.js');
const root = resolve(__dirname, '../../..');

let dir: string;
let file: string;
let split: string;

const uuid = (k: number): string => `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`;

/** One chain of `lines` lines (`line(k)` is the rest of line k's record); the first line names the session (detection needs it). */
function writeChain(path: string, lines: number, line: (k: number) => string): void {
  const fd = openSync(path, 'w');
  try {
    for (let i = 0; i < lines; i += 10_000) {
      const chunk: string[] = [];
      for (let k = i; k < i + 10_000; k++) {
        const parent = k === 0 ? 'null' : `"${uuid(k - 1)}"`;
        const session = k === 0 ? ',"sessionId":"minimal"' : '';
        chunk.push(`{"uuid":"${uuid(k)}"${session},"parentUuid":${parent},${line(k)}}`);
      }
      writeSync(fd, chunk.join('\n') + '\n');
    }
  } finally {
    closeSync(fd);
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-cc-lines-'));
  file = join(dir, 'minimal.jsonl');
  // User and assistant in turn.
  writeChain(file, LINES, (k) => `"type":"${k % 2 ? 'assistant' : 'user'}","message":{"content":"${k % 2 ? 'ok' : 'hi'}"}`);
  split = join(dir, 'split.jsonl');
  // A user line, then one response split over two assistant lines.
  writeChain(split, SPLIT_LINES, (k) =>
    k % 3 === 0 ? '"type":"user","message":{"content":"hi"}' : `"type":"assistant","message":{"id":"m${Math.floor(k / 3)}","content":"ok"}`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Prints the process's peak resident set (KiB, threads included) to stderr as it exits. */
const PEAK_RSS = "data:text/javascript,process.on('exit',()=>process.stderr.write('peak-rss-kib '+process.resourceUsage().maxRSS+'\\n'))";

/** The built CLI (bin/ctxscope.mjs runs out/cli in its own process), uncapped: its peak RSS in bytes, or null if it failed. */
function builtPeakRss(...args: string[]): { status: number | null; peak: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', PEAK_RSS, join(root, 'bin/ctxscope.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', CTXSCOPE_DB: join(dir, 'unused.db') },
    maxBuffer: 1 << 24,
  });
  const m = /peak-rss-kib (\d+)/.exec(r.stderr);
  return { status: r.status, peak: m ? Number(m[1]) * 1024 : null, stderr: r.stderr };
}

describe(`a million minimal Claude Code lines within a ${HEAP_MB} MB heap`, () => {
  it('ctxscope import stores every message of the chain', () => {
    const r = cappedCli(HEAP_MB, dir, 'import', file, '--db', join(dir, 'store.db'), '--json');
    expectRanToEnd(r);
    const [result] = JSON.parse(r.stdout) as { messages: number; format: string }[];
    expect(result).toMatchObject({ format: 'claude-code', messages: LINES });
  }, 300_000);

  it('ctxscope inspect counts every message of the chain', () => {
    const r = cappedCli(HEAP_MB, dir, 'inspect', file, '--json');
    expectRanToEnd(r);
    const report = JSON.parse(r.stdout) as { format: string; sessions: { id: string; messages: { user: number; assistant: number } }[] };
    expect(report.format).toBe('claude-code');
    expect(report.sessions).toHaveLength(1);
    expect(report.sessions[0]).toMatchObject({ id: 'minimal', messages: { user: LINES / 2, assistant: LINES / 2 } });
  }, 300_000);
});

describe(`a million minimal Claude Code lines of split responses within a ${SPLIT_HEAP_MB} MB heap`, () => {
  // Lines 0, 3, … 999,999 are prompts; each response is lines 3n+1 and 3n+2.
  it('ctxscope import stores every merged message', () => {
    const r = cappedCli(SPLIT_HEAP_MB, dir, 'import', split, '--db', join(dir, 'split-capped.db'), '--json');
    expectRanToEnd(r);
    const [result] = JSON.parse(r.stdout) as { messages: number; format: string }[];
    expect(result).toMatchObject({ format: 'claude-code', messages: 666_667 });
  }, 300_000);

  it('ctxscope inspect counts every merged message', () => {
    const r = cappedCli(SPLIT_HEAP_MB, dir, 'inspect', split, '--json');
    expectRanToEnd(r);
    const report = JSON.parse(r.stdout) as { sessions: { messages: { user: number; assistant: number } }[] };
    expect(report.sessions[0]!.messages).toMatchObject({ user: 333_334, assistant: 333_333 });
  }, 300_000);
});

describe.skipIf(!existsSync(builtCli))('a million split-response lines: peak RSS of the built CLI within 90 % of the bound', () => {
  const bound = (): number => BOUND_SHARE * Math.max(4 * statSync(split).size, 500e6);

  it('ctxscope import', () => {
    const r = builtPeakRss('import', split, '--db', join(dir, 'split-rss.db'), '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(r.peak).not.toBeNull();
    expect(r.peak!).toBeLessThanOrEqual(bound());
  }, 300_000);

  it('ctxscope inspect', () => {
    const r = builtPeakRss('inspect', split, '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(r.peak).not.toBeNull();
    expect(r.peak!).toBeLessThanOrEqual(bound());
  }, 300_000);
});
