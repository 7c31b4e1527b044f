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

export async function testUnloggedOverheadSurvivesAPolicySwitch({ page, assert, consoleErrors, root }) {
  await ready(page);
  // Under claude-code call #0 is mostly the inferred unlogged system & tools (~17.9k).
  const request = async () =>
    Number(
      /What the model receives at call #0: ([\d,]+) tokens/
        .exec(await page.getByTestId('context-view').innerText())?.[1]
        ?.replace(/,/g, ''),
    );
  await page.waitForFunction(
    () =>
      /What the model receives at call #0: [\d,]{5,} tokens/.test(document.querySelector('[data-testid="context-view"]')?.innerText ?? ''),
    null,
    { timeout: 20_000 },
  );
  const a = await request();
  assert.ok(a > 15_000, `claude-code counts the unlogged overhead at call #0: ${a}`);
  await page.getByTestId('policy-picker').selectOption('s3');
  await page
    .waitForFunction(
      (before) => {
        const m = /What the model receives at call #0: ([\d,]+) tokens/.exec(
          document.querySelector('[data-testid="context-view"]')?.innerText ?? '',
        );
        return m && Number(m[1].replace(/,/g, '')) !== before;
      },
      a,
      { timeout: 20_000 },
    )
    .catch(() => {});
  const b = await request();
  // s3 counts with its own estimator, and the provider's overhead is still there (it read 46 before).
  assert.ok(b > 15_000, `s3 keeps the unlogged overhead at call #0: ${b}`);
  // In its own estimator the overhead is still most of call #0 (the first question is ~36 tokens).
  const unlogged = Number(
    /unlogged system & tools\s*([\d,]+) tokens/.exec(await page.getByTestId('context-view').innerText())?.[1]?.replace(/,/g, ''),
  );
  assert.ok(unlogged > 0.9 * b, `the unlogged region is most of s3's call #0: ${unlogged} of ${b}`);
  await shot(page, root, 'unlogged-s3');
  // Compare says so in one line.
  await page.getByTestId('policy-picker').selectOption('claude-code');
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-picker').selectOption('s3');
  await page.getByTestId('compare-unlogged').waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('compare-unlogged').innerText(), /Both count what the provider counted beyond the transcript/);
  // Config differences in words, never raw JSON against null.
  const diff = await page.getByTestId('compare-config-diff').innerText();
  assert.doesNotMatch(diff, /\bnull\b|[{}"]/);
  await shot(page, root, 'compare-unlogged');
  // codex and claude-code reach the same calls on this session: Compare says they are identical here.
  await page.getByTestId('compare-picker').selectOption('codex');
  await page.getByTestId('compare-identical').waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('compare-identical').innerText(), /Identical on this session/);
  await shot(page, root, 'compare-identical');
  assert.deepEqual(consoleErrors, []);
}

export async function testCompressionShowsTheRequestThatTriggeredIt({ page, assert, consoleErrors, root }) {
  await ready(page);
  // The peak counts the request the compression was triggered by (180,831 on the sample), not only what was sent after.
  await page.waitForFunction(
    () => /peak 18\d\.\dk/.test(document.querySelector('[data-testid="replay-totals"]')?.textContent ?? ''),
    null,
    { timeout: 20_000 },
  );
  // The ghost bar: a dashed outline from the bar drawn up to the size before compression.
  const ghost = page.locator('[data-testid="chart-markers"] path[stroke-dasharray="3 2"]');
  await ghost.waitFor({ state: 'attached', timeout: 10_000 });
  const d = await ghost.getAttribute('d');
  assert.match(d, /^M[\d.]+ [\d.]+V[\d.]+H[\d.]+V[\d.]+/);
  const [, , yBottom, yTop] = /^M([\d.]+) ([\d.]+)V([\d.]+)/.exec(d).map(Number);
  const triggerLine = await page.locator('.region-chart').boundingBox();
  assert.ok(yTop < yBottom - 50, `the ghost reaches far above the bar sent after: ${yTop} vs ${yBottom} (chart ${triggerLine.height}px)`);
  await page
    .locator('.region-chart')
    .click({ position: { x: 5, y: 5 } })
    .catch(() => {});
  await page.keyboard.press('Home');
  await page.keyboard.press('n');
  await page.waitForFunction(() => document.querySelector('[data-testid="guard-status"]')?.dataset.status === 'compress', null, {
    timeout: 10_000,
  });
  const step = Number(await page.getByTestId('guard-status').getAttribute('data-step'));
  await shot(page, root, 'ghost-bar');
  // The agent's own compaction one call later: the guard says why it is not at the replay's call.
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((s) => document.querySelector('[data-testid="guard-status"]')?.dataset.step === String(s + 1), step, {
    timeout: 10_000,
  });
  await page.getByTestId('guard-agent-compaction').waitFor({ timeout: 10_000 });
  const note = await page.getByTestId('guard-agent-compaction').innerText();
  assert.match(
    note,
    new RegExp(
      `The agent compacted before this call .* under claude-code's rule: auto-compact threshold .*200,000-token window.*This replay compressed at call #${step}`,
    ),
  );
  await shot(page, root, 'agent-compaction');
  assert.deepEqual(consoleErrors, []);
}

