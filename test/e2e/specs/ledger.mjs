/**
 * The loss ledger in the context view, as a person reads it on the sample: jump to the compression
 * (N), read "Lost: … items, … needed later" grouped by kind, and follow an item to its message.
 * A screenshot goes to test-results/ledger.png.
 */
import { join } from 'node:path';

const waitStep = (page, testId, step) =>
  page.waitForFunction(
    ([id, s]) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute('data-step') === String(s),
    [testId, step],
    { timeout: 15_000 },
  );

export async function testLedgerAtTheCompression({ page, assert, consoleErrors, root }) {
  await page.getByTestId('guard-status-badge').waitFor({ timeout: 30_000 });
  // The compression moves when the exact counts replace the import's chars/4 estimates: wait for them.
  await page.waitForFunction(
    () => {
      const t = document.querySelector('[data-testid="session-facts"]')?.getAttribute('data-tokenizer');
      return !!t && t !== 'chars4';
    },
    null,
    { timeout: 60_000 },
  );
  await page.keyboard.press('Home');
  await waitStep(page, 'guard-status', 0);
  // No compression at call 0: no ledger.
  assert.equal(await page.getByTestId('loss-ledgers').count(), 0);
  await page.keyboard.press('n');
  await page.getByTestId('before-after').waitFor({ timeout: 15_000 });
  const ledger = page.getByTestId('loss-ledger').first();
  await ledger.waitFor({ timeout: 15_000 });
  const head = await ledger.getByTestId('ledger-headline').innerText();
  const m = /^Lost: (\d+) items?, (\d+) needed later$/.exec(head);
  assert.ok(m, `headline "${head}"`);
  assert.equal(Number(m[1]), Number(await ledger.getAttribute('data-lost')));
  // Grouped by kind: the sample's compression drops file reads, so file paths are among them.
  assert.ok((await ledger.getByTestId('ledger-kind-path').count()) === 1, 'a file paths group');
  // An item links to its message: clicking it opens that message.
  const group = ledger.getByTestId('ledger-kind-path');
  if ((await group.getAttribute('open')) === null) await group.locator('summary').click();
  if (root) await page.getByTestId('context-view').screenshot({ path: join(root, 'test-results', 'ledger.png') });
  const link = group.locator('.ledger-item button').first();
  const index = (await link.innerText()).replace('#', '');
  await link.click();
  await page.getByTestId('message-detail').waitFor({ timeout: 10_000 });
  assert.match(await page.getByTestId('message-detail').innerText(), new RegExp(`^#${index}`));
  assert.deepEqual(consoleErrors, []);
}
