/** A person replays the sample under other policies: the chart and totals follow, events jump to their step. */
import { exportVia } from '../export-helper.mjs';

export async function testChangingPolicyReplays({ page, assert, consoleErrors }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('policy-picker').selectOption('claude-code');
  await page.waitForFunction(
    () => document.querySelector('[data-testid="replay-totals"]')?.textContent?.includes('1 compression ·'),
    null,
    { timeout: 15_000 },
  );
  await page.getByTestId('tab-events').click();
  const events = await page.getByTestId('event-list').innerText();
  assert.match(events, /proactive compression/);
  assert.match(events, /source-compaction/);
  await page.getByTestId('policy-picker').selectOption('s2');
  await page.waitForFunction(() => document.querySelector('[data-testid="replay-totals"]')?.textContent?.includes('0 compressions'), null, {
    timeout: 15_000,
  });
  assert.ok((await page.locator('[data-testid="region-bars"] canvas').count()) > 0, 'the window chart is drawn');
  assert.deepEqual(consoleErrors, []);
}

export async function testOverrideAndEventJump({ page, assert }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('policy-picker').selectOption('s2');
  const window = page.getByTestId('field-window');
  await window.fill('60000');
  await window.press('Enter');
  await page.waitForFunction(
    () => /[1-9]\d* compressions/.test(document.querySelector('[data-testid="replay-totals"]')?.textContent ?? ''),
    null,
    { timeout: 15_000 },
  );
  await page.getByTestId('tab-events').click();
  await page.locator('.event-compression').first().click();
  await page.getByTestId('message-detail').waitFor({ timeout: 10_000 });
  assert.match(await page.getByTestId('message-detail').innerText(), /assistant/);
}

export async function testExportDownloadsTheCompactedHistory({ page, assert }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('policy-picker').selectOption('claude-code');
  await page.waitForFunction(
    () => document.querySelector('[data-testid="replay-totals"]')?.textContent?.includes('1 compression ·'),
    null,
    { timeout: 15_000 },
  );
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('[data-testid="guard-status"]')?.getAttribute('data-step') === '23', null, {
    timeout: 15_000,
  });
  const download = await exportVia(page, 'openai');
  assert.match(download.suggestedFilename(), /claude-code\.call-23\.openai\.json$/, 'the export is at the selected call');
  const { readFile } = await import('node:fs/promises');
  const body = JSON.parse(await readFile(await download.path(), 'utf8'));
  assert.equal(body.messages[0].role, 'system', 'the summary travels in the system message');
  assert.match(body.messages[0].content, /Summary of the earlier conversation/);
}

export async function testOpenInTheBrowserShowsAFileChooser({ page, assert }) {
  await page.getByTestId('message-row').first().waitFor({ timeout: 30_000 });
  // serve has no native dialog: Open… is the browser's file input (the upload: open-import.mjs).
  const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: 10_000 }), page.getByTestId('open-files').click()]);
  assert.ok(chooser.isMultiple(), 'several files can be chosen at once');
  assert.equal(await page.getByTestId('error-banner').count(), 0, 'no error');
}
