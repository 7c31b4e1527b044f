/**
 * The Electron e2e: launches the real app with Playwright's `_electron` on a temporary user-data
 * folder and checks the window shows the sample's messages and that the renderer has no Node.
 * Runs only where the Electron binary is installed; elsewhere prints one skip line.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { _electron } from 'playwright-core';
import { ensureElectron } from '../../scripts/electron-check.mjs';
import { ensureElectronNative } from '../../scripts/electron-native.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function runElectronE2E() {
  const electron = ensureElectron({ download: false });
  if (!electron.path) {
    console.log('  - electron e2e skipped: Electron binary not installed (run `npm start` once where it can be downloaded)');
    return { passed: 0, failed: 0 };
  }
  const native = await ensureElectronNative(root, electron.version);
  if (!native.ok) {
    console.log(`  ✗ electron e2e: ${native.reason}`);
    return { passed: 0, failed: 1 };
  }
  const userData = mkdtempSync(join(tmpdir(), 'ctxscope-electron-'));
  const app = await _electron.launch({
    executablePath: electron.path,
    args: [root, `--user-data-dir=${userData}`, '--db', join(userData, 'e2e.db')],
    cwd: root,
  });
  try {
    const page = await app.firstWindow();
    await page.getByTestId('message-row').first().waitFor({ timeout: 30_000 });
    const rows = await page.getByTestId('message-row').count();
    assert.ok(rows > 0, 'the sample shows its messages');
    const hasNode = await page.evaluate(() => typeof globalThis.require !== 'undefined' || typeof globalThis.process !== 'undefined');
    assert.equal(hasNode, false, 'no Node in the renderer');
    const prefs = await app.evaluate(({ BrowserWindow }) => {
      const w = BrowserWindow.getAllWindows()[0];
      const p = w.webContents.getLastWebPreferences();
      return { contextIsolation: p.contextIsolation, sandbox: p.sandbox, nodeIntegration: p.nodeIntegration };
    });
    assert.deepEqual(prefs, { contextIsolation: true, sandbox: true, nodeIntegration: false });

    // No traffic leaves the machine: reload with a recorder on; the page loads only its own files.
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.reload();
    await page.getByTestId('message-row').first().waitFor({ timeout: 30_000 });
    const own = pathToFileURL(join(root, 'out', 'renderer')).href + '/';
    const offMachine = requests.filter((u) => !u.startsWith(own) && !/^(data|blob|devtools):/.test(u));
    assert.ok(requests.length > 0, 'the recorder saw the page load');
    assert.deepEqual(offMachine, [], 'the window requests only its own files');
    console.log('  ✓ electron: window opens the sample, hardened, no requests off the machine');
    return { passed: 1, failed: 0 };
  } catch (err) {
    console.log(`  ✗ electron: ${err?.message ?? err}`);
    return { passed: 0, failed: 1 };
  } finally {
    await app.close();
    rmSync(userData, { recursive: true, force: true });
  }
}
