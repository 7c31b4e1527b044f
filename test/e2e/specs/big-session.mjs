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

async function call(baseUrl, token, method, body) {
  const res = await fetch(`${baseUrl}/api/${method}`, { method: 'POST', body: JSON.stringify(body), headers: { Authorization: `Bearer ${token}` } });
  const env = await res.json();
  if (!env.ok) throw new Error(`${method}: ${env.error.message}`);
  return env.value;
}

export async function testEveryMarkerDrawnAtThirtyThousandCalls({ page, baseUrl, token, root, assert }) {
  if (process.env.CTXSCOPE_E2E_BIG !== '1') return;
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-big-'));
  try {
    const file = join(dir, 'big.jsonl');
    // About 1.26 MB per 1,000 calls.
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test', 'bench', 'corpus.ts'), file, '37.8'], { cwd: root, stdio: 'inherit' });
    assert.equal(r.status, 0);
    const before = (await call(baseUrl, token, 'listSessions', {})).length;
    await call(baseUrl, token, 'importFiles', { paths: [file] });
    let id = null;
    for (let i = 0; i < 600 && !id; i++) {
      const sessions = await call(baseUrl, token, 'listSessions', {});
      id = sessions.length > before ? sessions.find((s) => s.sourcePath === file)?.id ?? null : null;
      if (!id) await new Promise((res) => setTimeout(res, 500));
    }
    assert.ok(id, 'imported');
    await page.goto(`${page.url().split('#')[0]}#s=${encodeURIComponent(id)}`);
    await page.reload();
    await page.locator('[data-testid="region-bars"][data-key]').waitFor({ timeout: 600_000 });
    const steps = Number(await page.getByTestId('region-bars').getAttribute('data-steps'));
    const buckets = Number(await page.getByTestId('region-bars').getAttribute('data-buckets'));
    assert.ok(steps >= 29_000, `about 30,000 calls (${steps})`);
    assert.ok(buckets < steps, 'several calls share a pixel column');
    const policy = await page.getByTestId('policy-picker').inputValue();
    const full = await call(baseUrl, token, 'runReplay', { sessionId: id, policy, overrides: {}, needles: [] });
    const expected = full.events.filter((e) => e.kind === 'compression' || e.kind === 'source-compaction').length;
    assert.ok(expected > 10, `the replay compresses many times (${expected})`);
    assert.equal(Number(await page.getByTestId('chart-markers').getAttribute('data-markers')), expected, 'every marker is drawn');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
