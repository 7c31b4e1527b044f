/**
 * No traffic leaves the machine: every request the page makes while a person opens the sample,
 * replays it under another policy and exports the result goes to the local server (127.0.0.1),
 * or is in-page data (data:, blob:) that never touches the network.
 */
import { exportVia } from '../export-helper.mjs';

const IN_PAGE = new Set(['data:', 'blob:']);

export async function run({ page, url, assert, consoleErrors }) {
  const requests = [];
  const sockets = [];
  const context = page.context();
  context.on('request', (r) => requests.push(r.url()));
  page.on('websocket', (ws) => sockets.push(ws.url()));

  // Load the page again with the recorder on, so its first requests are seen too.
  await page.goto(url);
  await page.getByTestId('message-row').first().waitFor({ timeout: 30_000 });
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('policy-picker').selectOption('claude-code');
  await page.waitForFunction(
    () => document.querySelector('[data-testid="replay-totals"]')?.textContent?.includes('1 compression ·'),
    null,
    { timeout: 15_000 },
  );
  await page.getByTestId('message-row').nth(2).click();
  const download = await exportVia(page, 'markdown');
  assert.ok(download.suggestedFilename().length > 0, 'the export downloaded');
  await page.waitForTimeout(500);

  assert.ok(requests.length >= 5, `the recorder saw the page's requests (${requests.length})`);
  assert.ok(
    requests.some((u) => u.includes('/api/getChartView')),
    'the replay went through the local API',
  );
  const offMachine = [...requests, ...sockets].filter((u) => {
    const p = new URL(u);
    if (IN_PAGE.has(p.protocol)) return false;
    return !(['http:', 'ws:'].includes(p.protocol) && p.hostname === '127.0.0.1');
  });
  assert.deepEqual(offMachine, [], 'every request stays on 127.0.0.1');
  assert.deepEqual(consoleErrors, []);
}
