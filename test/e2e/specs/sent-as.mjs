/**
 * A SWE-agent run whose history processor (last_n_observations) sent older observations as
 * placeholders: a person steps to a call and the context view shows what that call received — the
 * placeholders from the call that first got them, the outputs in full before it
 * (docs/policies.md §Common, messages as sent). The run gets a server of its own (serve imports
 * only the files named on its command line).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

const waitStep = (page, testId, step) =>
  page.waitForFunction(
    ([id, s]) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute('data-step') === String(s),
    [testId, step],
    { timeout: 15_000 },
  );

/** 0 system, 1 task, (call ci, output oi) for i = 1..4, the last call: with n = 1, o1..o3 are elided by the last call. */
function traj() {
  const output = `${'x'.repeat(39)}\n`.repeat(10);
  const history = [
    { role: 'system', content: 'You are a programmer.', message_type: 'system_prompt' },
    { role: 'user', content: 'Fix the bug.', message_type: 'observation' },
  ];
  for (let i = 1; i <= 4; i++) {
    history.push({
      role: 'assistant',
      content: `step ${i}`,
      message_type: 'action',
      tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
    });
    history.push({ role: 'tool', content: output, message_type: 'observation', tool_call_ids: [`c${i}`] });
  }
  history.push({ role: 'assistant', content: 'Done.', message_type: 'action' });
  return JSON.stringify({
    environment: 'e2e',
    trajectory: [],
    history,
    info: {},
    replay_config: JSON.stringify({ agent: { model: { name: 'gpt-4o' }, history_processors: [{ type: 'last_n_observations', n: 1 }] } }),
  });
}

export async function testTheContextShowsWhatEachCallReceived({ page, assert, consoleErrors }) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-sent-as-'));
  let own = null;
  try {
    const file = join(dir, 'run.traj');
    writeFileSync(file, traj());
    own = await startServe([file], dir);
    await page.goto(own.url);
    await page.getByTestId('guard-status-badge').waitFor({ timeout: 30_000 });
    // The last call (step 4, message 9) received o1, o2, o3 (messages 2, 4, 6) as placeholders.
    await page.keyboard.press('End');
    await waitStep(page, 'context-view', 4);
    const note = page.getByTestId('context-sent-as');
    await note.waitFor({ timeout: 15_000 });
    assert.match(await note.innerText(), /sent 3 messages as placeholders at this call.*#2, #4, #6/);
    const row = page.getByTestId('context-history').locator('.ctx-row', { hasText: '#2' }).first();
    assert.match(await row.innerText(), /masked/);
    assert.match(await row.innerText(), /Old environment output: \(10 lines omitted\)/);
    // The second call (step 1) had seen two observations: both in full, no placeholder.
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await waitStep(page, 'context-view', 1);
    assert.equal(await page.getByTestId('context-sent-as').count(), 0, 'no placeholder before the processor elides anything');
    assert.deepEqual(consoleErrors, []);
  } finally {
    own?.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
