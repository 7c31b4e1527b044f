/**
 * A 30,000-call session (test/bench/corpus.ts's Claude Code generator): the chart draws every
 * compression and source compaction the replay has, however many calls share a pixel column.
 * Generating and importing it takes a while, so it runs when CTXSCOPE_E2E_BIG=1 (the UI bench,
 * test/bench/ui.bench.ts, checks the same on every run).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

async function call(baseUrl, token, method, body) {
  const res = await fetch(`${baseUrl}/api/${method}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${token}` },
  });
  const env = await res.json();
  if (!env.ok) throw new Error(`${method}: ${env.error.message}`);
  return env.value;
}

export async function testEveryMarkerDrawnAtThirtyThousandCalls({ page, root, assert }) {
  if (process.env.CTXSCOPE_E2E_BIG !== '1') return;
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-big-'));
  let own = null;
  try {
    const file = join(dir, 'big.jsonl');
    // Bounded by calls, not megabytes (the generator's bytes per call change with its content): about 100 MB.
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test', 'bench', 'make-session.ts'), file, '--calls', '30000'], {
      cwd: root,
      stdio: 'inherit',
    });
    assert.equal(r.status, 0);
    // serve imports only the files named on its command line (an arbitrary path over the API is
    // refused), so the big session gets a server of its own, which opens on it.
    own = await startServe([file], dir);
    const info = await call(own.baseUrl, own.token, 'getInfo', {});
    const id = info.initialSessionId;
    assert.ok(id, 'imported');
    await page.goto(own.url);
    await page.locator('[data-testid="region-bars"][data-key]').waitFor({ timeout: 600_000 });
    const steps = Number(await page.getByTestId('region-bars').getAttribute('data-steps'));
    const buckets = Number(await page.getByTestId('region-bars').getAttribute('data-buckets'));
    assert.ok(steps >= 29_000, `about 30,000 calls (${steps})`);
    assert.ok(buckets < steps, 'several calls share a pixel column');
    const policy = await page.getByTestId('policy-picker').inputValue();
    const full = await call(own.baseUrl, own.token, 'runReplay', { sessionId: id, policy, overrides: {}, needles: [] });
    const expected = full.events.filter((e) => e.kind === 'compression' || e.kind === 'source-compaction').length;
    assert.ok(expected > 10, `the replay compresses many times (${expected})`);
    assert.equal(Number(await page.getByTestId('chart-markers').getAttribute('data-markers')), expected, 'every marker is drawn');
    console.log(`    big session: ${steps} calls, ${expected} compression / compaction markers drawn of ${expected} (${policy})`);
  } finally {
    own?.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
