/**
 * Live tail of a Codex rollout through the host (docs/user-guide.md "Live tail"): appends take the fast path
 * — a call split over two appends included — and the session the host holds, patched with the
 * rows written, is the stored one; the chart gains the new calls.
 */
import { appendFileSync } from 'node:fs';
import { answerOf } from '../../../src/shared/api';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { toMessageView } from '../../../src/main/host/views';
import { startTailedHost, type TailedHost } from '../../helpers/tailed-host';

const fixture = join(__dirname, '..', '..', 'fixtures', 'import', 'codex-rollout.jsonl');
let t: TailedHost;
beforeEach(async () => (t = await startTailedHost(fixture, 'rollout.jsonl')));
afterEach(() => t.close());

const line = (type: string, payload: Record<string, unknown>): string =>
  JSON.stringify({ timestamp: '2026-02-17T09:00:00.000Z', type, payload });
const tokens = (input: number): string =>
  line('event_msg', {
    type: 'token_count',
    info: {
      last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 7, total_tokens: input + 7 },
      model_context_window: 272_000,
    },
  });

it('follows a Codex rollout on the fast path and answers from the grown session', async () => {
  const id = t.host.initialSessionId!;
  const before = await t.host.handlers.getSession({ id });
  const policy = before.defaultPolicy;
  const chartBefore = answerOf(await t.host.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 64 }));
  await t.host.handlers.watchSession({ sessionId: id, on: true });
  // A prompt and the start of a call (reasoning), then the rest of the call and its usage.
  let seen = t.nextUpdate();
  appendFileSync(
    t.file,
    [
      line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And the docs?' }] }),
      line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Check the README' }], content: null }),
    ].join('\n') + '\n',
  );
  await seen;
  expect(t.updates.at(-1)).toEqual({
    sessionId: id,
    steps: before.steps.length + 1,
    messages: before.summary.messages + 2,
    rewritten: false,
  });
  seen = t.nextUpdate();
  appendFileSync(
    t.file,
    [
      line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The README is current.' }] }),
      tokens(4000),
    ].join('\n') + '\n',
  );
  await seen;
  expect(t.updates.at(-1)).toEqual({
    sessionId: id,
    steps: before.steps.length + 1,
    messages: before.summary.messages + 2,
    rewritten: false,
  });
  // The session the host patched is the stored one: the call holds both items and its usage.
  const all = await t.host.handlers.getMessages({ sessionId: id, offset: 0, limit: 2000 });
  expect(all.messages.map(({ tokens: _t, pinned: _p, ...m }) => m)).toEqual(
    t.host.store
      .loadSession(id)!
      .messages.map((m, i) => toMessageView(m, i, 0, false))
      .map(({ tokens: _t, pinned: _p, ...m }) => m),
  );
  const last = t.host.store.loadSession(id)!.messages.at(-1)!;
  expect(last.parts.map((p) => p.kind)).toEqual(['reasoning', 'text']);
  expect(last.usage?.input).toBe(4000);
  const chartAfter = answerOf(await t.host.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 64 }));
  expect(chartAfter.stepCount).toBe(chartBefore.stepCount + 1);
});
