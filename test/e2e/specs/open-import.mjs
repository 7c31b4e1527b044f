/**
 * Getting sessions in, as a person does it in the browser, against a serve of its own whose
 * HOME / CLAUDE_CONFIG_DIR / CODEX_HOME point at a fake agent-logs tree: Open… uploads a file
 * through the file chooser, a file dropped on the window is uploaded too (the drop overlay shows
 * first), a big import shows its progress and Cancel leaves the session list as it was, a broken
 * file shows the error panel with its line until dismissed, and a session is opened from the
 * agent-logs panel. Each panel is screenshotted to test-results/open-import-*.png.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

let served = null;

/** This spec's own serve (and fixture tree), started once, stopped when the run ends. */
async function ownServe(root) {
  if (served) return served;
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-openimport-'));
  const sample = join(root, 'resources', 'sample', 'sample-session.jsonl');
  const lines = readFileSync(sample, 'utf8').split('\n').filter(Boolean);
  const home = join(dir, 'home');
  const claude = join(dir, 'claude', 'projects', '-home-ana-shop');
  const codex = join(dir, 'codex', 'sessions', '2026', '11', '20');
  mkdirSync(claude, { recursive: true });
  mkdirSync(codex, { recursive: true });
  mkdirSync(join(home, '.gemini', 'tmp', '9f3e1c', 'chats'), { recursive: true });
  // The newest Claude Code session: a part of the sample (its own content hash, so a new session).
  writeFileSync(join(claude, 'b1c2-newest.jsonl'), lines.slice(0, 40).join('\n') + '\n');
  writeFileSync(join(claude, 'a0f1-older.jsonl'), lines.slice(0, 20).join('\n') + '\n');
  const hourAgo = Date.now() / 1000 - 3600;
  utimesSync(join(claude, 'a0f1-older.jsonl'), hourAgo, hourAgo);
  copyFileSync(join(root, 'test', 'fixtures', 'import', 'codex-rollout.jsonl'), join(codex, 'rollout-2026-11-20T10-00-00-x.jsonl'));
  copyFileSync(
    join(root, 'test', 'fixtures', 'import', 'gemini-session.json'),
    join(home, '.gemini', 'tmp', '9f3e1c', 'chats', 'session-2026-11-24.json'),
  );
  const files = join(dir, 'files');
  mkdirSync(files);
  // Distinct contents, so each upload is a new session rather than the sample again.
  writeFileSync(join(files, 'upload me.jsonl'), lines.slice(0, 50).join('\n') + '\n');
  writeFileSync(join(files, 'broken.jsonl'), [...lines.slice(0, 5), '{"type":"assistant", broken', ...lines.slice(5, 8)].join('\n') + '\n');
  // A limit of 100 MiB: the 60 MB session below passes, a 101 MiB file is refused.
  const serve = await startServe([], join(dir), {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(dir, 'claude'),
    CODEX_HOME: join(dir, 'codex'),
    CTXSCOPE_UPLOAD_LIMIT_MB: '100',
  });
  process.once('exit', () => {
    serve.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });
  served = { ...serve, dir, files, lines };
  return served;
}

async function call(s, method, body = {}) {
  const res = await fetch(`${s.baseUrl}/api/${method}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${s.token}` },
  });
  const env = await res.json();
  if (!env.ok) throw new Error(`${method}: ${env.error.message}`);
  return env.value;
}

const shot = (page, root, name) => page.screenshot({ path: join(root, 'test-results', `open-import-${name}.png`) });

async function openApp(page, s) {
  await page.goto(s.url);
  await page.getByTestId('session-facts').waitFor({ timeout: 30_000 });
}

/** Waits until the app has opened a session other than `before` and returns its summary. */
async function sessionOpened(page, s, before, assert) {
  // The session picker is the library's button now (no value): the URL's hash names the open session.
  await page.waitForFunction(
    (old) => {
      const v = document.querySelector('[data-testid="session-picker"]')?.getAttribute('data-session-id');
      return v && !old.includes(v);
    },
    before,
    { timeout: 60_000 },
  );
  const id = await page.getByTestId('session-picker').getAttribute('data-session-id');
  const summary = (await call(s, 'listSessions')).find((x) => x.id === id);
  assert.ok(summary, 'the opened session is stored');
  return summary;
}

