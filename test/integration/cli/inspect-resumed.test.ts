/**
 * A Claude Code session resumed with `--resume`/`--continue` starts a new file that repeats the calls
 * before it. `inspect DIR` counts each call (same `message.id` and `requestId`) once in its totals
 * and says how many it skipped; each file's own row stays as the file reads.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectFiles, summarise, type InspectJob } from '../../../src/cli/commands/inspect';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
let dir: string;

const base = { isSidechain: false, cwd: '/p', version: '2.0.31' };
const MODEL = 'claude-sonnet-4-5-20250929';
function line(
  sessionId: string,
  uuid: string,
  parent: string | null,
  type: 'user' | 'assistant',
  second: number,
  extra: Record<string, unknown>,
): string {
  return JSON.stringify({
    ...base,
    sessionId,
    parentUuid: parent,
    uuid,
    type,
    timestamp: `2026-01-01T00:00:${String(second).padStart(2, '0')}Z`,
    ...extra,
  });
}
const ask = (sessionId: string, uuid: string, parent: string | null, second: number, text: string) =>
  line(sessionId, uuid, parent, 'user', second, { message: { role: 'user', content: text } });
const answer = (
  sessionId: string,
  uuid: string,
  parent: string,
  second: number,
  id: string,
  requestId: string,
  usage: Record<string, unknown>,
) =>
  line(sessionId, uuid, parent, 'assistant', second, {
    requestId,
    message: { id, role: 'assistant', model: MODEL, content: [{ type: 'text', text: 'ok' }], usage },
  });

// Call 1: 1,000 input, 100 output. Call 2: 10 input, 2,000 read, 50 output. Call 3 (only in the resumed
// file): 5 input, 2,100 read, 300 written to the 1-hour cache, 20 output.
const CALL1 = { input_tokens: 1000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 100 };
const CALL2 = { input_tokens: 10, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0, output_tokens: 50 };
const CALL3 = {
  input_tokens: 5,
  cache_read_input_tokens: 2100,
  cache_creation_input_tokens: 300,
  cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 300 },
  output_tokens: 20,
};

function original(): string {
  return (
    [
      ask('s1', 'u1', null, 0, 'hello'),
      answer('s1', 'a1', 'u1', 1, 'msg_1', 'req_1', CALL1),
      ask('s1', 'u2', 'a1', 2, 'again'),
      answer('s1', 'a2', 'u2', 3, 'msg_2', 'req_2', CALL2),
    ].join('\n') + '\n'
  );
}
/** The resumed file: the earlier lines again (new session id), then one more call. */
function resumed(): string {
  return (
    [
      ask('s2', 'u1', null, 0, 'hello'),
      answer('s2', 'a1', 'u1', 1, 'msg_1', 'req_1', CALL1),
      ask('s2', 'u2', 'a1', 2, 'again'),
      answer('s2', 'a2', 'u2', 3, 'msg_2', 'req_2', CALL2),
      ask('s2', 'u3', 'a2', 30, 'and once more'),
      answer('s2', 'a3', 'u3', 31, 'msg_3', 'req_3', CALL3),
    ].join('\n') + '\n'
  );
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-inspect-resumed-'));
  mkdirSync(join(dir, 'project'));
  writeFileSync(join(dir, 'project', 'a-original.jsonl'), original());
  writeFileSync(join(dir, 'project', 'b-resumed.jsonl'), resumed());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// claude-sonnet-4-5: $3 input, $0.30 read, $3.75 5-minute write, $6 1-hour write, $15 output per 1M.
// Call 1: (1,000 × 3 + 100 × 15) / 1M = $0.0045
// Call 2: (10 × 3 + 2,000 × 0.3 + 50 × 15) / 1M = (30 + 600 + 750) / 1M = $0.00138
// Call 3: (5 × 3 + 2,100 × 0.3 + 300 × 6 + 20 × 15) / 1M = (15 + 630 + 1,800 + 300) / 1M = $0.002745
const ALL_THREE = 0.0045 + 0.00138 + 0.002745;

describe('inspect DIR with a resumed session', () => {
  it('counts a repeated call once in the totals, and says how many it skipped', async () => {
    const files = ['a-original.jsonl', 'b-resumed.jsonl'].map((f) => join(dir, 'project', f));
    const jobs = files.map((file): InspectJob => ({ file, exact: false }));
    const report = summarise(
      await inspectFiles(
        jobs,
        files.map((f) => statSync(f).size),
        1,
      ),
    );
    // Each file as it reads: 2 and 3 calls.
    expect(report.files.map((f) => f.calls)).toEqual([2, 3]);
    const t = report.summary;
    expect(t.calls).toBe(3);
    expect(t.duplicateCalls).toBe(2);
    expect(t.reported).toEqual({ input: 1000 + 10 + 5, cacheRead: 2000 + 2100, cacheWrite: 300, output: 100 + 50 + 20 });
    expect(t.cost).toBeCloseTo(ALL_THREE, 12);
  });

  it('without the repeats nothing is skipped', async () => {
    const file = join(dir, 'project', 'b-resumed.jsonl');
    const report = summarise(await inspectFiles([{ file, exact: false }], [statSync(file).size], 1));
    expect(report.summary).toMatchObject({ calls: 3, duplicateCalls: 0 });
    expect(report.summary.cost).toBeCloseTo(ALL_THREE, 12);
  });

  it('the CLI says so under the table', () => {
    const r = spawnSync(process.execPath, [bin, 'inspect', join(dir, 'project')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, CTXSCOPE_DB: join(dir, 'cli.db') },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('2 call(s) repeated by resumed sessions counted once');
    expect(r.stdout).toMatch(/total .*\$0\.01/);
  });
});
