/**
 * A person edits a policy as JSON, saves a copy, replays under it, compares it with another
 * policy, follows a needle, and deletes the copy — all through the window.
 */

export async function testEditSaveReplayDeletePolicy({ page, assert, consoleErrors }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('policy-picker').selectOption('s3');
  await page.getByTestId('policy-edit').click();
  const json = page.getByTestId('policy-json');
  await page.waitForFunction(() => document.querySelector('[data-testid="policy-json"]')?.value.includes('"s3-mine"'), null, {
    timeout: 10_000,
  });
  // A broken edit is refused with the field named; nothing is saved.
  const original = await json.inputValue();
  await json.fill(original.replace(/"trigger": [0-9.]+/, '"trigger": "soon"'));
  await page.getByTestId('policy-save').click();
  await page.getByTestId('policy-problem').waitFor({ timeout: 10_000 });
  assert.match(await page.getByTestId('policy-problem').innerText(), /config\.trigger/);
  // A valid copy with an earlier trigger is saved, selected and replayed.
  await json.fill(original.replace(/"trigger": [0-9.]+/, '"trigger": 0.05'));
  await page.getByTestId('policy-save').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="policy-picker"]')?.value === 's3-mine', null, { timeout: 10_000 });
  await page.waitForFunction(
    () => /[1-9]\d* compressions/.test(document.querySelector('[data-testid="replay-totals"]')?.textContent ?? ''),
    null,
    { timeout: 15_000 },
  );
  assert.match(await page.getByTestId('policy-picker').innerText(), /s3-mine — .*\(saved\)/);
  // Export downloads the policy file.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('policy-export').click()]);
  assert.equal(download.suggestedFilename(), 's3-mine.policy.json');
  const { readFile } = await import('node:fs/promises');
  assert.equal(JSON.parse(await readFile(await download.path(), 'utf8')).config.trigger, 0.05);
  // Delete removes it from the list and falls back to another policy.
  await page.getByTestId('policy-delete').click();
  await page.waitForFunction(
    () => ![...document.querySelectorAll('[data-testid="policy-picker"] option')].some((o) => o.value === 's3-mine'),
    null,
    { timeout: 10_000 },
  );
  // The refused save is the host's 400 (bad_input), which the browser logs; nothing else may be.
  assert.deepEqual(
    consoleErrors.filter((e) => !/status of 400/.test(e)),
    [],
  );
  assert.equal(consoleErrors.length, 1);
}

export async function testCompareTwoPolicies({ page, assert, consoleErrors }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  // The sample opens on chars/4 estimates, under which claude-code does not compact it; the exact
  // counts swap in when the count worker is done (late on a loaded machine).
  await page.waitForFunction(
    () => {
      const t = document.querySelector('[data-testid="session-facts"]')?.getAttribute('data-tokenizer');
      return !!t && t !== 'chars4';
    },
    null,
    { timeout: 60_000 },
  );
  await page.getByTestId('policy-picker').selectOption('s2');
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-picker').selectOption('claude-code');
  const row = page.getByTestId('compare-compressions');
  await row.waitFor({ timeout: 15_000 });
  // s2 does not compress the sample; claude-code compacts once, like the original agent did.
  assert.match(await row.innerText(), /compressions\s+0\s+1\s+/);
  const diffs = page.locator('.diff-row');
  assert.ok((await diffs.count()) > 0, 'the steps that differ are listed');
  const step = (await diffs.first().locator('.step').innerText()).slice(1);
  await diffs.first().click();
  await page.waitForFunction((s) => document.querySelector('[data-testid="guard-status"]')?.getAttribute('data-step') === s, step, {
    timeout: 10_000,
  });
  await page.getByTestId('compare-picker').selectOption('');
  await page.getByTestId('compare-markers').waitFor({ state: 'detached', timeout: 10_000 });
  assert.deepEqual(consoleErrors, []);
}

export async function testNeedleShowsWhenItLeftTheWindow({ page, assert }) {
  await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
  await page.getByTestId('policy-picker').selectOption('claude-code');
  await page.getByTestId('needles').fill('ORD-1187, never-said-xyz');
  await page.getByTestId('needles').press('Enter');
  await page.getByTestId('tab-events').click();
  await page.getByTestId('needle-list').waitFor({ timeout: 15_000 });
  const text = await page.getByTestId('needle-list').innerText();
  assert.match(text, /ORD-1187 first at message #\d+/);
  assert.match(text, /never-said-xyz never mentioned/);
}