export async function testUploadThroughOpen({ page, root, assert }) {
  const s = await ownServe(root);
  await openApp(page, s);
  const before = (await call(s, 'listSessions')).map((x) => x.id);
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('open-files').click()]);
  await chooser.setFiles(join(s.files, 'upload me.jsonl'));
  const summary = await sessionOpened(page, s, before, assert);
  assert.match(
    summary.sourcePath,
    /^upload:[0-9a-f-]{36}-upload_me\.jsonl$/,
    "an opaque reference under a sanitised name, never the server's path",
  );
  assert.ok(
    readdirSync(join(s.dir, 'uploads')).some((f) => /^[0-9a-f-]{36}-upload_me\.jsonl$/.test(f)),
    'stored in the uploads folder',
  );
  assert.equal(summary.messages > 0, true);
  assert.equal(await page.getByTestId('import-error').count(), 0);
}

export async function testDropAFile({ page, root, assert }) {
  const s = await ownServe(root);
  await openApp(page, s);
  const before = (await call(s, 'listSessions')).map((x) => x.id);
  const text = s.lines.slice(0, 30).join('\n') + '\n';
  const dataTransfer = await page.evaluateHandle((t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'dropped.jsonl', { type: 'application/x-ndjson' }));
    return dt;
  }, text);
  await page.dispatchEvent('.app', 'dragenter', { dataTransfer });
  await page.getByTestId('drop-overlay').waitFor({ timeout: 5000 });
  await shot(page, root, 'drop-overlay');
  await page.dispatchEvent('.app', 'drop', { dataTransfer });
  assert.equal(await page.getByTestId('drop-overlay').count(), 0, 'the overlay goes away on drop');
  const summary = await sessionOpened(page, s, before, assert);
  assert.match(summary.sourcePath, /-dropped\.jsonl$/);
}

export async function testProgressThenCancelLeavesNothing({ page, root, assert }) {
  const s = await ownServe(root);
  const big = join(s.dir, 'big-session.jsonl');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test', 'bench', 'make-session.ts'), big, '--mb', '60'], {
    cwd: root,
    stdio: 'ignore',
  });
  assert.equal(r.status, 0, 'generated a 60 MB Claude Code session');
  await openApp(page, s);
  const before = (await call(s, 'listSessions')).map((x) => x.id).sort();
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('open-files').click()]);
  await chooser.setFiles(big);
  const panel = page.getByTestId('import-progress');
  await panel.waitFor({ timeout: 10_000 });
  // Progress past the upload, into the import itself, with a rate and an ETA.
  await page.waitForFunction(
    () => {
      const p = document.querySelector('[data-testid="import-progress"]');
      return p?.getAttribute('data-phase') === 'import' && Number(p.getAttribute('data-bytes')) > 0;
    },
    null,
    { timeout: 30_000, polling: 20 },
  );
  const text = await panel.innerText();
  await shot(page, root, 'progress');
  await page.getByTestId('import-cancel').click();
  await panel.waitFor({ state: 'detached', timeout: 30_000 });
  assert.match(text, /Importing\s+big-session\.jsonl/, 'the panel names the file');
  assert.match(text, /MB \/ 60\.0 MB/, 'bytes of the total');
  assert.match(text, /\/s/, 'a rate');
  assert.match(text, /ETA/, 'an ETA');
  assert.equal(await page.getByTestId('import-error').count(), 0, 'a cancel is not an error');
  await page.waitForTimeout(500);
  const after = (await call(s, 'listSessions')).map((x) => x.id).sort();
  assert.deepEqual(after, before, 'nothing stored after cancel');
  assert.equal(
    readdirSync(join(s.dir, 'uploads')).some((f) => f.includes('big-session')),
    false,
    'nor the upload kept on disk',
  );
  assert.equal(await page.getByTestId('open-files').isEnabled(), true, 'ready for the next file');
}

