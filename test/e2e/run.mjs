#!/usr/bin/env node
/**
 * Browser end-to-end tests: starts `ctxscope serve` on the bundled sample (a fresh database in a
 * temp folder), drives Debian's Chromium (CHROMIUM_PATH, else /usr/bin/chromium; never a
 * downloaded browser) with playwright-core, and runs every spec in test/e2e/specs/*.mjs on a
 * fresh page. Each spec exports `run({ page, url, baseUrl, token, assert, consoleErrors })`.
 * Then the Electron e2e (test/e2e/electron.mjs) runs, or prints one skip line.
 * Needs `npm run build` first (npm test does it).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const only = process.argv.slice(2);

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

function chromiumPath() {
  const p = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(p)) {
    console.error(`e2e: no Chromium at ${p}: install it (apt-get install chromium) or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  return p;
}

/**
 * Starts `ctxscope serve` and resolves with its URL (the first line it prints). `env` is added to
 * this process's environment (e.g. HOME, CLAUDE_CONFIG_DIR, CODEX_HOME pointing at a fixture tree).
 */
export async function startServe(args, dbDir, env = {}) {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.CTXSCOPE_SERVE_NODE_ARGS ? process.env.CTXSCOPE_SERVE_NODE_ARGS.split(' ') : []),
      join(root, 'bin', 'ctxscope.mjs'),
      'serve',
      ...args,
      '--db',
      join(dbDir, 'e2e.db'),
    ],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CTXSCOPE_DB: join(dbDir, 'e2e.db'), ...env },
    },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const firstLine = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`serve did not start in 60 s\n${stderr}`)), 60_000);
    rl.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}\n${stderr}`)));
  });
  const m = /^Context Scope at (http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+))$/.exec(firstLine);
  if (!m) throw new Error(`unexpected first line from serve: ${firstLine}`);
  return { child, url: m[1], baseUrl: `http://127.0.0.1:${m[2]}`, port: Number(m[2]), token: decodeURIComponent(m[3]) };
}

async function main() {
  const specDir = join(here, 'specs');
  const specs = readdirSync(specDir)
    .filter((f) => f.endsWith('.mjs'))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  const dbDir = mkdtempSync(join(tmpdir(), 'ctxscope-e2e-'));
  const serve = await startServe([join(root, 'resources', 'sample', 'sample-session.jsonl')], dbDir);
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
  let passed = 0;
  let failed = 0;
  try {
    for (const file of specs) {
      const mod = await import(pathToFileURL(join(specDir, file)).href);
      const cases = Object.entries(mod).filter(([name, fn]) => typeof fn === 'function' && (name === 'run' || name.startsWith('test')));
      for (const [name, fn] of cases) {
        const label = `${file}${name === 'run' ? '' : ` › ${name}`}`;
        const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1440, height: 900 } });
        const page = await context.newPage();
        const consoleErrors = [];
        page.on('console', (msg) => {
          // A 409 is a request the host cancelled because a newer one on its channel superseded it
          // (the debugger asks again as the user steps or drags): the app's normal flow, which
          // Chromium still logs as a failed resource. Every other error counts.
          if (msg.type() === 'error' && !/status of 409 \(Conflict\)/.test(msg.text())) consoleErrors.push(msg.text());
        });
        page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
        const t0 = Date.now();
        try {
          await page.goto(serve.url);
          await fn({ page, url: serve.url, baseUrl: serve.baseUrl, token: serve.token, assert, consoleErrors, root });
          passed++;
          console.log(`  ✓ ${label} (${Date.now() - t0} ms)`);
        } catch (err) {
          failed++;
          console.log(
            `  ✗ ${label}\n    ${String(err?.stack ?? err)
              .split('\n')
              .slice(0, 8)
              .join('\n    ')}`,
          );
          const shot = join(root, 'test-results', `${file.replace(/\W+/g, '_')}-${name}.png`);
          await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
          console.log(`    screenshot: ${shot}`);
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
    serve.child.kill('SIGTERM');
    rmSync(dbDir, { recursive: true, force: true });
  }

  const electron = await import(pathToFileURL(join(here, 'electron.mjs')).href);
  const e = await electron.runElectronE2E();
  passed += e.passed;
  failed += e.failed;

  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(`e2e: ${err?.stack ?? err}`);
    process.exit(1);
  });
}
