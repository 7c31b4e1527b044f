/**
 * Live tail (docs/user-guide.md "Live tail"): a Claude Code session whose file grows while it is open. Its own
 * serve on a temp copy of the sample; lines are appended from the test as an agent would write
 * them; the timeline's call count grows within a few seconds and, with Follow on, the last call
 * is the selected one.
 */
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

/** `count` turns (a user prompt and the assistant's answer each), chained to the file's last line with a uuid. */
function turns(file, count) {
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const last = lines.filter((l) => typeof l.uuid === 'string').at(-1);
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd: last.cwd,
    sessionId: last.sessionId,
    version: '2.0.14',
    timestamp: new Date().toISOString(),
  };
  let parent = last.uuid;
  const out = [];
  for (let n = 1; n <= count; n++) {
    const user = {
      ...base,
      parentUuid: parent,
      type: 'user',
      uuid: `7a110000-0000-4000-8000-${String(2 * n).padStart(12, '0')}`,
      message: { role: 'user', content: `live prompt ${n}` },
    };
    const answer = {
      ...base,
      parentUuid: user.uuid,
      type: 'assistant',
      uuid: `7a110000-0000-4000-8000-${String(2 * n + 1).padStart(12, '0')}`,
      message: {
        id: `msg_live${n}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: `live answer ${n}` }],
        usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0 },
      },
    };
    parent = answer.uuid;
    out.push(JSON.stringify(user) + '\n' + JSON.stringify(answer) + '\n');
  }
  return out;
}

/** "call X of N" of the timeline, as numbers. */
async function position(page) {
  const m = /call (\d+) of (\d+)/.exec(await page.getByTestId('timeline-position').innerText());
  return m ? { selected: Number(m[1]), count: Number(m[2]) } : null;
}

export async function testGrowingFileTailedLive({ page, assert, root, consoleErrors }) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-e2e-tail-'));
  const file = join(dir, 'live-session.jsonl');
  copyFileSync(join(root, 'resources', 'sample', 'sample-session.jsonl'), file);
  const serve = await startServe([file], dir);
  try {
    await page.goto(serve.url);
    await page.getByTestId('live-status').filter({ hasText: /^live/ }).waitFor({ timeout: 30_000 });
    await page.waitForFunction(
      () => /call \d+ of \d+/.test(document.querySelector('[data-testid="timeline-position"]')?.textContent ?? ''),
      null,
      { timeout: 30_000 },
    );
    const before = await position(page);
    assert.ok(before && before.count > 3, `the sample's calls are on the timeline (${JSON.stringify(before)})`);

    await page.getByTestId('follow-toggle').check();
    await page.waitForFunction(
      (n) => new RegExp(`call ${n - 1} of ${n}`).test(document.querySelector('[data-testid="timeline-position"]')?.textContent ?? ''),
      before.count,
      { timeout: 10_000 },
    );

    // One turn appended: one more call; a partial line after it waits for its newline.
    const [first, second] = turns(file, 2);
    appendFileSync(file, first + second.slice(0, 60));
    const t0 = Date.now();
    await page.waitForFunction(
      (n) => new RegExp(`call ${n} of ${n + 1}\\b`).test(document.querySelector('[data-testid="timeline-position"]')?.textContent ?? ''),
      before.count,
      { timeout: 5_000 },
    );
    const firstUpdateMs = Date.now() - t0;

    // The rest of the partial line, and another turn: two more calls, the last one selected.
    appendFileSync(file, second.slice(60));
    await page.waitForFunction(
      (n) =>
        new RegExp(`call ${n + 1} of ${n + 2}\\b`).test(document.querySelector('[data-testid="timeline-position"]')?.textContent ?? ''),
      before.count,
      { timeout: 5_000 },
    );
    const after = await position(page);
    assert.deepEqual(after, { selected: before.count + 1, count: before.count + 2 }, 'the last call is selected while following');
    assert.match(await page.getByTestId('session-facts').innerText(), new RegExp(`${before.count + 2} LLM calls`));
    assert.match(await page.getByTestId('live-status').innerText(), /live · \d+ updates?/);
    // Shown to the person running the suite: the update latency as the browser saw it.
    console.log(`    first update seen ${firstUpdateMs} ms after the append`);
    assert.deepEqual(consoleErrors, [], 'no console errors');
  } finally {
    serve.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
