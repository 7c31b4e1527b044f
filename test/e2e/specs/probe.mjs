/**
 * The Probe tab end to end in Chromium at the sample's compression, against a fake model on
 * 127.0.0.1 that a person points the tab at (endpoint and model typed in the form): the plan
 * sends nothing, the first send to that endpoint says what leaves the machine and asks, the run
 * is shown with its verdicts, stored, marked on the chart and shown again after a reload without
 * another request. Screenshot: test-results/probe.png.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';

const waitStep = (page, testId, step) =>
  page.waitForFunction(
    ([id, s]) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute('data-step') === String(s),
    [testId, step],
    { timeout: 15_000 },
  );

/** An OpenAI-compatible fake: a question gets "I don't know."; otherwise it repeats the last tool call it was sent. */
async function fakeModel() {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      requests.push({ path: req.url, body: raw });
      const body = JSON.parse(raw);
      const messages = body.messages ?? [];
      const last = messages[messages.length - 1];
      const asking = typeof last?.content === 'string' && last.content.includes('Answer from the conversation so far');
      let call = null;
      if (!asking) for (const m of messages) if (m.tool_calls?.length) call = m.tool_calls[m.tool_calls.length - 1];
      const message = call
        ? { role: 'assistant', content: null, tool_calls: [call] }
        : { role: 'assistant', content: asking ? "I don't know." : 'Done.' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message }], usage: { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: 3 } }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => new Promise((r) => server.close(r)) };
}

export async function testProbeTabAtTheCompression({ page, assert, consoleErrors, root }) {
  const fake = await fakeModel();
  try {
    await page.getByTestId('guard-status-badge').waitFor({ timeout: 30_000 });
    await page.waitForFunction(
      () => {
        const t = document.querySelector('[data-testid="session-facts"]')?.getAttribute('data-tokenizer');
        return !!t && t !== 'chars4';
      },
      null,
      { timeout: 60_000 },
    );
    await page.keyboard.press('Home');
    await waitStep(page, 'guard-status', 0);
    await page.keyboard.press('n');
    await page.getByTestId('before-after').waitFor({ timeout: 15_000 });
    const step = Number(await page.getByTestId('guard-status').getAttribute('data-step'));
    await page.getByTestId('tab-probe').click();
    await waitStep(page, 'probe-panel', step);
    await page.getByTestId('probe-endpoint').fill(fake.url);
    await page.getByTestId('probe-model').fill('fake-model');
    await page.getByTestId('probe-replicates').fill('2');
    await page.getByTestId('probe-plan').click();
    await page.getByTestId('probe-estimate').waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId('probe-estimate').innerText(), /Will send \d+ requests/);
    // The first time for this endpoint: what leaves the machine, and a question. Nothing sent yet.
    const consent = page.getByTestId('probe-consent');
    assert.match(
      await consent.innerText(),
      new RegExp(`This leaves your machine:.*requests to ${fake.url.replace(/[./]/g, '\\$&')}, without a key`, 's'),
    );
    assert.equal(fake.requests.length, 0, 'nothing is sent before the person agrees');
    await page.getByTestId('probe-consent-send').click();
    await page.getByTestId('probe-run').waitFor({ timeout: 60_000 });
    const sent = fake.requests.length;
    assert.ok(sent >= 4, `sent ${sent} requests (2 sides × 2 replicates × tasks)`);
    const verdicts = await page.getByTestId('probe-tally').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-verdict')));
    assert.ok(verdicts.length >= 1 && verdicts.every((v) => ['inconclusive', 'policy-worse', 'policy-better'].includes(v)));
    // The chart marks the probed call.
    await page.waitForFunction(
      (s) => document.querySelector('[data-testid="probe-markers"]')?.getAttribute('data-steps')?.split(' ').includes(String(s)),
      step,
      { timeout: 10_000 },
    );
    if (root) await page.getByTestId('probe-panel').screenshot({ path: join(root, 'test-results', 'probe.png') });
    // Shown again after a reload, from the store: no new request.
    await page.reload();
    await page.getByTestId('guard-status-badge').waitFor({ timeout: 30_000 });
    await waitStep(page, 'guard-status', step);
    await page.getByTestId('tab-probe').click();
    await page.getByTestId('probe-run').waitFor({ timeout: 15_000 });
    assert.equal(fake.requests.length, sent, 'a stored probe is shown without sending');
    assert.deepEqual(consoleErrors, []);
  } finally {
    await fake.close();
  }
}

/** An OpenAI-compatible judge that grades every answer INCORRECT. */
async function fakeJudge() {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      requests.push({ path: req.url, headers: req.headers, body: raw });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'INCORRECT' } }] }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => new Promise((r) => server.close(r)) };
}

/**
 * The judge in the Probe tab: typed in beside the model, its grading requests are in the plan, the
 * first send names its endpoint too and sends nothing before the person agrees, and the run shows
 * a judge column. Screenshot: test-results/probe-judge.png.
 */
export async function testProbeTabWithAJudge({ page, assert, consoleErrors, root }) {
  const fake = await fakeModel();
  const judge = await fakeJudge();
  try {
    await page.getByTestId('guard-status-badge').waitFor({ timeout: 30_000 });
    await page.keyboard.press('Home');
    await waitStep(page, 'guard-status', 0);
    await page.keyboard.press('n');
    await page.getByTestId('before-after').waitFor({ timeout: 15_000 });
    const step = Number(await page.getByTestId('guard-status').getAttribute('data-step'));
    await page.getByTestId('tab-probe').click();
    await waitStep(page, 'probe-panel', step);
    await page.getByTestId('probe-endpoint').fill(fake.url);
    await page.getByTestId('probe-model').fill('fake-model');
    await page.getByTestId('probe-replicates').fill('2');
    await page.getByTestId('probe-judge-endpoint').fill(judge.url);
    await page.getByTestId('probe-judge-model').fill('fake-judge');
    await page.getByTestId('probe-plan').click();
    await page.getByTestId('probe-estimate').waitFor({ timeout: 30_000 });
    const judgeLine = await page.getByTestId('probe-judge-estimate').innerText();
    const esc = (s) => s.replace(/[./]/g, '\\$&');
    const m = new RegExp(`The judge: (\\d+) grading requests to ${esc(judge.url)} \\(fake-judge\\).*no transcript`, 's').exec(judgeLine);
    assert.ok(m, judgeLine);
    const grades = Number(m[1]);
    const consent = await page.getByTestId('probe-consent').innerText();
    assert.match(
      consent,
      new RegExp(`The judge gets each question.*requests to ${esc(judge.url)}, without a key.*asked once per endpoint`, 's'),
    );
    assert.equal(fake.requests.length + judge.requests.length, 0, 'nothing is sent before the person agrees');
    // Runs stored earlier at this call are listed already: wait for this one, the one with a judge column.
    await page.getByTestId('probe-consent-send').click();
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="probe-run"]')].some((r) => r.textContent?.includes('judge fake-judge')),
      null,
      { timeout: 60_000 },
    );
    assert.ok(fake.requests.length >= 4);
    assert.equal(judge.requests.length, grades, 'one grade per answer to a question');
    if (root) await page.getByTestId('probe-panel').screenshot({ path: join(root, 'test-results', 'probe-judge.png') });
    assert.deepEqual(consoleErrors, []);
  } finally {
    await fake.close();
    await judge.close();
  }
}
