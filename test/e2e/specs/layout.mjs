/**
 * Nothing cut off at 1440×900 and 1280×720 (docs/user-guide.md): the header, the policy bar and
 * every panel hold their content (scrollWidth ≤ clientWidth), the message list starts below the
 * timeline with rows in view, lane labels do not overlap, the marks have a legend and counts
 * take their plural. A screenshot at each size (test-results/layout-<w>x<h>.png).
 */
import { join } from 'node:path';

const PANELS = [
  '.session-bar',
  '.policy-bar',
  '.chart-legend',
  '.replay-timeline',
  '.marks-legend',
  '.guard-status',
  '.config-panel',
  '.context-view',
  '.tabs',
];

async function checkAt(page, assert, root, width, height) {
  await page.setViewportSize({ width, height });
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.waitForTimeout(600);
  const overflow = await page.evaluate((sels) => {
    const out = [];
    for (const sel of sels)
      for (const el of document.querySelectorAll(sel))
        if (el.scrollWidth > el.clientWidth + 1) out.push(`${sel}: ${el.scrollWidth} > ${el.clientWidth}`);
    // Text cut with an ellipsis counts as cut off too.
    for (const el of document.querySelectorAll('.session-bar *, .policy-bar *')) {
      const cs = getComputedStyle(el);
      if (cs.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1 && !el.closest('.session-picker-button'))
        out.push(`ellipsis in ${el.className || el.tagName}: ${el.textContent.slice(0, 40)}`);
    }
    return out;
  }, PANELS);
  await page.screenshot({ path: join(root, 'test-results', `layout-${width}x${height}.png`) });
  assert.deepEqual(overflow, [], `cut off at ${width}×${height}`);
  // The totals line shows the peak and the aborts in full.
  const totals = await page.getByTestId('replay-totals').boundingBox();
  assert.ok(totals.x + totals.width <= width, `totals inside the window at ${width}`);
  // The message list starts under the timeline and shows rows.
  const timeline = await page.getByTestId('replay-timeline').boundingBox();
  const list = await page.getByTestId('turn-list').boundingBox();
  assert.ok(list.y >= timeline.y + timeline.height - 1, `message list below the timeline at ${width}×${height}`);
  assert.ok(list.height >= 3 * 26, `at least three message rows in view at ${width}×${height}: ${list.height}px`);
  // Lane labels: one line each, none overlapping the next.
  const lanes = await page.locator('.timeline-labels span').evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return [r.top, r.bottom, e.scrollWidth <= e.clientWidth + 1 || e.clientWidth === 0];
    }),
  );
  for (let i = 1; i < lanes.length; i++) assert.ok(lanes[i][0] >= lanes[i - 1][1] - 0.5, `lane ${i} does not overlap lane ${i - 1}`);
}

export async function testNothingCutOff({ page, assert, consoleErrors, root }) {
  await checkAt(page, assert, root, 1440, 900);
  await checkAt(page, assert, root, 1280, 720);
  // A legend for the message marks; plural forms.
  assert.match(await page.getByTestId('marks-legend').innerText(), /● in the window.*S summarised.*M masked.*✕ dropped/s);
  assert.match(await page.getByTestId('session-facts').innerText(), /\b6 turns · 24 LLM calls\b/);
  assert.match(await page.getByTestId('replay-totals').innerText(), /\b1 compression · peak .* 0 forced finals · 0 aborts · 0 overflows/);
  assert.deepEqual(consoleErrors, []);
}
