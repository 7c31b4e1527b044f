/**
 * The document fast path through the host (docs/user-guide.md "Live tail"): a Gemini CLI JSON session written
 * again whole with a new turn emits `sessionUpdated` with the new totals; the session the host
 * holds is patched with the new messages (it is the stored one) and the chart gains the calls.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { answerOf } from '../../../src/shared/api';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toMessageView } from '../../../src/main/host/views';
import { startTailedHost, type TailedHost } from '../../helpers/tailed-host';

const fixture = join(__dirname, '..', '..', 'fixtures', 'import', 'gemini-session.json');
let t: TailedHost;
beforeEach(async () => (t = await startTailedHost(fixture, 'live.json')));
afterEach(() => t.close());

/** The session as Gemini CLI saves it after turn `n`: a prompt and an answer at the end of `messages`, `lastUpdated` moved. */
function saveTurn(n: number): void {
  const doc = JSON.parse(readFileSync(t.file, 'utf8')) as { lastUpdated: string; messages: unknown[] };
  doc.lastUpdated = new Date(Date.UTC(2026, 2, 9, 17, n)).toISOString();
  doc.messages.push({ id: `u-live-${n}`, timestamp: doc.lastUpdated, type: 'user', content: `prompt ${n}` });
  doc.messages.push({
    id: `g-live-${n}`,
    timestamp: doc.lastUpdated,
    type: 'gemini',
    content: `answer ${n}`,
    thoughts: [],
    tokens: { input: 9900 + n, output: 12, cached: 9000, thoughts: 0, tool: 0, total: 9912 + n },
    model: 'gemini-2.5-pro',
  });
  writeFileSync(t.file, JSON.stringify(doc, null, 2));
}

describe('live tail of a Gemini CLI JSON session through the host', () => {
  it('emits sessionUpdated for a document written again and answers from the grown session', async () => {
    const id = t.host.initialSessionId!;
    const before = await t.host.handlers.getSession({ id });
    const chartBefore = answerOf(
      await t.host.handlers.getChartView({ sessionId: id, policy: before.defaultPolicy, overrides: {}, needles: [], buckets: 64 }),
    );
    await t.host.handlers.watchSession({ sessionId: id, on: true });
    for (let n = 1; n <= 2; n++) {
      const seen = t.nextUpdate();
      saveTurn(n);
      await seen;
      expect(t.updates.at(-1)).toEqual({
        sessionId: id,
        steps: before.steps.length + n,
        messages: before.summary.messages + 2 * n,
        rewritten: false,
      });
    }
    const after = await t.host.handlers.getSession({ id });
    const page = await t.host.handlers.getMessages({ sessionId: id, offset: after.summary.messages - 2, limit: 2 });
    expect(page.messages.map((m) => m.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''))).toEqual(['prompt 2', 'answer 2']);
    // The held session was patched with the new messages: it is the stored one.
    const all = await t.host.handlers.getMessages({ sessionId: id, offset: 0, limit: 2000 });
    expect(all.messages.map(({ tokens: _t, pinned: _p, ...m }) => m)).toEqual(
      t.host.store
        .loadSession(id)!
        .messages.map((m, i) => toMessageView(m, i, 0, false))
        .map(({ tokens: _t, pinned: _p, ...m }) => m),
    );
    const chartAfter = answerOf(
      await t.host.handlers.getChartView({ sessionId: id, policy: before.defaultPolicy, overrides: {}, needles: [], buckets: 64 }),
    );
    expect(chartAfter.stepCount).toBe(chartBefore.stepCount + 2);
  });
});
