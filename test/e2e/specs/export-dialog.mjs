/**
 * A person exports from the window: selects a call under a policy, opens the export dialog, sees
 * which call it takes, picks a format, adds a redaction pattern and watches the count change,
 * renames the file and saves; the file imports back (the project's own CLI, run from Node) with
 * as many messages as the dialog said. Then the chart as PNG and as SVG.
 * With E2E_SHOTS=<dir> the dialog and both chart files are also written there to look at.
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const shots = process.env.E2E_SHOTS;

async function keep(path, name) {
  if (!shots) return;
  await mkdir(shots, { recursive: true });
  await copyFile(path, join(shots, name));
}

/** Waits until the dialog's preview answers for the current choices (Save enabled). */
const previewed = (page) =>
  page.waitForFunction(() => document.querySelector('[data-testid="export-save"]')?.disabled === false, null, { timeout: 15_000 });
const redactionCount = async (page) => Number(await page.getByTestId('export-redactions').getAttribute('data-count'));

async function atLastCallUnderClaudeCode(page) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('policy-picker').selectOption('claude-code');
  await page.waitForFunction(
    () => document.querySelector('[data-testid="replay-totals"]')?.textContent?.includes('1 compression ·'),
    null,
    { timeout: 15_000 },
  );
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('[data-testid="guard-status"]')?.getAttribute('data-step') === '23', null, {
    timeout: 15_000,
  });
}

