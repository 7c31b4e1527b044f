/** The foundation's promise: the sample opens in a browser, its messages are listed, no console errors, and the server refuses what it must. */

export async function testSampleMessagesListed({ page, assert, consoleErrors }) {
  const rows = page.getByTestId('message-row');
  await rows.first().waitFor({ timeout: 30_000 });
  assert.ok((await rows.count()) > 3, 'several messages of the sample are listed');
  await page.waitForFunction(() => /assistant/.test(document.querySelector('[data-testid="turn-list"]')?.textContent ?? ''), null, {
    timeout: 15_000,
  });
  const text = await page.getByTestId('turn-list').innerText();
  assert.match(text, /user|assistant/i, 'rows show roles');
  await page.waitForTimeout(500);
  assert.deepEqual(consoleErrors, [], 'no console errors');
}

export async function testApiNeedsToken({ baseUrl, token, assert }) {
  const noToken = await fetch(`${baseUrl}/api/listSessions`, { method: 'POST', body: '{}' });
  assert.equal(noToken.status, 401);
  const wrong = await fetch(`${baseUrl}/api/listSessions`, { method: 'POST', body: '{}', headers: { Authorization: 'Bearer nope' } });
  assert.equal(wrong.status, 401);
  const ok = await fetch(`${baseUrl}/api/listSessions`, { method: 'POST', body: '{}', headers: { Authorization: `Bearer ${token}` } });
  assert.equal(ok.status, 200);
  const body = await ok.json();
  assert.equal(body.ok, true);
  assert.ok(body.value.length >= 1, 'the sample is stored');
}

export async function testForeignHostRefused({ baseUrl, token, assert }) {
  const { request } = await import('node:http');
  const status = await new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}/api/listSessions`,
      { method: 'POST', headers: { Host: 'evil.example:80', Authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
  assert.equal(status, 403);
}

export async function testBadPayloadIsClearError({ baseUrl, token, assert }) {
  const res = await fetch(`${baseUrl}/api/getMessages`, {
    method: 'POST',
    body: JSON.stringify({ sessionId: 'x', offset: -1, limit: 5 }),
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.ok, false);
  assert.match(body.error.message, /offset/);
}
