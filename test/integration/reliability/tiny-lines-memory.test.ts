/**
 * A million tiny JSONL lines (33.5 MB, the input shape that costs the most per byte) through
 * `ctxscope import` and `ctxscope inspect`, each in its own Node process whose JS heap is capped
 * with --max-old-space-size. A regression that holds more per line (a raw string or a spare
 * array per message, a memo entry per message, the whole file) runs out of heap and the process
 * aborts, so the test fails on memory, not on a timing. docs/reliability.md has the peak RSS
 * figures; this cap is below what the code before the fix needed (it aborted at 280 MB on both
 * commands) and ~50 MB above what it needs now (inspect aborts at 250 MB).
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cappedCli, expectRanToEnd } from '../../helpers/capped-cli';

const LINES = 1_000_000;
const HEAP_MB = 300;

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-tiny-'));
  file = join(dir, 'tiny.jsonl');
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < LINES; i += 10_000) {
      const chunk: string[] = [];
      for (let k = i; k < i + 10_000; k++) chunk.push(k % 2 ? '{"role":"assistant","content":"ok"}' : '{"role":"user","content":"hi"}');
      writeSync(fd, chunk.join('\n') + '\n');
    }
  } finally {
    closeSync(fd);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(`a million tiny lines within a ${HEAP_MB} MB heap`, () => {
  it('ctxscope import stores every message', () => {
    const r = cappedCli(HEAP_MB, dir, 'import', file, '--db', join(dir, 'store.db'), '--json');
    expectRanToEnd(r);
    const [result] = JSON.parse(r.stdout) as { messages: number; format: string }[];
    expect(result).toMatchObject({ format: 'jsonl', messages: LINES });
  }, 300_000);

  it('ctxscope inspect counts every message', () => {
    const r = cappedCli(HEAP_MB, dir, 'inspect', file, '--json');
    expectRanToEnd(r);
    const report = JSON.parse(r.stdout) as { sessions: { messages: { user: number; assistant: number } }[] };
    expect(report.sessions[0]!.messages).toMatchObject({ user: LINES / 2, assistant: LINES / 2 });
  }, 300_000);
});
