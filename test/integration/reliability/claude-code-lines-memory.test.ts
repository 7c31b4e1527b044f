/**
 * A million minimal Claude Code lines (uuid, parentUuid, a 2-character text; ~143 MB, one chain)
 * through `ctxscope import` and `ctxscope inspect`, each in its own Node process whose JS heap
 * is capped with --max-old-space-size. The importer holds every line until it has walked the
 * chain from the leaf, so what it keeps per line beside the message is what this shape costs
 * beyond its session (issue 14 item 12). A regression that holds more per line (the parsed
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
 * Split responses (two assistant lines sharing `message.id`, merged into one message) have their
 * own file and cap, `inspect` only: merging made a dictionary-mode copy per message (~800 bytes
 * instead of ~330). Half a million lines, to keep the runtime down (their gap is wide): the code
 * before that fix aborted at 240 MB and completed at 270; this code aborts at 150 and completes
 * at 170; the cap is 210 MB. (On a million lines: aborted even at 460 MB, completes at 340.)
 * ~5 s more.
 * README "Reliability and security" → "Memory" has the peak RSS figures.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const LINES = 1_000_000;
const HEAP_MB = 280;
const SPLIT_LINES = 500_000;
const SPLIT_HEAP_MB = 210;
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
  writeChain(split, SPLIT_LINES, (k) => (k % 3 === 0 ? '"type":"user","message":{"content":"hi"}' : `"type":"assistant","message":{"id":"m${Math.floor(k / 3)}","content":"ok"}`));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI from source in one process (tsx as a loader, so the heap cap applies to it). */
function ctxscope(heapMb: number, ...args: string[]): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, '--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', CTXSCOPE_DB: join(dir, 'unused.db') },
    maxBuffer: 1 << 24,
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe(`a million minimal Claude Code lines within a ${HEAP_MB} MB heap`, () => {
  it('ctxscope import stores every message of the chain', () => {
    const r = ctxscope(HEAP_MB, 'import', file, '--db', join(dir, 'store.db'), '--json');
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    const [result] = JSON.parse(r.stdout) as { messages: number; format: string }[];
    expect(result).toMatchObject({ format: 'claude-code', messages: LINES });
  }, 300_000);

  it('ctxscope inspect counts every message of the chain', () => {
    const r = ctxscope(HEAP_MB, 'inspect', file, '--json');
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { format: string; sessions: { id: string; messages: { user: number; assistant: number } }[] };
    expect(report.format).toBe('claude-code');
    expect(report.sessions).toHaveLength(1);
    expect(report.sessions[0]).toMatchObject({ id: 'minimal', messages: { user: LINES / 2, assistant: LINES / 2 } });
  }, 300_000);
});

describe(`half a million minimal Claude Code lines of split responses within a ${SPLIT_HEAP_MB} MB heap`, () => {
  it('ctxscope inspect counts every merged message', () => {
    const r = ctxscope(SPLIT_HEAP_MB, 'inspect', split, '--json');
    // Lines 0, 3, … 499,998 are prompts; each response is lines 3n+1 and 3n+2, the last one only line 499,999.
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { sessions: { messages: { user: number; assistant: number } }[] };
    expect(report.sessions[0]!.messages).toMatchObject({ user: 166_667, assistant: 166_667 });
  }, 300_000);
});
