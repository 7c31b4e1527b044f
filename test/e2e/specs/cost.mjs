/**
 * The replay's totals line shows the cache split the cost was priced with (docs/cost.md): cache reads
 * and writes. The bundled sample logs timestamps and cache usage, so the replay assumes nothing.
 */
import { join } from 'node:path';

const shots = process.env.E2E_SHOTS;

export async function testTotalsLineShowsCacheReadsAndWrites({ page, assert }) {
  const totals = page.getByTestId('replay-totals');
  await totals.waitFor({ timeout: 30_000 });
  const text = await totals.innerText();
  assert.match(text, /billed input [\d.,]+[kM]? \(cache reads [\d.,]+[kM]?, writes [\d.,]+[kM]?\)/);
  assert.equal(await page.getByTestId('cache-assumed').count(), 0, 'the sample logs timestamps and cache usage: nothing assumed');
  if (shots) await page.locator('.policy-bar').screenshot({ path: join(shots, 'cost-totals.png') });
}
