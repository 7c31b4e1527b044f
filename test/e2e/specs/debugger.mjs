/**
 * The window as a debugger, as a person uses it on the sample: step with the keys and watch the
 * guard status and the context view follow, jump to a compression and read its before / after,
 * click a message or an event and export at that call, follow a tool call to its result, pin a
 * message, drag the trigger, type a value out of range, reload and land on the same call.
 */
import { exportVia } from '../export-helper.mjs';

const stepOf = (page, testId) => page.getByTestId(testId).getAttribute('data-step');
const waitStep = (page, testId, step) =>
  page.waitForFunction(
    ([id, s]) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute('data-step') === String(s),
    [testId, step],
    { timeout: 15_000 },
  );
const markerCount = async (page) => Number(await page.getByTestId('chart-markers').getAttribute('data-markers'));

async function ready(page, policy) {
  await page.getByTestId('guard-status-badge').waitFor({ timeout: 30_000 });
  // The sample opens on the import's chars/4 estimates; the exact counts swap in when the count
  // worker is done (slow on a loaded machine). Every figure below is about the exact counts.
  await page.waitForFunction(
    () => {
      const t = document.querySelector('[data-testid="session-facts"]')?.getAttribute('data-tokenizer');
      return !!t && t !== 'chars4';
    },
    null,
    { timeout: 60_000 },
  );
  if (policy && (await page.getByTestId('policy-picker').inputValue()) !== policy) {
    const before = await page.getByTestId('chart-markers').getAttribute('data-markers');
    await page.getByTestId('policy-picker').selectOption(policy);
    await page.waitForFunction((p) => document.querySelector('[data-testid="region-bars"]') && location.hash.includes(`p=${p}`), policy, {
      timeout: 15_000,
    });
    void before;
  }
  await page.getByTestId('guard-status-badge').waitFor({ timeout: 30_000 });
}

