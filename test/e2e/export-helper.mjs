/** Export through the dialog as a person does: open it, pick a format, wait for the preview, save. */
export async function exportVia(page, format) {
  await page.getByTestId('export').click();
  await page.getByTestId('export-dialog').waitFor({ timeout: 10_000 });
  if (format) await page.getByTestId('export-format').selectOption(format);
  await page.waitForFunction(() => document.querySelector('[data-testid="export-save"]')?.disabled === false, null, { timeout: 15_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-save').click()]);
  return download;
}