export async function testBrokenFileShowsErrorPanelUntilDismissed({ page, root, assert }) {
  const s = await ownServe(root);
  await openApp(page, s);
  const before = (await call(s, 'listSessions')).length;
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('open-files').click()]);
  await chooser.setFiles(join(s.files, 'broken.jsonl'));
  const panel = page.getByTestId('import-error');
  await panel.waitFor({ timeout: 30_000 });
  await shot(page, root, 'error');
  assert.equal(await page.getByTestId('import-error-file').innerText(), 'broken.jsonl', 'the file as the user named it, not a server path');
  assert.match(await page.getByTestId('import-error-line').innerText(), /^6, column \d+$/);
  assert.match(await page.getByTestId('import-error-expected').innerText(), /valid JSON/);
  await page.waitForTimeout(1500);
  assert.equal(await panel.count(), 1, 'it stays');
  await page.getByTestId('import-error-dismiss').click();
  assert.equal(await panel.count(), 0, 'until dismissed');
  assert.equal((await call(s, 'listSessions')).length, before, 'nothing stored');
}

export async function testTooBigForTheUploadLimitSaysSo({ page, root, assert }) {
  const s = await ownServe(root);
  const huge = join(s.dir, 'huge.jsonl');
  writeFileSync(huge, Buffer.alloc(101 * 1024 * 1024, 0x20));
  try {
    await openApp(page, s);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('open-files').click()]);
    await chooser.setFiles(huge);
    await page.getByTestId('import-error').waitFor({ timeout: 60_000 });
    assert.match(await page.getByTestId('import-error-expected').innerText(), /over this server's upload limit of 100 MiB/);
    assert.equal(
      readdirSync(join(s.dir, 'uploads')).some((f) => f.includes('huge')),
      false,
      'nothing kept',
    );
  } finally {
    rmSync(huge, { force: true });
  }
}

export async function testOpenFromAgentLogs({ page, root, assert }) {
  const s = await ownServe(root);
  await openApp(page, s);
  await page.getByTestId('local-logs-button').click();
  const panel = page.getByTestId('local-logs');
  await panel.locator('[data-testid="local-log-group"]').first().waitFor({ timeout: 15_000 });
  const groups = await panel
    .locator('[data-testid="local-log-group"]')
    .evaluateAll((els) => els.map((e) => `${e.dataset.agent} ${e.dataset.project}`));
  assert.ok(groups.includes('claude-code /home/dev/orders-service'), `Claude Code project by the cwd in its newest session (${groups})`);
  assert.ok(groups.includes('codex /home/dev/tomlkit-rs'), 'Codex by the cwd of its session_meta');
  assert.ok(groups.includes('gemini-cli 9f3e1c'), 'Gemini CLI by its project hash');
  const claude = panel.locator('[data-testid="local-log-group"][data-agent="claude-code"]');
  const names = await claude.locator('[data-testid="local-log-file"]').evaluateAll((els) => els.map((e) => e.dataset.name));
  assert.deepEqual(names, ['b1c2-newest.jsonl', 'a0f1-older.jsonl'], 'newest first');
  await shot(page, root, 'local-logs');
  await page.getByTestId('local-logs-filter').fill('tomlkit');
  assert.deepEqual(
    await panel.locator('[data-testid="local-log-group"]').evaluateAll((els) => els.map((e) => e.dataset.agent)),
    ['codex'],
    'the filter keeps the matching project',
  );
  await page.getByTestId('local-logs-filter').fill('');
  const before = (await call(s, 'listSessions')).map((x) => x.id);
  await claude.locator('[data-testid="local-log-file"][data-name="b1c2-newest.jsonl"] [data-testid="local-log-open"]').click();
  const summary = await sessionOpened(page, s, before, assert);
  assert.match(summary.sourcePath, /claude\/projects\/-home-ana-shop\/b1c2-newest\.jsonl$/);
  // Listed as imported now; Open goes straight to it.
  await page.getByTestId('local-logs-button').click();
  const row = panel.locator('[data-testid="local-log-file"][data-name="b1c2-newest.jsonl"]');
  await page.waitForFunction(
    () => document.querySelector('[data-testid="local-log-file"][data-name="b1c2-newest.jsonl"]')?.getAttribute('data-imported') === 'yes',
    null,
    { timeout: 10_000 },
  );
  assert.equal(await row.locator('[data-testid="local-log-open"]').innerText(), 'Open');
  await page.keyboard.press('Escape');
  assert.equal(await panel.count(), 0, 'Escape closes the panel');
}
