/**
 * What the window says holds up for a first-time user on the bundled sample (docs/user-guide.md):
 * the tuner proposes settings that can work, a request above the window is a failure, the
 * provider's unlogged overhead survives a policy switch, a compression shows the request that
 * triggered it, ignored settings are not live, needles show where a person looks, and the
 * library tells the truth about its figures. Each test saves a screenshot of the fixed state.
 */
import { join } from 'node:path';

const ready = (page) => page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
const shot = (page, root, name) => page.screenshot({ path: join(root, 'test-results', `coherence-${name}.png`) });

export async function testTunerRangesComeFromTheSession({ page, assert, consoleErrors, root }) {
  await ready(page);
  await page.getByTestId('tab-tuner').click();
  await page.getByTestId('tuner-sweep-0').waitFor({ timeout: 10_000 });
  // claude-code acts on its auto-compact threshold: that is the first setting swept.
  assert.equal(await page.getByTestId('tuner-key-0').inputValue(), 'autoCompact.pct');
  assert.equal(await page.getByTestId('tuner-from-0').inputValue(), '0.5');
  // A window sweeps from the session's largest request to the model's window (200,000), never from 1.
  await page.getByTestId('tuner-key-0').selectOption('window');
  const from = Number(await page.getByTestId('tuner-from-0').inputValue());
  const to = Number(await page.getByTestId('tuner-to-0').inputValue());
  assert.equal(to, 200_000);
  assert.ok(from > 150_000 && from < 200_000, `window sweep starts near the largest request: ${from}`);
  // An impossible window is refused before anything runs.
  await page.getByTestId('tuner-from-0').fill('1');
  await page.getByTestId('tuner-problem').waitFor();
  assert.match(await page.getByTestId('tuner-problem').innerText(), /below the first call's request .* every setting would overflow/);
  assert.equal(await page.getByTestId('tuner-run').isDisabled(), true);
  await shot(page, root, 'tuner-refused');
  // The trigger share's default range runs and proposes a setting from it.
  await page.getByTestId('tuner-key-0').selectOption('autoCompact.pct');
  await page.getByTestId('tuner-run').click();
  await page.getByTestId('tuner-proposal').waitFor({ timeout: 60_000 });
  assert.match(await page.getByTestId('tuner-proposal-settings').innerText(), /autoCompact\.pct = (0\.\d+|1)/);
  await shot(page, root, 'tuner-proposal');
  assert.deepEqual(consoleErrors, []);
}
