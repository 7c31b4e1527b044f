/**
 * runTune through the host's handler table on the bundled sample: the proposal replays with no
 * lost fact, a bad sweep is bad_input naming the key, and a newer sweep on the same channel
 * cancels the older one (its workers ended, its answer `cancelled`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { ApiError } from '../../../src/shared/api';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;
let id: string;
const base = { policy: 's2', overrides: { window: 64_000 }, needles: [] as string[] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-tune-'));
  host = await createHost({ dbPath: join(dir, 'h.db'), hostKind: 'serve', version: 't', initialFiles: [sample], emit: () => {} });
  id = host.initialSessionId!;
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

const errorOf = async (p: Promise<unknown>): Promise<ApiError> =>
  p.then(
    () => new ApiError('internal', 'resolved'),
    (e: unknown) => (e instanceof ApiError ? e : new ApiError('internal', String(e))),
  );

describe('runTune', () => {
  it('proposes a setting whose replay keeps every referenced fact', async () => {
    const t = await host.handlers.runTune({ sessionId: id, ...base, sweeps: ['slidingWindow=2:30:4'], channel: 'tune' });
    expect(t.points).toHaveLength(8); // 2, 6, …, 30
    expect(t.proposal).not.toBeNull();
    const settings = t.points[t.proposal!]!.settings;
    // The same setting replayed by the debugger: nothing lost, as the tuner said.
    const v = await host.handlers.runReplay({ sessionId: id, ...base, overrides: { ...base.overrides, ...settings } });
    expect(v.retention.lost).toEqual([]);
    // And the smallest window does lose facts, so the proposal is not trivially anything.
    expect(t.points[0]!.lostFacts).toBeGreaterThan(0);
  });

  it('answers bad_input for a bad sweep, naming the key and what was expected', async () => {
    const e = await errorOf(host.handlers.runTune({ sessionId: id, ...base, sweeps: ['slidingWindow=0:4:1'], channel: 'tune' }));
    expect(e.code).toBe('bad_input');
    expect(e.message).toMatch(/slidingWindow: expected at least 1/);
  });

  it('a newer sweep on the same channel cancels the older one', async () => {
    const older = errorOf(host.handlers.runTune({ sessionId: id, ...base, sweeps: ['slidingWindow=1:60:1'], channel: 'tune' }));
    const newer = host.handlers.runTune({ sessionId: id, ...base, sweeps: ['slidingWindow=10,20'], channel: 'tune' });
    expect((await older).code).toBe('cancelled');
    expect((await newer).points).toHaveLength(2);
  });

  it('cancelTune ends the running sweep; with none running it says so', async () => {
    const running = errorOf(host.handlers.runTune({ sessionId: id, ...base, sweeps: ['slidingWindow=1:60:1'], channel: 'tune' }));
    expect(await host.handlers.cancelTune({ channel: 'tune' })).toEqual({ cancelled: true });
    const e = await running;
    expect(e.code).toBe('cancelled');
    expect(e.message).toMatch(/cancelled by the user/);
    expect(await host.handlers.cancelTune({ channel: 'tune' })).toEqual({ cancelled: false });
  });
});
