/**
 * Progressive opening through `ctxscope serve FILE` (docs/user-guide.md "Opening a transcript"):
 * the chart is on screen before the import ends, marked partial ("importing… N% — replay covers
 * calls 1–M"), grows, and the marker goes when the whole file is in. The file is still being
 * written while it is imported; the live tail takes the lines written after the import caught up.
 * Cancel during the import deletes the session shown so far (an import is all or nothing).
 *
 * CTXSCOPE_PROGRESSIVE (src/main/store/progressive.ts) makes a ~2 MB file import in small chunks
 * with a pause between them, so that the growing chart can be watched.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

async function call(baseUrl, token, method, body) {
  const res = await fetch(`${baseUrl}/api/${method}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${token}` },
  });
  const env = await res.json();
  if (!env.ok) throw new Error(`${method}: ${env.error.message}`);
  return env.value;
}

/** A generated Claude Code session of `calls` calls, as its lines. */
function sessionLines(root, dir, calls) {
  const full = join(dir, 'full.jsonl');
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'test', 'bench', 'make-session.ts'), full, '--calls', String(calls)],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) throw new Error('generating the session failed');
  return readFileSync(full, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

export async function testChartBeforeImportEndsOnAFileStillBeingWritten({ page, root, assert }) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-progressive-'));
  let own = null;
  let writer = null;
  try {
    const lines = sessionLines(root, dir, 600);
    const file = join(dir, 'growing.jsonl');
    // The agent has written 60% of its session; the rest comes in batches while the file is imported.
    let written = Math.floor(lines.length * 0.6);
    writeFileSync(file, lines.slice(0, written).join('\n') + '\n');
    // Files from 64 KB on open progressively: a 32 KB prefix, then 32 KB chunks 500 ms apart (~20 s).
    own = await startServe([file], dir, { CTXSCOPE_PROGRESSIVE: '64,32,32,500' });
    writer = setInterval(() => {
      if (written >= lines.length) return clearInterval(writer);
      const upTo = Math.min(lines.length, written + 60);
      appendFileSync(file, lines.slice(written, upTo).join('\n') + '\n');
      written = upTo;
    }, 400);
    await page.goto(own.url);
    await page.locator('[data-testid="region-bars"][data-key]').waitFor({ timeout: 60_000 });
    // The first chart is partial: it covers the calls stored so far, and says so.
    const note = page.getByTestId('partial-note');
    await note.waitFor({ timeout: 10_000 });
    // The note and the chart read at once (the chart grows as chunks are stored).
    const [first, drawn] = await page.evaluate(() => [
      Number(document.querySelector('[data-testid="partial-note"]')?.getAttribute('data-calls')),
      Number(document.querySelector('[data-testid="region-bars"]')?.getAttribute('data-steps')),
    ]);
    assert.ok(first > 0 && first < 600, `a partial chart of some of the 600 calls (${first})`);
    assert.equal(drawn, first, 'the note names the calls the chart draws');
    assert.match(await note.textContent(), /^importing… \d+% — replay covers calls 1–[\d,]+/);
    // The progress bar and Cancel of the running import are on screen (adopted from getInfo).
    await page.getByTestId('import-progress').waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(root, 'test-results', 'progressive-partial.png') });
    // It grows while the import runs…
    await page.waitForFunction(
      (n) => Number(document.querySelector('[data-testid="region-bars"]')?.getAttribute('data-steps')) > n,
      first,
      { timeout: 60_000 },
    );
    // …and the marker goes once the whole file is in; the live tail then takes what was written after.
    await note.waitFor({ state: 'detached', timeout: 120_000 });
    await page.getByTestId('import-progress').waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="region-bars"]')?.getAttribute('data-steps')) === 600,
      null,
      {
        timeout: 60_000,
      },
    );
    assert.equal(await note.count(), 0, 'no partial marker on the whole session');
    const info = await call(own.baseUrl, own.token, 'getInfo', {});
    assert.equal(info.imports, undefined, 'no import running');
  } finally {
    if (writer) clearInterval(writer);
    own?.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A session whose stored prefix is already longer than the replay worker reads at once
 * (src/main/host/growing.ts: 400 messages, ~200 calls, then steps of 6,000 messages): the first chart
 * covers those first calls only — made as soon as they were stored, not after a replay of
 * everything stored by the time the page asked — and grows by steps to the whole session.
 */
export async function testFirstChartOfABigPrefixIsItsFirstCalls({ page, root, assert }) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-progressive-'));
  let own = null;
  try {
    const lines = sessionLines(root, dir, 6000);
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    // A 10 MB prefix (~3,000 calls), then 2 MB chunks a second apart.
    own = await startServe([file], dir, { CTXSCOPE_PROGRESSIVE: '64,10240,2048,1000' });
    // The first chart the host answers (the window may draw a grown one first when a chunk is
    // stored while the page loads): its calls, and whether it is marked partial.
    const answers = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/api/getChartView'))
        answers.push(r.text().then((t) => ({ steps: Number(/"stepCount":(\d+)/.exec(t)?.[1]), partial: t.includes('"partial":') })));
    });
    await page.goto(own.url);
    await page.locator('[data-testid="region-bars"][data-key]').waitFor({ timeout: 60_000 });
    // A superseded request is answered `cancelled` (no chart): the first chart answered.
    const answered = (await Promise.all(answers)).find((a) => Number.isFinite(a.steps));
    const first = answered.steps;
    const stored = (await call(own.baseUrl, own.token, 'listSessions', {}))[0].steps;
    assert.ok(answered.partial, 'the first chart is marked partial');
    assert.ok(first > 0 && first <= 1000, `the first chart covers the first calls read (${first})`);
    assert.ok(stored > first, `more calls were stored (${stored}) than the first chart covers (${first})`);
    await page.waitForFunction(
      (n) => Number(document.querySelector('[data-testid="region-bars"]')?.getAttribute('data-steps')) > n,
      first,
      { timeout: 60_000 },
    );
    await page.getByTestId('partial-note').waitFor({ state: 'detached', timeout: 120_000 });
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="region-bars"]')?.getAttribute('data-steps')) === 6000,
      null,
      { timeout: 120_000 },
    );
  } finally {
    own?.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function testCancelDeletesTheVisiblePrefix({ page, root, assert }) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-progressive-'));
  let own = null;
  try {
    const lines = sessionLines(root, dir, 600);
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    // Slow: a chunk a second, so Cancel comes mid-import.
    own = await startServe([file], dir, { CTXSCOPE_PROGRESSIVE: '64,32,32,1000' });
    await page.goto(own.url);
    await page.getByTestId('partial-note').waitFor({ timeout: 60_000 });
    await page.getByTestId('import-cancel').click();
    // All or nothing: the session shown so far is deleted, and the window leaves it.
    await page.getByTestId('import-progress').waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByTestId('partial-note').waitFor({ state: 'detached', timeout: 30_000 });
    const deadline = Date.now() + 30_000;
    let left = await call(own.baseUrl, own.token, 'listSessions', {});
    while (left.length > 0 && Date.now() < deadline) {
      await page.waitForTimeout(200);
      left = await call(own.baseUrl, own.token, 'listSessions', {});
    }
    assert.equal(left.length, 0, 'nothing of the cancelled import is stored');
    assert.equal(await page.getByTestId('session-picker').getAttribute('data-session-id'), '', 'the window left the deleted session');
    assert.equal(await page.getByTestId('partial-note').count(), 0);
  } finally {
    own?.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