export async function testIgnoredSettingsAreNotChanges({ page, assert, consoleErrors, root }) {
  await ready(page);
  await page.getByTestId('policy-picker').selectOption('s2');
  await page.getByTestId('field-trigger').fill('0.7');
  await page.getByTestId('field-trigger').press('Enter');
  await page.waitForFunction(() => /^1 changed/.test(document.querySelector('[data-testid="config-changed"]')?.textContent ?? ''), null, {
    timeout: 10_000,
  });
  // Under claude-code the auto-compact formula decides the trigger: the carried-over trigger is greyed, with why, and not a change.
  await page.getByTestId('policy-picker').selectOption('claude-code');
  await page.waitForFunction(() => /^0 changed$/.test(document.querySelector('[data-testid="config-changed"]')?.textContent ?? ''), null, {
    timeout: 10_000,
  });
  assert.match(await page.getByTestId('dropped-overrides').innerText(), /trigger/);
  await page.getByTestId('ignored-fields').locator('summary').click();
  assert.equal(await page.getByTestId('field-trigger').isDisabled(), true);
  assert.match(await page.getByTestId('config-field-trigger').innerText(), /auto-compact formula/);
  await page.getByTestId('config-field-trigger').scrollIntoViewIfNeeded();
  await shot(page, root, 'ignored-setting');
  assert.deepEqual(consoleErrors, []);
}

export async function testLibraryAfterAnUploadAndItsFigures({ page, assert, consoleErrors, root }) {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { startServe } = await import('../run.mjs');
  const dbDir = mkdtempSync(join(tmpdir(), 'ctxscope-e2e-coherence-'));
  const serve = await startServe([join(root, 'resources', 'sample', 'sample-session.jsonl')], dbDir);
  try {
    await page.goto(serve.url);
    await ready(page);
    // The header's reported figures are the library's columns for the same session, and say what they count.
    const reported = await page.getByTestId('reported-totals').innerText();
    await page.getByTestId('session-picker').click();
    await page.getByTestId('library-row').first().waitFor();
    assert.match(await page.getByTestId('library').innerText(), /Tokens \(reported, with cache\)/);
    const row = page.getByTestId('library-row').first();
    const tokens = await row.locator('[data-col="tokens"]').innerText();
    const cost = await row.locator('[data-col="cost"]').innerText();
    assert.ok(
      reported.includes(`${tokens} tokens`) && reported.includes(cost),
      `header "${reported}" shows the library's ${tokens} / ${cost}`,
    );
    // A search that hides everything, then an upload: the search is cleared and the new session selected.
    await page.getByTestId('library-search').fill('no such session');
    await page.keyboard.press('Escape');
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('open-files').click()]);
    await chooser.setFiles(join(root, 'test', 'fixtures', 'import', 'codex-rollout.jsonl'));
    await page.waitForFunction(
      () => !/Fix EU order totals/.test(document.querySelector('[data-testid="session-picker"]')?.textContent ?? ''),
      null,
      { timeout: 60_000 },
    );
    await page.getByTestId('session-picker').click();
    await page.getByTestId('library-row').first().waitFor();
    assert.equal(await page.getByTestId('library-search').inputValue(), '');
    assert.equal(await page.getByTestId('library-row').count(), 2);
    assert.equal(await page.locator('[data-testid="library-row"].current').count(), 1);
    assert.doesNotMatch(await page.locator('[data-testid="library-row"].current').innerText(), /Fix EU order totals/);
    await shot(page, root, 'library-after-upload');
    assert.deepEqual(consoleErrors, []);
  } finally {
    serve.child.kill('SIGTERM');
    rmSync(dbDir, { recursive: true, force: true });
  }
}

