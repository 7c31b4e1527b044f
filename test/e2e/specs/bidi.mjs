/**
 * Bidi safety: transcript text with an unterminated RIGHT-TO-LEFT OVERRIDE (U+202E) in the
 * session title, a message and a tool name cannot reverse the app's own text. Every text node
 * that carries it sits inside an isolate (<bdi>, `unicode-bidi: isolate`, or FSI…PDI in an
 * <option>), and the app's labels around it read as written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../run.mjs';

const RLO = '\u202e';

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

export async function testOverrideCharactersStayIsolated({ page, root, assert }) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-bidi-'));
  let own = null;
  try {
    const lines = readFileSync(join(root, 'resources', 'sample', 'sample-session.jsonl'), 'utf8')
      .trim()
      .split('\n');
    const first = JSON.parse(lines[0]);
    first.message.content = `${RLO}evil text without an end ${first.message.content}`;
    first.sessionId = 'bidi-session';
    const title = { type: 'custom-title', title: `${RLO}reversed title`, sessionId: 'bidi-session' };
    const rest = lines.slice(1).map((l) => {
      const r = JSON.parse(l);
      r.sessionId = 'bidi-session';
      for (const p of Array.isArray(r.message?.content) ? r.message.content : []) if (p.type === 'tool_use') p.name = `${RLO}${p.name}`;
      return JSON.stringify(r);
    });
    const file = join(dir, 'bidi.jsonl');
    writeFileSync(file, [JSON.stringify(title), JSON.stringify(first), ...rest].join('\n') + '\n');
    // serve imports only the files named on its command line (an arbitrary path over the API is
    // refused), so the hostile session gets a server of its own, which opens on it.
    own = await startServe([file], dir);
    const sessions = await call(own.baseUrl, own.token, 'listSessions', {});
    assert.ok(
      sessions.some((s) => s.title.includes(RLO)),
      'the file was imported with its hostile title',
    );
    await page.goto(own.url);
    await page.getByTestId('guard-status-badge').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="message-row"][data-index="0"]').click();
    await page.getByTestId('message-detail').waitFor();

    const { bad: unisolated, seen } = await page.evaluate((rlo) => {
      const bad = [];
      let seen = 0;
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!n.data.includes(rlo)) continue;
        seen++;
        const el = n.parentElement;
        if (el?.tagName === 'OPTION') {
          // An <option> holds text only: the text must sit between FSI and PDI.
          if (!/\u2068[^]*\u202e[^]*\u2069/.test(n.data)) bad.push(`option: ${n.data.slice(0, 40)}`);
          continue;
        }
        let ok = false;
        for (let e = el; e && e !== document.body; e = e.parentElement) {
          const ub = getComputedStyle(e).unicodeBidi;
          if (e.tagName === 'BDI' || ub === 'isolate' || ub === 'isolate-override' || ub === 'plaintext') {
            ok = true;
            break;
          }
        }
        if (!ok) bad.push(`${el?.tagName}.${el?.className}: ${n.data.slice(0, 40)}`);
      }
      return { bad, seen };
    }, RLO);
    assert.ok(seen >= 3, `the override reaches the page in title, message and tool name (${seen} text nodes)`);
    assert.deepEqual(unisolated, [], 'every piece of transcript text with U+202E is isolated');
    // The app's own words next to transcript text still read left to right.
    const header = await page.getByTestId('message-detail').locator('header').innerText();
    assert.match(header, /^#0 user · \d+ tokens/);
    const rendered = await page.locator('[data-testid="message-row"][data-index="0"]').evaluate((row) => {
      const idx = row.querySelector('.idx').getBoundingClientRect();
      const preview = row.querySelector('.preview').getBoundingClientRect();
      return { idx: idx.left, preview: preview.left };
    });
    assert.ok(rendered.idx < rendered.preview, 'the row keeps its column order');
  } finally {
    own?.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
