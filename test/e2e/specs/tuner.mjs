/**
 * A person tunes a policy in the window: opens the Tuner tab, sweeps S2's sliding window on the
 * sample (a 64,000-token window, where a short sliding window forgets facts the agent needs later),
 * sees the proposal, tries a lossy point first (the replay re-runs and forgets facts), then clicks
 * the proposal: the config panel shows its value and the replay re-runs with nothing forgotten.
 */
import { join } from 'node:path';

const lostCount = async (page) => {
  // textContent: the heading is upper-cased by CSS, which innerText would apply.
  const text = await page.getByTestId('event-list').textContent();
  const m = /No longer remembered \((\d+)\)/.exec(text);
  return m ? Number(m[1]) : null;
};

export async function testTunerProposesAndApplies({ page, assert, consoleErrors, root }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('policy-picker').selectOption('s2');
  await page.getByTestId('field-window').fill('64000');
  await page.getByTestId('field-window').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid="config-field-window"]')?.classList.contains('overridden'), null, {
    timeout: 10_000,
  });

  await page.getByTestId('tab-tuner').click();
  await page.getByTestId('tuner').waitFor({ timeout: 10_000 });
  await page.getByTestId('tuner-key-0').selectOption('slidingWindow');
  await page.getByTestId('tuner-from-0').fill('2');
  await page.getByTestId('tuner-to-0').fill('30');
  await page.getByTestId('tuner-step-0').fill('4');
  assert.match(await page.getByTestId('tuner-size').innerText(), /^8 setting/); // 2, 6, …, 30
  await page.getByTestId('tuner-run').click();
  await page.getByTestId('tuner-proposal').waitFor({ timeout: 60_000 });
  assert.match(await page.getByTestId('tuner-verdict').innerText(), /^cheapest of \d+ setting\(s\) that lose no referenced fact/);
  const proposed = await page.getByTestId('tuner-proposal-settings').innerText();
  const value = /slidingWindow = (\d+)/.exec(proposed)?.[1];
  assert.ok(value, `the proposal names a sliding window: ${proposed}`);
  assert.equal(await page.getByTestId('tuner-point').count(), 8);
  await page.screenshot({ path: join(root, 'test-results', 'tuner.png') });

  // A lossy point first (slidingWindow = 2, grid index 0): the replay forgets facts.
  await page.locator('[data-testid="tuner-point"][data-index="0"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="field-slidingWindow"]')?.value === '2', null, { timeout: 10_000 });
  await page.getByTestId('tab-events').click();
  await page.waitForFunction(
    () => /No longer remembered \([1-9]\d*\)/.test(document.querySelector('[data-testid="event-list"]')?.textContent ?? ''),
    null,
    { timeout: 20_000 },
  );
  assert.ok((await lostCount(page)) > 0);

  // The proposal: the config panel shows its value and the replay re-runs with nothing forgotten.
  await page.getByTestId('tab-tuner').click();
  await page.locator('[data-testid="tuner-point"].proposed').click();
  await page.waitForFunction((v) => document.querySelector('[data-testid="field-slidingWindow"]')?.value === v, value, { timeout: 10_000 });
  await page.getByTestId('tab-events').click();
  await page.waitForFunction(
    () => /No longer remembered \(0\)/.test(document.querySelector('[data-testid="event-list"]')?.textContent ?? ''),
    null,
    { timeout: 20_000 },
  );
  assert.equal(await lostCount(page), 0);
  await page.getByTestId('tab-tuner').click();
  await page.getByTestId('tuner-apply').waitFor();
  assert.equal(await page.getByTestId('tuner-apply').innerText(), 'Applied');
  await page.screenshot({ path: join(root, 'test-results', 'tuner-applied.png') });
  assert.deepEqual(consoleErrors, []);
}

export async function testTunerRefusesABadSweep({ page, assert }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('policy-picker').selectOption('s2');
  await page.getByTestId('tab-tuner').click();
  await page.getByTestId('tuner-key-0').selectOption('slidingWindow');
  await page.getByTestId('tuner-from-0').fill('0');
  await page.getByTestId('tuner-to-0').fill('4');
  await page.getByTestId('tuner-step-0').fill('1');
  // Refused before anything runs: the problem beside the numbers, Run disabled.
  await page.getByTestId('tuner-problem').waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('tuner-problem').innerText(), /slidingWindow: expected at least 1/);
  assert.equal(await page.getByTestId('tuner-run').isDisabled(), true);
}
