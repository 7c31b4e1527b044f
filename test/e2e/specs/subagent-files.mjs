/**
 * Claude Code 2.x subagents in files of their own (test/fixtures/claude-code-v2), as a person sees
 * them, on a serve of its own given only the parent file: the library nests both subagents under
 * the parent with their meta titles, the turn list shows them right under the Task calls that ran
 * them, and one opens as its own session and goes back. Screenshot: test-results/subagent-files.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

const SID = '7d3f0c2e-5a41-4b6e-9c8d-2f1e0a9b8c7d';

export async function testSubagentFilesNestAndOpen({ page, assert, consoleErrors, root }) {
  const dbDir = mkdtempSync(join(tmpdir(), 'ctxscope-e2e-subfiles-'));
  const serve = await startServe([join(root, 'test', 'fixtures', 'claude-code-v2', `${SID}.jsonl`)], dbDir);
  try {
    await page.goto(serve.url);
    await page.getByTestId('message-row').first().waitFor({ timeout: 30_000 });
    const picker = page.getByTestId('session-picker');
    assert.match(await picker.innerText(), /Find why checkout is slow/);

    // The library: one top-level row; expanded, its two subagents with their meta titles.
    await picker.click();
    await page.getByTestId('library').waitFor();
    const rows = page.getByTestId('library-row');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1, 'the subagent files are not top-level sessions');
    await rows.first().getByTestId('library-expand').click();
    const subs = page.getByTestId('library-subagent-row');
    await subs.nth(1).waitFor();
    const titles = await subs.allInnerTexts();
    assert.equal(titles.length, 2);
    assert.ok(
      titles.some((t) => t.includes('Explore: Profile checkout')) && titles.some((t) => t.includes('general-purpose: Check test coverage')),
      titles.join(' | '),
    );
    await page.keyboard.press('Escape');
    await page.getByTestId('library').waitFor({ state: 'detached' });

    // The turn list: both right under the message that holds the two Task calls.
    const subRows = page.getByTestId('subagent-row');
    await subRows.nth(1).waitFor({ timeout: 30_000 });
    assert.deepEqual(await subRows.evaluateAll((els) => els.map((e) => e.getAttribute('data-spawned-at'))), ['1', '1']);
    const spawner = page.locator('[data-testid="message-row"][data-index="1"]');
    const [spawnerBox, firstSub] = [await spawner.boundingBox(), await subRows.first().boundingBox()];
    assert.ok(
      spawnerBox && firstSub && Math.abs(firstSub.y - (spawnerBox.y + spawnerBox.height)) < 2,
      'the subagent rows sit right under the call',
    );
    mkdirSync(join(root, 'test-results'), { recursive: true });
    await page.screenshot({ path: join(root, 'test-results', 'subagent-files.png') });

    // One opens as its own session (its own two calls) and goes back.
    await subRows.filter({ hasText: 'Check test coverage' }).getByTestId('subagent-link').click();
    await page.waitForFunction(() =>
      /Check test coverage/.test(document.querySelector('[data-testid="session-picker"]')?.textContent ?? ''),
    );
    await page.getByTestId('message-row').first().waitFor();
    assert.match(await page.getByTestId('session-facts').innerText(), /2 LLM calls/);
    // The row exists before its page of messages arrives (it shows "…" until then): wait for the text.
    await page.waitForFunction(
      () => /Give file and test name/.test(document.querySelector('[data-testid="message-row"]')?.textContent ?? ''),
      null,
      { timeout: 30_000 },
    );
    await page.getByTestId('open-parent').click();
    await page.waitForFunction(() =>
      /Find why checkout is slow/.test(document.querySelector('[data-testid="session-picker"]')?.textContent ?? ''),
    );
    assert.deepEqual(consoleErrors, []);
  } finally {
    serve.child.kill('SIGTERM');
    rmSync(dbDir, { recursive: true, force: true });
  }
}