export async function testNeedlesShowInTheContextViewAndOnTheChart({ page, assert, consoleErrors, root }) {
  await ready(page);
  // Typed and left (no Enter needed): the Context view follows.
  await page.getByTestId('needles').fill('computeTotal');
  await page.getByTestId('needles').press('Tab');
  await page.getByTestId('needle-note').waitFor({ timeout: 20_000 });
  const note = await page.getByTestId('needle-note').innerText();
  assert.match(note, /^computeTotal first at message #\d+; (never left the window|left the window at call \d+)/);
  // Every call it left at is marked on the chart, and the note's link selects that call.
  const lefts = await page.getByTestId('needle-left-at').count();
  assert.equal(await page.getByTestId('needle-mark').count(), lefts);
  if (lefts > 0) {
    const c = await page.getByTestId('needle-left-at').first().getAttribute('data-step');
    await page.getByTestId('needle-left-at').first().click();
    await page.waitForFunction((s) => document.querySelector('[data-testid="guard-status"]')?.dataset.step === s, c, { timeout: 10_000 });
  }
  // Highlighted in the kept history where it is mentioned (the agent names it from message #5 on).
  await page.locator('[data-testid="message-row"][data-index="6"]').click();
  await page.locator('[data-testid="context-history"] [data-testid="needle-hit"]').first().waitFor({ timeout: 10_000 });
  assert.match(await page.locator('[data-testid="context-history"] [data-testid="needle-hit"]').first().innerText(), /computeTotal/);
  await shot(page, root, 'needles');
  assert.deepEqual(consoleErrors, []);
}

export async function testARequestAboveTheWindowIsAnOverflow({ page, assert, consoleErrors, root }) {
  await ready(page);
  await page.getByTestId('field-window').fill('1000');
  await page.getByTestId('field-window').press('Enter');
  // Every call of the sample (~17.9k and up) is above a 1,000-token window: 24 overflows, not warnings.
  await page.waitForFunction(
    () => /24 overflows/.test(document.querySelector('[data-testid="replay-overflows"]')?.textContent ?? ''),
    null,
    { timeout: 20_000 },
  );
  assert.match(await page.getByTestId('replay-overflows').getAttribute('class'), /overflow-count/);
  await page.waitForFunction(() => document.querySelector('[data-testid="guard-status"]')?.dataset.status === 'overflow', null, {
    timeout: 10_000,
  });
  assert.match(await page.getByTestId('guard-reason').innerText(), /> window 1,000: the provider would reject this call/);
  await shot(page, root, 'overflow');
  assert.deepEqual(consoleErrors, []);
}

export async function testANeedleThatLeavesIsMarkedWhereItLeft({ page, assert, consoleErrors, root }) {
  await ready(page);
  // Under s0 the sample's history is cut (`replay --policy s0 --needle computeTotal --json` lists
  // `computeTotal`, first named in message #1, leaving at a call near 20; the window counts with the
  // exact counts, the CLI with the import's estimates, so the call is read from the page).
  await page.getByTestId('policy-picker').selectOption('s0');
  await page.waitForFunction(() => location.hash.includes('p=s0'), null, { timeout: 15_000 });
  await page.getByTestId('needles').fill('computeTotal');
  await page.getByTestId('needles').press('Tab');
  const left = page.getByTestId('needle-left-at').first();
  await left.waitFor({ timeout: 20_000 });
  const step = Number(await left.getAttribute('data-step'));
  assert.ok(step >= 18 && step <= 21, `left near call 20, not ${step}`);
  assert.match(await page.getByTestId('needle-note').innerText(), new RegExp(`left the window at call ${step}`));
  await page.locator(`[data-testid="needle-mark"][data-step="${step}"]`).waitFor({ timeout: 10_000 });
  assert.equal(await page.getByTestId('needle-mark').count(), await page.getByTestId('needle-left-at').count());
  await left.click();
  await page.waitForFunction((s) => document.querySelector('[data-testid="guard-status"]')?.getAttribute('data-step') === s, String(step), {
    timeout: 10_000,
  });
  await shot(page, root, 'needle-left');
  assert.deepEqual(consoleErrors, []);
}
