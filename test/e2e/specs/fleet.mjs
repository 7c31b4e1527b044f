/**
 * A person runs a fleet in the window: opens Fleet, keeps the library's sessions (the bundled
 * sample and its subagent), picks two policies, runs, sees the progress, then the per-policy
 * summary, the charts (recharts SVG) and the per-session table; sorts it; clicks a session and
 * the debugger opens it under that row's policy. The finished run stays listed and reopens.
 */
import { join } from 'node:path';

export async function testFleetRunsAndOpensASession({ page, assert, consoleErrors, root }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('open-fleet').click();
  await page.getByTestId('fleet').waitFor();
  // The library source, every stored session chosen; exactly two policies.
  await page.getByTestId('fleet-library').waitFor();
  assert.ok((await page.locator('[data-testid="fleet-library"] input:checked').count()) >= 1);
  for (const box of await page.locator('[data-testid="fleet-policies"] input').all()) if (await box.isChecked()) await box.uncheck();
  await page.getByTestId('fleet-policy-s1').check();
  await page.getByTestId('fleet-policy-claude-code').check();
  await page.getByTestId('fleet-settings').fill('window=64000');
  await page.getByTestId('fleet-run').click();

  await page.getByTestId('fleet-progress').waitFor({ timeout: 10_000 });
  await page.waitForFunction(
    () => /(\d+) of \1 transcripts/.test(document.querySelector('[data-testid="fleet-progress"]')?.textContent ?? ''),
    null,
    { timeout: 60_000 },
  );
  await page.getByTestId('fleet-summary').waitFor({ timeout: 30_000 });
  const summary = await page.getByTestId('fleet-summary').innerText();
  assert.match(summary, /claude-code/);
  assert.match(summary, /s1/);
  // At a 64,000-token window the sample's calls fit: no session overflowed under either policy.
  assert.match(summary, /overflowed/);
  const overflowed = await page.locator('[data-testid="fleet-summary"] tbody tr td:nth-child(9)').allInnerTexts();
  assert.deepEqual(overflowed, ['0', '0']);
  // The cost chart drew one bar per policy.
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="fleet-chart-cost"] .recharts-bar-rectangle').length === 2,
    null,
    { timeout: 10_000 },
  );
  await page.locator('[data-testid="fleet-chart-scatter"] .recharts-scatter-symbol').first().waitFor({ timeout: 10_000 });
  const rows = await page.getByTestId('fleet-row').count();
  assert.ok(rows >= 2, `one row per session and policy, got ${rows}`);

  // Sorting by cost, ascending then descending: the first row's cost is the smallest, then the largest.
  const costs = async () =>
    (await page.locator('[data-testid="fleet-row"] td:nth-child(5)').allInnerTexts()).map((t) => Number(t.replace('$', '')));
  await page.getByTestId('fleet-sort-cost_usd').click();
  const asc = await costs();
  assert.deepEqual(
    asc,
    [...asc].sort((a, b) => a - b),
  );
  await page.getByTestId('fleet-sort-cost_usd').click();
  const desc = await costs();
  assert.deepEqual(
    desc,
    [...desc].sort((a, b) => b - a),
  );
  await page.screenshot({ path: join(root, 'test-results', 'fleet.png') });

  // The run stays listed by its folder.
  assert.ok((await page.getByTestId('fleet-run-item').count()) >= 1);

  // A click on the dearest claude-code row opens it in the debugger under claude-code.
  const row = page.locator('[data-testid="fleet-row"]', { hasText: 'claude-code' }).first();
  await row.click();
  await page.getByTestId('fleet').waitFor({ state: 'detached', timeout: 20_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="policy-picker"]')?.value === 'claude-code', null, {
    timeout: 20_000,
  });
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });

  // Reopening the view and the finished run shows the same results without replaying.
  await page.getByTestId('open-fleet').click();
  await page.getByTestId('fleet-run-item').first().click();
  await page.getByTestId('fleet-summary').waitFor({ timeout: 20_000 });
  assert.equal(await page.getByTestId('fleet-row').count(), rows);
  assert.deepEqual(consoleErrors, []);
}
