/** A person opens the sample, scrolls the message list, clicks a message and reads it in full. */

export async function testClickShowsMessageInFull({ page, assert, consoleErrors }) {
  const rows = page.getByTestId('message-row');
  await rows.first().waitFor({ timeout: 30_000 });
  await rows.nth(1).click();
  const detail = page.getByTestId('message-detail');
  await detail.waitFor();
  const text = await detail.innerText();
  assert.match(text, /#1/, 'the detail names the message');
  assert.match(text, /tokens/, 'the detail shows its token count');
  // The raw record the file had for it, on request, as text.
  await detail.getByText('Source record').click();
  const raw = page.getByTestId('raw-record');
  await raw.waitFor();
  const record = await raw.innerText();
  // One JSON line, or several for a response the agent wrote over several lines.
  for (const line of record.split('\n')) assert.doesNotThrow(() => JSON.parse(line), 'the record is JSON lines of the file');
  assert.match(await detail.locator('summary').innerText(), /line \d+/, 'the summary names its line');
  assert.deepEqual(consoleErrors, []);
}

export async function testListIsVirtualisedAndScrolls({ page, assert }) {
  const list = page.getByTestId('turn-list');
  await page.getByTestId('message-row').first().waitFor({ timeout: 30_000 });
  const rendered = await page.getByTestId('message-row').count();
  await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await page.waitForTimeout(300);
  const lastIndex = await page.getByTestId('message-row').last().locator('.idx').innerText();
  const facts = await page.getByTestId('session-facts').innerText();
  assert.ok(Number(lastIndex) > 10, `scrolling reaches the end of the list (last row #${lastIndex})`);
  assert.ok(rendered > 0 && rendered < 200, 'only the rows in view are rendered');
  assert.match(facts, /turns/);
}

export async function testTranscriptTextIsNeverHtml({ page, assert }) {
  await page.getByTestId('message-row').first().waitFor({ timeout: 30_000 });
  // No element of the list was produced from transcript markup: scripts and images never appear.
  const injected = await page.evaluate(() => document.querySelectorAll('.turn-list script, .turn-list img, .message-detail script').length);
  assert.equal(injected, 0);
}
