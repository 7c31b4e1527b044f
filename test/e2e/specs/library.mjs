/**
 * The session library, as a person uses it, on a serve of its own (files imported for this spec,
 * never the shared sample's database): open it from the session button, search, sort by calls
 * (again reverses), open a session, open a subagent from the turn list and go back, delete a
 * session after the confirmation that says what goes. Screenshot: test-results/library.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

const callsOf = async (page) =>
  (await page.getByTestId('library-row').locator('[data-col="calls"]').allInnerTexts()).map((t) => Number(t.replace(/,/g, '')));
const titlesOf = async (page) => page.getByTestId('library-row').locator('[data-col="title"]').allInnerTexts();

export async function testLibrarySearchSortOpenDelete({ page, assert, consoleErrors, root }) {
  const fixtures = join(root, 'test', 'fixtures', 'import');
  const dbDir = mkdtempSync(join(tmpdir(), 'ctxscope-e2e-library-'));
  const files = ['claude-code-session.jsonl', 'openhands-eval.jsonl', 'codex-rollout.jsonl', 'gemini-session.json'].map((f) =>
    join(fixtures, f),
  );
  const serve = await startServe(files, dbDir);
  try {
    await page.goto(serve.url);
    await page.getByTestId('message-row').first().waitFor({ timeout: 30_000 });

    // The session button names the open session and opens the library.
    const picker = page.getByTestId('session-picker');
    assert.match(await picker.innerText(), /Blank city name crashes forecast/);
    await picker.click();
    const library = page.getByTestId('library');
    await library.waitFor();
    const rows = page.getByTestId('library-row');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 5, 'five sessions: Claude Code, two OpenHands instances, Codex, Gemini');
    const titles = await titlesOf(page);
    assert.ok(
      titles.includes('acme__invoices-311') && titles.includes('acme__invoices-312'),
      `the two OpenHands sessions of one file are told apart: ${titles.join(' | ')}`,
    );
    const cc = rows.filter({ hasText: 'Blank city name' });
    assert.match(await cc.innerText(), /weather-cli/, 'the project (cwd) is shown');
    assert.match(await cc.innerText(), /Claude Code/);
    assert.match(await cc.locator('[data-col="cost"]').innerText(), /^\$|<\$/, 'a cost from the reported usage');

    // Subagents nest under their parent: collapsed, then shown.
    assert.equal(await page.getByTestId('library-subagent-row').count(), 0);
    await cc.getByTestId('library-expand').click();
    const sub = page.getByTestId('library-subagent-row');
    await sub.waitFor();
    assert.match(await sub.innerText(), /Find geocode callers/);

    // Sort by calls: a click orders them one way, a second click reverses.
    await page.getByTestId('library-sort-calls').click();
    const down = await callsOf(page);
    assert.deepEqual(
      down,
      [...down].sort((a, b) => b - a),
      `descending: ${down}`,
    );
    await page.getByTestId('library-sort-calls').click();
    const up = await callsOf(page);
    assert.deepEqual(up, [...down].reverse(), `a second click reverses: ${up}`);
    assert.ok(up[0] < up[up.length - 1], 'the calls differ, so the order means something');

    // Search filters rows.
    await page.getByTestId('library-search').fill('invoices-312');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="library-row"]').length === 1);
    assert.deepEqual(await titlesOf(page), ['acme__invoices-312']);
    await page.getByTestId('library-search').fill('');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="library-row"]').length === 5);

    mkdirSync(join(root, 'test-results'), { recursive: true });
    await page.screenshot({ path: join(root, 'test-results', 'library.png') });

    // Escape closes it; the session stays.
    await page.keyboard.press('Escape');
    await library.waitFor({ state: 'detached' });

    // A row click opens that session.
    await picker.click();
    await rows.filter({ hasText: 'acme__invoices-311' }).click();
    await library.waitFor({ state: 'detached' });
    await page.waitForFunction(() =>
      /acme__invoices-311/.test(document.querySelector('[data-testid="session-picker"]')?.textContent ?? ''),
    );
    await page.getByTestId('message-row').first().waitFor();

    // Back to the Claude Code session: its subagent is listed under the Task call, and opens.
    await picker.click();
    await rows.filter({ hasText: 'Blank city name' }).click();
    await page.waitForFunction(() => /Blank city name/.test(document.querySelector('[data-testid="session-picker"]')?.textContent ?? ''));
    const subRow = page.getByTestId('subagent-row');
    await subRow.waitFor({ timeout: 30_000 });
    const link = subRow.getByTestId('subagent-link');
    // Listed under the call that spawned it: the message row just above holds the Task call.
    const at = await subRow.getAttribute('data-spawned-at');
    const spawner = page.locator(`[data-testid="message-row"][data-index="${at}"]`).filter({ hasText: 'Task' });
    await spawner.waitFor({ timeout: 10_000 });
    const [spawnerBox, subBox] = [await spawner.boundingBox(), await subRow.boundingBox()];
    assert.ok(
      spawnerBox && subBox && Math.abs(subBox.y - (spawnerBox.y + spawnerBox.height)) < 2,
      'the subagent row sits right under the call',
    );
    await page.screenshot({ path: join(root, 'test-results', 'library-subagent-row.png') });
    await link.click();
    await page.waitForFunction(() =>
      /Find geocode callers/.test(document.querySelector('[data-testid="session-picker"]')?.textContent ?? ''),
    );
    await page.getByTestId('message-row').first().waitFor();
    assert.match(await page.getByTestId('session-facts').innerText(), /2 LLM calls/);
    await page.getByTestId('open-parent').click();
    await page.waitForFunction(() => /Blank city name/.test(document.querySelector('[data-testid="session-picker"]')?.textContent ?? ''));

    // Delete one: the confirmation says what goes; confirmed, it is gone from the list.
    await picker.click();
    const victim = rows.filter({ hasText: 'acme__invoices-312' });
    await victim.getByTestId('library-delete').click();
    const confirm = page.getByTestId('library-confirm-delete');
    await confirm.waitFor();
    const counts = await page.getByTestId('library-delete-counts').innerText();
    assert.match(counts, /\d+ messages, \d+ calls and \d+ cached results?/, counts);
    await page.getByTestId('library-confirm').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="library-row"]').length === 4);
    assert.ok(!(await titlesOf(page)).includes('acme__invoices-312'));
    assert.match(await page.getByTestId('library-deleted').innerText(), /acme__invoices-312/);
    // The host agrees: the session is gone from the database.
    const listed = await page.evaluate(
      async ({ base, token }) => {
        const r = await fetch(`${base}/api/listSessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: '{}',
        });
        return r.json();
      },
      { base: serve.baseUrl, token: serve.token },
    );
    const sessions = listed.ok ? listed.value : listed;
    assert.ok(
      Array.isArray(sessions) &&
        !sessions.some((s) => s.title === 'acme__invoices-312') &&
        sessions.some((s) => s.title === 'acme__invoices-311'),
      'deleted on the host; its sibling stays',
    );
    assert.deepEqual(consoleErrors, []);
  } finally {
    serve.child.kill('SIGTERM');
    rmSync(dbDir, { recursive: true, force: true });
  }
}
