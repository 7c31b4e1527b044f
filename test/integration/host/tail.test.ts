/**
 * Live tail through the host (README "Live tail"): `watchSession` follows the file, an append
 * emits `sessionUpdated` with the new totals, and the host answers from the updated session
 * (its caches of the old one dropped): detail, messages and the chart's call count.
 */
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { replayWorkerSource } from '../../../src/main/host/replay-client';
import { toMessageView } from '../../../src/main/host/views';
import type { EventPayload } from '../../../src/shared/api';

const sample = join(__dirname, '..', '..', '..', 'resources', 'sample', 'sample-session.jsonl');
let dir: string;
let file: string;
let host: Host;
let updates: EventPayload<'sessionUpdated'>[];
let waiters: (() => void)[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-tail-host-'));
  file = join(dir, 'live.jsonl');
  copyFileSync(sample, file);
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

/** Resolves at the next sessionUpdated (the watcher's own pace; the test fails on its timeout otherwise). */
const nextUpdate = (): Promise<void> => new Promise((resolve) => waiters.push(resolve));

/** A prompt and its answer, chained to the file's last line with a uuid. */
function appendTurn(n: number): void {
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = lines.filter((l) => typeof l['uuid'] === 'string').at(-1)!;
  const base = { isSidechain: false, type: 'user', sessionId: last['sessionId'], cwd: last['cwd'], timestamp: '2026-01-01T00:00:00.000Z' };
  const user = { ...base, parentUuid: last['uuid'], uuid: `live-${n}-u`, message: { role: 'user', content: `prompt ${n}` } };
  const answer = { ...base, type: 'assistant', parentUuid: user.uuid, uuid: `live-${n}-a`, message: { id: `msg_live_${n}`, role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: `answer ${n}` }], usage: { input_tokens: 1, output_tokens: 2 } } };
  appendFileSync(file, `${JSON.stringify(user)}\n${JSON.stringify(answer)}\n`);
}

describe('live tail through the host', () => {
  it('an export after an append holds the new turn (the export worker reads the grown session, not its held copy)', async () => {
    const id = host.initialSessionId!;
    const args = { sessionId: id, overrides: {}, at: 'end' as const, to: 'jsonl' as const, redact: false, redactPatterns: [] };
    const before = await host.handlers.exportSession(args);
    expect(before.text).not.toContain('answer 7');
    await host.handlers.watchSession({ sessionId: id, on: true });
    const seen = nextUpdate();
    appendTurn(7);
    await seen;
    const after = await host.handlers.exportSession(args);
    expect(after.text).toContain('prompt 7');
    expect(after.text).toContain('answer 7');
    expect((await host.handlers.previewExport(args)).messages).toBe((await host.handlers.getSession({ id })).summary.messages);
  });

  it('emits sessionUpdated on an append and answers from the grown session', async () => {
    const id = host.initialSessionId!;
    const before = await host.handlers.getSession({ id });
    const chartBefore = await host.handlers.getChartView({ sessionId: id, policy: before.defaultPolicy, overrides: {}, needles: [], buckets: 64 });
    expect(await host.handlers.watchSession({ sessionId: id, on: true })).toEqual({ watching: true, path: file });
    const seen = nextUpdate();
    appendTurn(1);
    await seen;
    expect(updates.at(-1)).toEqual({ sessionId: id, steps: before.steps.length + 1, messages: before.summary.messages + 2, rewritten: false });
    const after = await host.handlers.getSession({ id });
    expect(after.steps.length).toBe(before.steps.length + 1);
    const page = await host.handlers.getMessages({ sessionId: id, offset: after.summary.messages - 2, limit: 2 });
    expect(page.messages.map((m) => m.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''))).toEqual(['prompt 1', 'answer 1']);
    // The session the host held was patched with the new messages, not read again: it is the stored one.
    const all = await host.handlers.getMessages({ sessionId: id, offset: 0, limit: 2000 });
    expect(all.messages.map(({ tokens: _t, pinned: _p, ...m }) => m)).toEqual(host.store.loadSession(id)!.messages.map((m, i) => toMessageView(m, i, 0, false)).map(({ tokens: _t, pinned: _p, ...m }) => m));
    const chartAfter = await host.handlers.getChartView({ sessionId: id, policy: before.defaultPolicy, overrides: {}, needles: [], buckets: 64 });
    expect(chartAfter.stepCount).toBe(chartBefore.stepCount + 1);
    expect(await host.handlers.watchSession({ sessionId: id, on: false })).toEqual({ watching: false, path: file });
  });

  it('extends the chart drawn by the replay worker (which patches the session it holds)', async () => {
    const whost = await createHost({ dbPath: join(dir, 'w.db'), hostKind: 'serve', version: 't', initialFiles: [file], replayWorkerFile: replayWorkerSource()!, emit: (event) => event === 'sessionUpdated' && waiters.splice(0).forEach((w) => w()) });
    try {
      const id = whost.initialSessionId!;
      const policy = (await whost.handlers.getSession({ id })).defaultPolicy;
      const before = await whost.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 64 });
      await whost.handlers.watchSession({ sessionId: id, on: true });
      for (let n = 1; n <= 2; n++) {
        const seen = nextUpdate();
        appendTurn(n);
        await seen;
        const after = await whost.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 64 });
        expect(after.stepCount).toBe(before.stepCount + n);
        // The worker's session is the stored one: the last call is the last message.
        const last = await whost.handlers.getStepDetail({ sessionId: id, policy, overrides: {}, needles: [], step: after.stepCount - 1 });
        expect(last.messageIndex).toBe((await whost.handlers.getSession({ id })).summary.messages - 1);
      }
    } finally {
      await whost.close();
    }
  });

  it('refuses to follow a session whose file is gone, naming it', async () => {
    unlinkSync(file);
    await expect(host.handlers.watchSession({ sessionId: host.initialSessionId!, on: true })).rejects.toThrow(/live\.jsonl: the session's source file is gone/);
    await expect(host.handlers.watchSession({ sessionId: 'nope', on: true })).rejects.toThrow(/no session with id "nope"/);
  });
});
