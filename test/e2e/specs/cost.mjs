/**
 * The replay's totals line shows the cache split the cost was priced with (docs/cost.md): cache reads
 * and writes. The bundled sample logs timestamps and cache usage, so the replay assumes nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

const shots = process.env.E2E_SHOTS;

export async function testTotalsLineShowsCacheReadsAndWrites({ page, assert }) {
  const totals = page.getByTestId('replay-totals');
  await totals.waitFor({ timeout: 30_000 });
  const text = await totals.innerText();
  assert.match(text, /billed input [\d.,]+[kM]? \(cache reads [\d.,]+[kM]?, writes [\d.,]+[kM]?\)/);
  assert.equal(await page.getByTestId('cache-assumed').count(), 0, 'the sample logs timestamps and cache usage: nothing assumed');
  if (shots) await page.locator('.policy-bar').screenshot({ path: join(shots, 'cost-totals.png') });
}

/**
 * The Events tab lists the agent's own compactions against its preset (docs/user-guide.md, Events):
 * the sample compacts before call 21 at 180,936, past claude-code's trigger 167,000 at 200,000
 * (claude-sonnet-4-5), which its call 20 had already passed: one call early, 8.3% past.
 */
export async function testEventsShowRealVsPredictedCompactions({ page, assert }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('tab-events').click();
  const table = page.getByTestId('compaction-check');
  await table.waitFor({ timeout: 30_000 });
  const text = await table.innerText();
  assert.match(text, /#21 auto at 180,936/);
  assert.match(text, /180,936/);
  // The measure at call 20 counts the messages since call 19 with the replay's own tokenizer: its figure follows the policy.
  assert.match(text, /#20 \([\d,]+\)/);
  assert.match(text, /167,000 at 200,000 \(model\)/);
  assert.match(text, /1 call early, 8\.3% past the trigger/);
  assert.match(
    await page.getByTestId('compaction-check-summary').innerText(),
    /0 of 1 sized auto compaction predicted by the claude-code preset/,
  );
  if (shots) await page.getByTestId('event-list').screenshot({ path: join(shots, 'events-compactions.png') });
}

/**
 * A folder with a resumed session (docs/cost.md, "Folders of sessions"): the real ccviewer session
 * (20 calls: 10 main chain, 10 subagent) and its first 30 lines as an earlier file whose calls the
 * resumed one repeats. The library's totals count the 20 calls once and say how many copies they skipped.
 */
export async function testLibraryTotalsCountARepeatedCallOnce({ page, assert, root }) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-e2e-repeated-'));
  const lines = readFileSync(join(root, 'test', 'fixtures', 'usage-corpus', 'ccviewer-5c0375b4.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const earlier = join(dir, 'earlier.jsonl');
  const resumed = join(dir, 'resumed.jsonl');
  writeFileSync(earlier, lines.slice(0, 30).join('\n') + '\n');
  writeFileSync(resumed, lines.map((l) => l.replaceAll('5c0375b4-57a5-4f26-b12d-d022ee4e51b7', 'resumed-0000')).join('\n') + '\n');
  const serve = await startServe([earlier, resumed], dir);
  try {
    await page.goto(serve.url);
    await page.getByTestId('message-row').first().waitFor({ timeout: 30_000 });
    await page.getByTestId('session-picker').click();
    const totals = page.getByTestId('library-totals');
    await totals.waitFor();
    const text = await totals.innerText();
    assert.match(text, /^20 calls · /);
    assert.match(text, /\d+ call\(s\) repeated by resumed sessions counted once/);
    if (shots) await page.locator('.library-head').screenshot({ path: join(shots, 'library-totals.png') });
  } finally {
    serve.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
