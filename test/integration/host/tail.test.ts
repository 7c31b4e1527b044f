/**
 * Live tail through the host (docs/user-guide.md "Live tail"): `watchSession` follows the file, an append
 * emits `sessionUpdated` with the new totals, and the host answers from the updated session
 * (its caches of the old one dropped): detail, messages and the chart's call count.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { answerOf } from '../../../src/shared/api';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHost } from '../../../src/main/host/handlers';
import { replayWorkerSource } from '../../../src/main/host/replay-client';
import { toMessageView } from '../../../src/main/host/views';
import { startTailedHost, type TailedHost } from '../../helpers/tailed-host';
import { claudeCodeText } from '../../bench/corpus';

const sample = join(__dirname, '..', '..', '..', 'resources', 'sample', 'sample-session.jsonl');
let t: TailedHost;
beforeEach(async () => (t = await startTailedHost(sample, 'live.jsonl')));
afterEach(() => t.close());

/** A prompt and its answer, chained to the file's last line with a uuid. */
function appendTurn(n: number, file = t.file): void {
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = lines.filter((l) => typeof l['uuid'] === 'string').at(-1)!;
  const base = { isSidechain: false, type: 'user', sessionId: last['sessionId'], cwd: last['cwd'], timestamp: '2026-01-01T00:00:00.000Z' };
  const user = { ...base, parentUuid: last['uuid'], uuid: `live-${n}-u`, message: { role: 'user', content: `prompt ${n}` } };
  const answer = {
    ...base,
    type: 'assistant',
    parentUuid: user.uuid,
    uuid: `live-${n}-a`,
    message: {
      id: `msg_live_${n}`,
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: `answer ${n}` }],
      usage: { input_tokens: 1, output_tokens: 2 },
    },
  };
  appendFileSync(file, `${JSON.stringify(user)}\n${JSON.stringify(answer)}\n`);
}

describe('live tail through the host', () => {
  it('an export after an append holds the new turn (the export worker reads the grown session, not its held copy)', async () => {
    const id = t.host.initialSessionId!;
    const args = { sessionId: id, overrides: {}, at: 'end' as const, to: 'jsonl' as const, redact: false, redactPatterns: [] };
    const before = await t.host.handlers.exportSession(args);
    expect(before.text).not.toContain('answer 7');
    await t.host.handlers.watchSession({ sessionId: id, on: true });
    const seen = t.nextUpdate();
    appendTurn(7);
    await seen;
    const after = await t.host.handlers.exportSession(args);
    expect(after.text).toContain('prompt 7');
    expect(after.text).toContain('answer 7');
    expect((await t.host.handlers.previewExport(args)).messages).toBe((await t.host.handlers.getSession({ id })).summary.messages);
  });

  it('emits sessionUpdated on an append and answers from the grown session', async () => {
    const id = t.host.initialSessionId!;
    const before = await t.host.handlers.getSession({ id });
    const chartBefore = answerOf(
      await t.host.handlers.getChartView({ sessionId: id, policy: before.defaultPolicy, overrides: {}, needles: [], buckets: 64 }),
    );
    expect(await t.host.handlers.watchSession({ sessionId: id, on: true })).toEqual({ watching: true, path: t.file });
    const seen = t.nextUpdate();
    appendTurn(1);
    await seen;
    expect(t.updates.at(-1)).toEqual({
      sessionId: id,
      steps: before.steps.length + 1,
      messages: before.summary.messages + 2,
      rewritten: false,
    });
    const after = await t.host.handlers.getSession({ id });
    expect(after.steps.length).toBe(before.steps.length + 1);
    const page = await t.host.handlers.getMessages({ sessionId: id, offset: after.summary.messages - 2, limit: 2 });
    expect(page.messages.map((m) => m.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''))).toEqual(['prompt 1', 'answer 1']);
    // The session the host held was patched with the new messages, not read again: it is the stored one.
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
    expect(chartAfter.stepCount).toBe(chartBefore.stepCount + 1);
    expect(await t.host.handlers.watchSession({ sessionId: id, on: false })).toEqual({ watching: false, path: t.file });
  });

  it('extends the chart drawn by the replay worker (which patches the session it holds)', async () => {
    const whost = await createHost({
      dbPath: join(t.dir, 'w.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [t.file],
      replayWorkerFile: replayWorkerSource()!,
      emit: (event) => event === 'sessionUpdated' && t.waiters.splice(0).forEach((w) => w()),
    });
    try {
      const id = whost.initialSessionId!;
      const policy = (await whost.handlers.getSession({ id })).defaultPolicy;
      const before = answerOf(await whost.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 64 }));
      await whost.handlers.watchSession({ sessionId: id, on: true });
      for (let n = 1; n <= 2; n++) {
        const seen = t.nextUpdate();
        appendTurn(n);
        await seen;
        const after = answerOf(await whost.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 64 }));
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
    unlinkSync(t.file);
    await expect(t.host.handlers.watchSession({ sessionId: t.host.initialSessionId!, on: true })).rejects.toThrow(
      /live\.jsonl: the session's source file is gone/,
    );
    await expect(t.host.handlers.watchSession({ sessionId: 'nope', on: true })).rejects.toThrow(/no session with id "nope"/);
  });
});

describe('a followed Claude Code session of one file and one session', () => {
  it("reads what the format's appends need of the stored session once the watch starts, so the first append does not", async () => {
    // The sample has subagent sessions (its appends take the whole-file path): a file of one session.
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-tail-prepare-'));
    const fixture = join(dir, 'one.jsonl');
    writeFileSync(fixture, claudeCodeText({ calls: 30 }));
    const one = await startTailedHost(fixture, 'one-live.jsonl');
    try {
      const id = one.host.initialSessionId!;
      const prepared = vi.spyOn(one.host.store.db, 'prepare');
      const sql = (): string[] => prepared.mock.calls.map((c) => c[0]);
      const ids = 'SELECT message_id FROM messages WHERE session_id = ? AND idx >= ? AND idx < ?';
      await one.host.handlers.watchSession({ sessionId: id, on: true });
      // The watch's first update, then the ids in slices (store/tail.ts prepareTail).
      for (const end = Date.now() + 20_000; !sql().includes(ids) && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
      expect(sql()).toContain(ids);
      await new Promise((r) => setTimeout(r, 50));
      prepared.mockClear();
      const before = (await one.host.handlers.getSession({ id })).summary.messages;
      const seen = one.nextUpdate();
      appendTurn(3, one.file);
      await seen;
      expect(sql()).not.toContain(ids);
      prepared.mockRestore();
      expect(one.updates.at(-1)).toMatchObject({ sessionId: id, messages: before + 2, rewritten: false });
    } finally {
      await one.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
