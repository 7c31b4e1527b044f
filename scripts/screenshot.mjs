#!/usr/bin/env node
// Takes docs/screenshot.png: `ctxscope serve` on the bundled sample, opened in system Chromium
// (CHROMIUM_PATH or /usr/bin/chromium). Needs `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, startServe } from '../test/e2e/run.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dbDir = mkdtempSync(join(tmpdir(), 'ctxscope-shot-'));
const serve = await startServe([join(root, 'resources', 'sample', 'sample-session.jsonl')], dbDir);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: CHROMIUM_FLAGS });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(serve.url);
  await page.getByTestId('message-row').first().waitFor();
  const policy = process.argv[2] ?? 'claude-code';
  await page.getByTestId('policy-picker').selectOption(policy);
  await page.getByTestId('replay-totals').waitFor();
  // A second policy to compare with (third argument; "-" for none).
  const against = process.argv[4] ?? 's2';
  if (against !== '-') {
    // The compare picker lives in the Compare tab; the shot shows the context view again.
    await page.getByTestId('tab-compare').click();
    await page.getByTestId('compare-picker').selectOption(against);
    await page.getByTestId('compare-differences').waitFor();
    await page.getByTestId('tab-context').click();
  }
  await page.waitForTimeout(500);
  // N: the first compression, with its before / after in the context view.
  await page.locator('body').click({ position: { x: 5, y: 880 } });
  await page.keyboard.press('n');
  await page.getByTestId('guard-status-badge').waitFor();
  await page.waitForTimeout(300);
  const out = process.argv[3] ?? join(root, 'docs', 'screenshot.png');
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  serve.child.kill('SIGTERM');
  rmSync(dbDir, { recursive: true, force: true });
}
