/**
 * Live tail of a Codex rollout through the host (README "Live tail"): appends take the fast path
 * — a call split over two appends included — and the session the host holds, patched with the
 * rows written, is the stored one; the chart gains the new calls.
 */
import { appendFileSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { toMessageView } from '../../../src/main/host/views';
import type { EventPayload } from '../../../src/shared/api';

const fixture = join(__dirname, '..', '..', 'fixtures', 'import', 'codex-rollout.jsonl');
let dir: string;
let file: string;
let host: Host;
let updates: EventPayload<'sessionUpdated'>[];
let waiters: (() => void)[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-tail-codex-'));
  file = join(dir, 'rollout.jsonl');
  copyFileSync(fixture, file);
  updates = [];
  waiters = [];
  host = await createHost({
    dbPath: join(dir, 'h.db'),
    hostKind: 'serve',
    version: 't',
    initialFiles: [file],
    emit: (event, payload) => {
      if (event !== 'sessionUpdated') return;
      updates.push(payload as EventPayload<'sessionUpdated'>);
      for (const w of waiters.splice(0)) w();
    },
  });
});
afterEach(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

const nextUpdate = (): Promise<void> => new Promise((resolve) => waiters.push(resolve));
const line = (type: string, payload: Record<string, unknown>): string => JSON.stringify({ timestamp: '2026-02-17T09:00:00.000Z', type, payload });
const tokens = (input: number): string => line('event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 7, total_tokens: input + 7 }, model_context_window: 272_000 } });

it('follows a Codex rollout on the fast path and answers from the grown session', async () => {
  const id = host.initialSessionId!;
  const before = await host.handlers.getSession({ id });
  const policy = before.defaultPolicy;
  const chartBefore = await host.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 64 });
  await host.handlers.watchSession({ sessionId: id, on: true });
  // A prompt and the start of a call (reasoning), then the rest of the call and its usage.
  let seen = nextUpdate();
  appendFileSync(file, [line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And the docs?' }] }), line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Check the README' }], content: null })].join('\n') + '\n');
  await seen;
  expect(updates.at(-1)).toEqual({ sessionId: id, steps: before.steps.length + 1, messages: before.summary.messages + 2, rewritten: false });
  seen = nextUpdate();
  appendFileSync(file, [line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The README is current.' }] }), tokens(4000)].join('\n') + '\n');
  await seen;
  expect(updates.at(-1)).toEqual({ sessionId: id, steps: before.steps.length + 1, messages: before.summary.messages + 2, rewritten: false });
  // The session the host patched is the stored one: the call holds both items and its usage.
  const all = await host.handlers.getMessages({ sessionId: id, offset: 0, limit: 2000 });
  expect(all.messages.map(({ tokens: _t, pinned: _p, ...m }) => m)).toEqual(host.store.loadSession(id)!.messages.map((m, i) => toMessageView(m, i, 0, false)).map(({ tokens: _t, pinned: _p, ...m }) => m));
  const last = host.store.loadSession(id)!.messages.at(-1)!;
  expect(last.parts.map((p) => p.kind)).toEqual(['reasoning', 'text']);
  expect(last.usage?.input).toBe(4000);
  const chartAfter = await host.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 64 });
  expect(chartAfter.stepCount).toBe(chartBefore.stepCount + 1);
});
