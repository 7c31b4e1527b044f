/**
 * `ctxscope serve` under load, as a user would hit it: 50 replays asked for at once (each a new
 * setting, so none is answered from the cache) must not block the page or `getInfo` — replays run
 * on the replay worker with a bounded queue, off the thread that answers requests — and SIGTERM
 * must stop the server promptly even while replays run. Runs the built bin (`npm run build`).
 *
 * The bounds asserted are generous on purpose (this machine has 2 cores and other tests run beside
 * it): they catch the failure this guards against — the page waiting for minutes behind queued
 * replays, a server that ignores SIGTERM — not a few milliseconds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeText } from '../../bench/corpus';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
const dir = mkdtempSync(join(tmpdir(), 'ctxscope-load-'));
let child: ChildProcess;
let base = '';
let token = '';

async function call<T>(method: string, body: unknown): Promise<{ ok: boolean; value?: T; error?: { code: string } }> {
  const res = await fetch(`${base}/api/${method}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${token}` },
  });
  return (await res.json()) as { ok: boolean; value?: T; error?: { code: string } };
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

beforeAll(async () => {
  const file = join(dir, 'load.jsonl');
  writeFileSync(file, claudeCodeText({ calls: 4000 }));
  child = spawn(process.execPath, [bin, 'serve', file, '--db', join(dir, 'load.db')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve did not start')), 90_000);
    createInterface({ input: child.stdout! }).once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const m = /^Context Scope at (http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)$/.exec(first);
  if (!m) throw new Error(`unexpected first line: ${first}`);
  base = m[1]!;
  token = decodeURIComponent(m[2]!);
}, 120_000);

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('serve under load', () => {
  it('answers the page and getInfo while 50 replays are asked for, and stops on SIGTERM mid-replay', async () => {
    const info = await call<{ initialSessionId: string }>('getInfo', {});
    const sessionId = info.value!.initialSessionId;
    // 50 distinct settings: every one is a new replay (no cache hit, no shared channel).
    const replays = Array.from({ length: 50 }, (_, i) =>
      call('getChartView', {
        sessionId,
        policy: i % 2 ? 's3' : 'claude-code',
        overrides: { window: 60_000 + i * 1_000 },
        needles: [],
        buckets: 800,
      }),
    );
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      waits.push(await timed(() => call('getInfo', {})));
      waits.push(await timed(() => fetch(`${base}/`).then((r) => r.text())));
    }
    // The 134 s the page once waited behind queued replays is what this catches.
    expect(Math.max(...waits)).toBeLessThan(1_000);

    const answers = await Promise.all(replays);
    // Each answer is a chart or a clear refusal (the bounded queue says it is full): nothing hangs, nothing fails.
    for (const a of answers) expect(a.ok || a.error?.code === 'cancelled').toBe(true);
    expect(answers.some((a) => a.ok)).toBe(true);

    // Ask for more work, then stop the server in the middle of it.
    for (let i = 0; i < 8; i++)
      void call('getChartView', { sessionId, policy: 's0', overrides: { window: 50_000 + i * 777 }, needles: [], buckets: 800 }).catch(
        () => undefined,
      );
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const t0 = performance.now();
    child.kill('SIGTERM');
    const code = await exited;
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(code).toBe(0);
  }, 180_000);
});