export async function testKeysStepTheGuardAndTheContext({ page, assert, consoleErrors }) {
  await ready(page);
  // The sample opens on the policy of the agent that wrote it.
  assert.equal(await page.getByTestId('policy-picker').inputValue(), 'claude-code');
  await page.keyboard.press('Home');
  await waitStep(page, 'guard-status', 0);
  const total0 = await page.getByTestId('context-total').innerText();
  await page.keyboard.press('ArrowRight');
  await waitStep(page, 'guard-status', 1);
  await waitStep(page, 'context-view', 1);
  assert.notEqual(await page.getByTestId('context-total').innerText(), total0, 'the context view shows the next call');
  assert.match(await page.getByTestId('timeline-position').innerText(), /call 1 of 24/);
  await page.keyboard.press('Shift+ArrowRight');
  await waitStep(page, 'guard-status', 11);
  await page.keyboard.press('End');
  await waitStep(page, 'guard-status', 23);
  await waitStep(page, 'context-view', 23);
  // The guard explains its limit: the sample opens on claude-code, which enforces its auto-compact
  // threshold (docs/policies.md §Presets), with the formula and where each part comes from.
  const guard = await page.getByTestId('guard-status').innerText();
  assert.match(guard, /auto-compact threshold min\(floor\(\(window − 20,000\)/);
  assert.match(guard, /from model catalog/);
  assert.deepEqual(consoleErrors, []);
}

export async function testNJumpsToTheCompressionAndShowsBeforeAfter({ page, assert }) {
  await ready(page);
  await page.keyboard.press('Home');
  await waitStep(page, 'guard-status', 0);
  await page.keyboard.press('n');
  await page.getByTestId('before-after').waitFor({ timeout: 15_000 });
  assert.equal(await page.getByTestId('guard-status').getAttribute('data-status'), 'compress');
  const step = Number(await stepOf(page, 'guard-status'));
  assert.ok(step > 0, 'N moved forward to the compression');
  assert.match(await page.getByTestId('summary-after').innerText(), /Summary of \d+ earlier messages/);
  assert.match(await page.getByTestId('guard-compression').innerText(), /→/);
  // P goes back: there is no earlier compression, so the selection stays.
  await page.keyboard.press('p');
  await page.waitForTimeout(300);
  assert.equal(Number(await stepOf(page, 'guard-status')), step);
}

export async function testMessageAndEventClicksMoveTheSelectionAndExportUsesIt({ page, assert }) {
  await ready(page);
  // Message #4 (a tool result) is first seen by the call at message #5: call 2.
  await page.locator('[data-testid="message-row"][data-index="4"]').click();
  await waitStep(page, 'guard-status', 2);
  assert.match(await page.getByTestId('message-detail').innerText(), /^#4/);
  let download = await exportVia(page, 'openai');
  assert.match(download.suggestedFilename(), /\.call-2\.openai\.json$/, 'Export is at the clicked message’s call');
  // An event click moves the same selection.
  await page.getByTestId('tab-events').click();
  const event = page.locator('[data-testid="event-row"].event-compression').first();
  const eventStep = await event.getAttribute('data-step');
  await event.click();
  await waitStep(page, 'guard-status', eventStep);
  download = await exportVia(page, 'openai');
  assert.match(download.suggestedFilename(), new RegExp(`\\.call-${eventStep}\\.openai\\.json$`));
  // The chart's cursor follows it too.
  assert.equal(await page.getByTestId('chart-cursor').count(), 1);
}

export async function testToolCallLinksToItsResultAndBack({ page, assert }) {
  await ready(page);
  const call = page.locator('[data-testid="message-row"][data-index="1"]');
  await call.getByTestId('link-to-result').click();
  await page.waitForFunction(() => /^#2\b/.test(document.querySelector('[data-testid="message-detail"]')?.textContent ?? ''), null, {
    timeout: 10_000,
  });
  const detail = await page.getByTestId('message-detail').innerText();
  assert.match(detail, /tool result/);
  await page.getByTestId('detail-link-to-call').click();
  await page.waitForFunction(() => /^#1\b/.test(document.querySelector('[data-testid="message-detail"]')?.textContent ?? ''), null, {
    timeout: 10_000,
  });
}

export async function testPinningChangesTheReplay({ page, assert }) {
  await ready(page);
  await page.keyboard.press('End');
  await waitStep(page, 'guard-status', 23);
  const row = page.locator('[data-testid="message-row"][data-index="2"]');
  await page.getByTestId('turn-list').evaluate((el) => el.scrollTo(0, 0));
  // At the last call, after the compaction, message #2 is folded into the summary.
  await page.waitForFunction(
    () => document.querySelector('[data-testid="message-row"][data-index="2"]')?.getAttribute('data-state') === 'summarised',
    null,
    { timeout: 15_000 },
  );
  const before = await page.getByTestId('context-total').innerText();
  await row.getByTestId('pin').click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="message-row"][data-index="2"]')?.getAttribute('data-state') === 'window',
    null,
    { timeout: 20_000 },
  );
  assert.notEqual(await page.getByTestId('context-total').innerText(), before, 'the pinned message is in the request now');
  await row.getByTestId('pin').click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="message-row"][data-index="2"]')?.getAttribute('data-state') === 'summarised',
    null,
    { timeout: 20_000 },
  );
}

export async function testDraggingTheTriggerChangesTheMarkers({ page, assert }) {
  await ready(page, 's2');
  await page.getByTestId('slider-trigger').waitFor({ timeout: 15_000 });
  const before = await markerCount(page);
  await page.getByTestId('slider-trigger').scrollIntoViewIfNeeded();
  const box = await page.getByTestId('slider-trigger').boundingBox();
  // Drag the thumb from its place (0.85) down to about 0.1 (an early trigger), through values in between.
  await page.mouse.move(box.x + box.width * 0.85, box.y + box.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) await page.mouse.move(box.x + box.width * (0.85 - (0.73 * i) / 8), box.y + box.height / 2);
  await page.mouse.up();
  // The drag's first move replays at once and its last one when the drag pauses: the URL names the
  // overrides of the chart on screen, so it shows the last value once that replay is drawn.
  await page.waitForFunction(() => /"trigger":0\.[01]\d*/.test(decodeURIComponent(location.hash)), null, { timeout: 20_000 });
  assert.ok((await markerCount(page)) > before, 'an earlier trigger compresses more often');
}

