/**
 * Live tail on a 100 MB Claude Code session (README "Live tail"): the time from a two-line append
 * (a user prompt and the answer, chained to the last line) to the session stored up to date, as
 * `updateTail` does it after the watcher fires. Target: within 1 s, the watcher's debounce included.
 */
import { appendFileSync, closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFileToStore, openStore } from '../../src/main/store/index';
import { openTail, updateTail } from '../../src/main/store/tail';
import { TAIL_DEBOUNCE_MS } from '../../src/main/host/tail';
import { writeClaudeCodeJsonl } from './corpus';
import { timeMs, type BenchSuite } from './harness';

const MB = Number(process.env['TAIL_BENCH_MB'] ?? 100);

/** Two lines continuing the session from its last line. */
function appendTurn(file: string, n: number): void {
  // The session's last line (the generator's lines are far shorter than 1 MB).
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(Math.min(size, 1 << 20));
  readSync(fd, buf, 0, buf.length, size - buf.length);
  closeSync(fd);
  const text = buf.toString('utf8');
  const last = JSON.parse(text.slice(text.lastIndexOf('\n', text.length - 2) + 1)) as Record<string, unknown>;
  const base = { isSidechain: false, userType: 'external', cwd: last['cwd'], sessionId: last['sessionId'], version: '2.0.14', timestamp: new Date().toISOString() };
  const user = { ...base, parentUuid: last['uuid'], type: 'user', uuid: `7a110000-0000-4000-8000-${String(2 * n).padStart(12, '0')}`, message: { role: 'user', content: `tail prompt ${n}` } };
  const answer = { ...base, parentUuid: user.uuid, type: 'assistant', uuid: `7a110000-0000-4000-8000-${String(2 * n + 1).padStart(12, '0')}`, message: { id: `msg_tail${n}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: `tail answer ${n}` }], usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0 } } };
  appendFileSync(file, JSON.stringify(user) + '\n' + JSON.stringify(answer) + '\n');
}

export const suite: BenchSuite = {
  name: 'tail',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-tail-bench-'));
    try {
      const file = join(dir, 'session.jsonl');
      await writeClaudeCodeJsonl(file, MB);
      const store = openStore(join(dir, 'sessions.db'));
      const id = (await importFileToStore(store, file)).sessionIds[0]!;
      const tail = await openTail(store, id);
      const times: number[] = [];
      let fast = true;
      for (let n = 0; n < 5; n++) {
        appendTurn(file, n);
        times.push(await timeMs(async () => (fast = ((await updateTail(store, tail))?.fast ?? false) && fast)));
      }
      // The whole-file path, for comparison: a rewind (the new line hangs under the first prompt).
      appendFileSync(file, JSON.stringify({ type: 'user', uuid: '7a110000-0000-4000-8000-ffffffffffff', sessionId: 's', isSidechain: true, message: { role: 'user', content: 'side' } }) + '\n');
      const whole = await timeMs(() => updateTail(store, tail));
      store.close();
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      const latency = median + TAIL_DEBOUNCE_MS;
      return [
        { name: `append → stored, ${MB} MB Claude Code session (median of 5)`, value: median, unit: 'ms', note: fast ? 'fast path (new lines only)' : 'whole-file path' },
        { name: `sidechain line → stored (whole-file path), ${MB} MB`, value: whole, unit: 'ms' },
        { name: `append → stored incl. watcher debounce, ${MB} MB`, value: latency, unit: 'ms', target: '≤ 1000 ms', pass: latency <= 1000 },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