export async function testExportDialogRedactsSavesAndTheFileImportsBack({ page, assert }) {
  await atLastCallUnderClaudeCode(page);
  await page.getByTestId('export').click();
  const dialog = page.getByTestId('export-dialog');
  await dialog.waitFor({ timeout: 10_000 });
  const call = page.getByTestId('export-call');
  assert.equal(await call.getAttribute('data-step'), '23');
  assert.match(await call.innerText(), /call 23 of 24, turn \d+ under claude-code/);
  assert.ok(await page.getByTestId('export-what-window').isChecked(), 'the compacted history is the default');

  // The report offers only report formats; back to the history, JSON lines.
  await page.getByTestId('export-what-report').check();
  const reportFormats = await page
    .getByTestId('export-format')
    .locator('option')
    .evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(reportFormats, ['report-json', 'report-csv']);
  await page.getByTestId('export-what-window').check();
  await page.getByTestId('export-format').selectOption('jsonl');
  // Save may still be enabled by the previous choice's preview until React renders the new one as
  // pending: wait for the JSON-lines preview's own name, then for Save.
  await page.waitForFunction(
    () => /\.claude-code\.call-23\.jsonl$/.test(document.querySelector('[data-testid="export-filename"]')?.value ?? ''),
    null,
    { timeout: 15_000 },
  );
  await previewed(page);
  assert.doesNotMatch(await page.getByTestId('export-filename').inputValue(), /\.jsonl\.jsonl/);

  // A user pattern: the count goes up before anything is saved; a bad line is named with its reason.
  const before = await redactionCount(page);
  await page.getByTestId('export-patterns').fill('ORD-1187\n/(?<=x)y/');
  await page.getByTestId('export-pattern-problems').waitFor({ timeout: 10_000 });
  assert.match(await page.getByTestId('export-pattern-problems').innerText(), /line 2: .*lookbehind/);
  assert.ok(await page.getByTestId('export-save').isDisabled(), 'no save while a pattern is invalid');
  await page.waitForFunction(
    (n) => Number(document.querySelector('[data-testid="export-redactions"]')?.getAttribute('data-count')) > n,
    before,
    { timeout: 10_000 },
  );
  await page.getByTestId('export-patterns').fill('ORD-1187');
  await previewed(page);
  const after = await redactionCount(page);
  assert.ok(after > before, `the count rose with the pattern (${before} → ${after})`);
  assert.equal(Number(await page.getByTestId('export-redactions-custom').getAttribute('data-count')), after - before);
  // Switching e-mail addresses off changes nothing here but must keep the pattern's count.
  await page.getByTestId('export-builtin-email').uncheck();
  await previewed(page);
  assert.equal(Number(await page.getByTestId('export-redactions-custom').getAttribute('data-count')), after - before);
  if (shots) {
    await dialog.screenshot({ path: join(shots, 'export-dialog.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await dialog.screenshot({ path: join(shots, 'export-dialog-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
  }

  // A name typed with a path separator and no extension is saved safely, with one.
  await page.getByTestId('export-filename').fill('team/ORD review');
  const messages = Number(await page.getByTestId('export-messages').getAttribute('data-count'));
  assert.ok(messages > 0, 'the dialog says how many messages the export holds');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-save').click()]);
  assert.equal(download.suggestedFilename(), 'team-ORD review.jsonl');
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });
  const path = await download.path();
  const text = await readFile(path, 'utf8');
  assert.doesNotMatch(text, /ORD-1187/, 'the pattern was redacted');
  assert.match(text, /\[REDACTED:custom\]/);

  // The file imports back with the project's own detection and import.
  const file = join(dirname(path), 'exported.jsonl');
  await copyFile(path, file);
  const r = spawnSync(process.execPath, [join(root, 'bin', 'ctxscope.mjs'), 'inspect', file, '--json'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const inspected = JSON.parse(r.stdout);
  // By role; a system message (system prompt and summary) is a region, not history.
  const byRole = inspected.sessions[0].messages;
  assert.equal(byRole.user + byRole.assistant + byRole.tool, messages, 'the re-imported file holds the messages the dialog announced');
}

export async function testChartPngIsAtTheDevicePixelRatio({ page, url, assert }) {
  // A HiDPI screen: a page of its own with twice the pixels per CSS pixel.
  const context = await page
    .context()
    .browser()
    .newContext({ acceptDownloads: true, viewport: { width: 1440, height: 900 }, deviceScaleFactor: 2 });
  try {
    const hidpi = await context.newPage();
    await hidpi.goto(url);
    await atLastCallUnderClaudeCode(hidpi);
    const [png] = await Promise.all([hidpi.waitForEvent('download'), hidpi.getByTestId('export-chart-png').click()]);
    assert.match(png.suggestedFilename(), /\.claude-code\.chart\.png$/);
    const pngBytes = await readFile(await png.path());
    assert.ok(pngBytes.length > 1000, `the PNG has content (${pngBytes.length} bytes)`);
    assert.equal(pngBytes.subarray(1, 4).toString('latin1'), 'PNG');
    const box = await hidpi
      .locator('[data-testid="region-bars"] canvas')
      .evaluate((c) => ({ w: c.width, h: c.height, cssW: c.getBoundingClientRect().width }));
    assert.equal(pngBytes.readUInt32BE(16), box.w, 'the PNG is the canvas pixel for pixel');
    assert.equal(pngBytes.readUInt32BE(20), box.h);
    assert.equal(box.w, Math.round(box.cssW) * 2, 'at the device pixel ratio (2)');
    await keep(await png.path(), 'chart@2x.png');
  } finally {
    await context.close();
  }
}

export async function testChartExportsAsPngAndSvg({ page, assert }) {
  await atLastCallUnderClaudeCode(page);
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-chart-png').click()]);
  const pngBytes = await readFile(await png.path());
  assert.ok(pngBytes.length > 1000, `the PNG has content (${pngBytes.length} bytes)`);
  const canvas = await page.locator('[data-testid="region-bars"] canvas').evaluate((c) => ({ w: c.width, h: c.height }));
  assert.equal(pngBytes.readUInt32BE(16), canvas.w);
  assert.equal(pngBytes.readUInt32BE(20), canvas.h);
  await keep(await png.path(), 'chart.png');

  const [svg] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-chart-svg').click()]);
  assert.match(svg.suggestedFilename(), /\.claude-code\.chart\.svg$/);
  const xml = await readFile(await svg.path(), 'utf8');
  const parsed = await page.evaluate((x) => {
    const doc = new DOMParser().parseFromString(x, 'image/svg+xml');
    return {
      error: doc.getElementsByTagName('parsererror').length > 0,
      root: doc.documentElement.nodeName,
      regions: Array.from(doc.querySelectorAll('path.region')).map((p) => p.getAttribute('data-region')),
      compressions: (doc.querySelector('path[data-marker="compression"]')?.getAttribute('d') ?? '').split('M').length - 1,
      legend: doc.querySelectorAll('g.legend text').length,
    };
  }, xml);
  assert.equal(parsed.error, false, 'the SVG parses');
  assert.equal(parsed.root, 'svg');
  assert.deepEqual(parsed.regions, ['system', 'unlogged', 'summary', 'history', 'tools', 'reserve']);
  assert.equal(parsed.compressions, 1, 'the one compression marker is drawn');
  assert.ok(parsed.legend >= 10);
  // The chart did not take the click as a call selection.
  assert.equal(await page.getByTestId('guard-status').getAttribute('data-step'), '23');
  await keep(await svg.path(), 'chart.svg');
  if (shots) await page.screenshot({ path: join(shots, 'window.png') });
}