export async function testAnInvalidValueLeavesThePreviousChart({ page, assert }) {
  await ready(page, 's2');
  const field = page.getByTestId('field-trigger');
  await field.waitFor({ timeout: 15_000 });
  await field.fill('0.3');
  await field.press('Enter');
  await page.waitForFunction(() => location.hash.includes('trigger'), null, { timeout: 15_000 });
  await page.waitForFunction(() => !document.querySelector('.chart-busy'), null, { timeout: 20_000 });
  const markers = await markerCount(page);
  const totals = await page.getByTestId('replay-totals').innerText();
  await field.fill('7');
  await field.press('Enter');
  await page.getByTestId('field-problem').waitFor({ timeout: 10_000 });
  assert.equal(await page.getByTestId('config-field-trigger').getAttribute('data-invalid'), 'true');
  await page.waitForTimeout(500);
  assert.equal(await markerCount(page), markers, 'the chart on screen is the last good replay');
  assert.equal(await page.getByTestId('replay-totals').innerText(), totals);
  assert.equal(await page.locator('[data-testid="region-bars"] canvas').count(), 1);
}

export async function testTheUrlRemembersTheCall({ page, assert }) {
  await ready(page);
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await waitStep(page, 'guard-status', 22);
  await page.waitForFunction(() => location.hash.includes('step=22'), null, { timeout: 10_000 });
  await page.reload();
  await page.getByTestId('guard-status-badge').waitFor({ timeout: 30_000 });
  await waitStep(page, 'guard-status', 22);
  assert.equal(await page.getByTestId('policy-picker').inputValue(), 'claude-code');
}

export async function testCompareMarksBAndFiltersByDelta({ page, assert }) {
  await ready(page, 's2');
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-picker').selectOption('claude-code');
  await page.getByTestId('compare-differences').waitFor({ timeout: 20_000 });
  const all = Number(await page.getByTestId('compare-differences').getAttribute('data-count'));
  assert.ok(all > 0, 'some calls differ');
  assert.equal(await page.getByTestId('compare-markers').count(), 1, "B's compressions are drawn on the chart");
  assert.match(await page.getByTestId('compare-config-diff').innerText(), /pipeline/);
  await page.getByTestId('compare-min-delta').fill('100000');
  await page.waitForFunction(
    (n) => Number(document.querySelector('[data-testid="compare-differences"]')?.getAttribute('data-count')) < n,
    all,
    { timeout: 20_000 },
  );
}

export async function testEstimateAccuracyExplainsItself({ page, assert }) {
  await ready(page);
  await page.getByTestId('tab-accuracy').click();
  await page.getByTestId('accuracy-calibration').or(page.getByTestId('accuracy-fallback')).first().waitFor({ timeout: 20_000 });
  const text = await page.getByTestId('estimate-accuracy').innerText();
  assert.match(text, /against the provider's reported prompt, 24 calls/);
  assert.match(text, /in-sample error|fell back/);
  // The plot draws one dot per call (24 of them: no thinning below the cap) and a click selects one.
  const plot = page.getByTestId('estimate-plot');
  assert.equal(await plot.getAttribute('data-points'), '24');
  assert.equal(await plot.getAttribute('data-hidden'), '0');
  const dots = plot.locator('.recharts-scatter').first().locator('.recharts-scatter-symbol');
  await dots.first().waitFor({ timeout: 10_000 });
  assert.equal(await dots.count(), 24);
  await dots.nth(5).click();
  await page.waitForFunction(() => document.querySelector('.acc-row.selected') !== null, null, { timeout: 10_000 });
  const row = await page.locator('.acc-row.selected').innerText();
  await waitStep(page, 'guard-status', Number(/#(\d+)/.exec(row)[1]));
  await plot.screenshot({ path: process.env.CTXSCOPE_E2E_SHOTS ? `${process.env.CTXSCOPE_E2E_SHOTS}/estimate-plot.png` : undefined });
}
