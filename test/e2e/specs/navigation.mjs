/**
 * Navigation as a person expects it (docs/user-guide.md): the browser's Back and Forward walk the
 * calls and sessions visited, "↑ parent session" returns to the call that spawned the subagent,
 * and an empty or short kept history takes no more room than it needs. On a serve of its own
 * (a Claude Code session with a subagent).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

const stepOf = async (page) => Number(await page.getByTestId('guard-status').getAttribute('data-step'));
const waitStep = (page, n) =>
  page.waitForFunction((s) => document.querySelector('[data-testid="guard-status"]')?.dataset.step === String(s), n, { timeout: 10_000 });
const sessionTitle = (page, re) =>
  page.waitForFunction(
    (src) => new RegExp(src).test(document.querySelector('[data-testid="session-picker"]')?.textContent ?? ''),
    re.source,
    { timeout: 20_000 },
  );

export async function testBackForwardAndParent({ page, assert, consoleErrors, root }) {
  const dbDir = mkdtempSync(join(tmpdir(), 'ctxscope-e2e-nav-'));
  const serve = await startServe([join(root, 'test', 'fixtures', 'import', 'claude-code-session.jsonl')], dbDir);
  try {
    await page.goto(serve.url);
    await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
    await page.getByTestId('message-row').first().click();
    await page.waitForTimeout(900);
    // Two calls visited with a pause between: two history entries.
    await page.keyboard.press('End');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="guard-status"]')?.dataset.step ?? '0') > 1, null, {
      timeout: 10_000,
    });
    await page.waitForTimeout(1_000);
    const last = await stepOf(page);
    const endHash = await page.evaluate(() => location.hash);
    assert.match(endHash, new RegExp(`step=${last}\\b`));
    await page.keyboard.press('Home');
    await waitStep(page, 0);
    await page.waitForFunction(() => /step=0\b/.test(location.hash), null, { timeout: 5_000 });
    // Back returns to the call before, inside the app (the address is pushed, not replaced).
    await page.goBack();
    await page.waitForFunction((h) => location.hash === h, endHash, { timeout: 5_000 });
    await waitStep(page, last);
    await page.goForward();
    await waitStep(page, 0);

    // Into the subagent, and Back to the parent session.
    const subRow = page.getByTestId('subagent-row');
    await subRow.waitFor({ timeout: 30_000 });
    const spawnedAt = Number(await subRow.getAttribute('data-spawned-at'));
    await subRow.getByTestId('subagent-link').click();
    await sessionTitle(page, /Find geocode callers/);
    await page.waitForTimeout(900);
    await page.goBack();
    await sessionTitle(page, /Blank city name/);

    // "↑ parent session" returns to the call that spawned the subagent, not to call 0.
    await page.getByTestId('subagent-row').getByTestId('subagent-link').click();
    await sessionTitle(page, /Find geocode callers/);
    await page.getByTestId('open-parent').click();
    await sessionTitle(page, /Blank city name/);
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="guard-status"]')?.dataset.step ?? '0') > 0, null, {
      timeout: 10_000,
    });
    const back = await stepOf(page);
    const row = page.locator(`[data-testid="message-row"][data-index="${spawnedAt}"]`);
    await row.waitFor({ timeout: 10_000 });
    assert.ok(back > 0, `the parent opens at the spawning call, not call 0 (call #${back}, message #${spawnedAt})`);
    assert.match((await row.getAttribute('class')) ?? '', /selected/);
    await page.screenshot({ path: join(root, 'test-results', 'navigation-parent.png') });

    // A short kept history takes only the room of its rows.
    await page.keyboard.press('Home');
    await waitStep(page, 0);
    const h = await page.getByTestId('context-history').evaluate((el) => el.getBoundingClientRect().height);
    const n = Number(await page.getByTestId('context-history').getAttribute('data-count'));
    assert.ok(h <= n * 24 + 4, `kept history box ${h}px for ${n} message(s)`);
    assert.deepEqual(consoleErrors, []);
  } finally {
    serve.child.kill('SIGTERM');
    rmSync(dbDir, { recursive: true, force: true });
  }
}
