/**
 * Every modal dialog as a keyboard user meets it (the library, the agent-logs panel, the export
 * dialog, the import error panel): it says it is a modal dialog and has a name, the focus moves
 * into it, ArrowRight (and the other debugger keys) do not move the selected call behind it, Tab
 * and Shift+Tab stay inside it, Escape closes it, and the focus goes back to the button that
 * opened it.
 */

const stepOf = (page) => page.getByTestId('guard-status').getAttribute('data-step');

/** A call selected that ArrowRight could move (not the last one). */
async function atSecondCall(page) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('[data-testid="guard-status"]')?.getAttribute('data-step') === '1', null, {
    timeout: 15_000,
  });
}

const focusInside = (page, testid) =>
  page.evaluate((id) => !!document.querySelector(`[data-testid="${id}"]`)?.contains(document.activeElement), testid);

/** The checks every dialog passes; `open` opens it, `testid` names it. */
async function checkDialog(page, assert, testid, open, { opener } = {}) {
  await atSecondCall(page);
  await open();
  const dialog = page.getByTestId(testid);
  await dialog.waitFor({ timeout: 15_000 });
  assert.equal(await dialog.getAttribute('aria-modal'), 'true', `${testid}: aria-modal`);
  assert.match(String(await dialog.getAttribute('role')), /^(alert)?dialog$/, `${testid}: role`);
  assert.ok((await dialog.getAttribute('aria-label')) || (await dialog.getAttribute('aria-labelledby')), `${testid}: a label`);
  await page.waitForFunction((id) => document.querySelector(`[data-testid="${id}"]`)?.contains(document.activeElement), testid, {
    timeout: 5_000,
  });

  for (const key of ['ArrowRight', 'End', 'n']) {
    // Keys pressed with the focus on the dialog's own body (not a text field) too.
    await dialog.focus();
    await page.keyboard.press(key);
  }
  await page.waitForTimeout(300);
  assert.equal(await stepOf(page), '1', `${testid}: the selected call did not move behind the dialog`);

  for (let i = 0; i < 25; i++) {
    await page.keyboard.press('Tab');
    assert.ok(await focusInside(page, testid), `${testid}: Tab ${i + 1} stays inside`);
  }
  for (let i = 0; i < 5; i++) {
    await page.keyboard.press('Shift+Tab');
    assert.ok(await focusInside(page, testid), `${testid}: Shift+Tab ${i + 1} stays inside`);
  }

  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });
  if (opener)
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('data-testid')),
      opener,
      `${testid}: focus back on the opener`,
    );
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('[data-testid="guard-status"]')?.getAttribute('data-step') === '2', null, {
    timeout: 15_000,
  });
}

export async function testLibraryIsAModalDialog({ page, assert }) {
  await checkDialog(page, assert, 'library', () => page.getByTestId('session-picker').click(), { opener: 'session-picker' });
}

export async function testAgentLogsPanelIsAModalDialog({ page, assert }) {
  await checkDialog(page, assert, 'local-logs', () => page.getByTestId('local-logs-button').click(), { opener: 'local-logs-button' });
}

export async function testExportDialogIsAModalDialog({ page, assert }) {
  await checkDialog(page, assert, 'export-dialog', () => page.getByTestId('export').click(), { opener: 'export' });
}

export async function testImportErrorPanelIsAModalDialog({ page, assert }) {
  await checkDialog(page, assert, 'import-error', async () => {
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('open-files').click()]);
    await chooser.setFiles({
      name: 'broken-dialogs.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from('{"role":"user","content":"hi"}\n{"role": oops\n'),
    });
  });
}
