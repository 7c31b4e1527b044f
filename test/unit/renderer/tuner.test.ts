/** The renderer's tuner slice: sweeps set up from the config fields, a superseded sweep's answer dropped, a point applied as one replay. */
import { describe, expect, it } from 'vitest';
import type { TuneResult } from '../../../src/core/tune/index';
import { ApiError, type ApiClient, type MethodInput } from '../../../src/shared/api';
import { createAppStore } from '../../../src/renderer/src/store';
import { defaultSweep, sweepCount, sweepSpec } from '../../../src/renderer/src/slices/tuner';
import { chartView, FIELDS, fakeApi, flush, stepDetail } from './fake-client';

interface Pending {
  readonly input: MethodInput<'runTune'>;
  resolve(r: TuneResult): void;
  reject(e: unknown): void;
}

function result(policy: string): TuneResult {
  const point = (index: number, trigger: number, lostFacts: number) => ({
    index,
    settings: { trigger },
    cost: 1 - index * 0.1,
    billedInputTokens: 100,
    lostFacts,
    lostNeedles: 0,
    forcedFinals: 0,
    aborts: 0,
    compressions: 1,
    peak: 10,
    onFrontier: true,
  });
  return {
    policy,
    sweeps: [{ key: 'trigger', values: [0.5, 0.6] }],
    baseOverrides: {},
    needles: [],
    calls: 4,
    costBasis: 'usd',
    points: [point(0, 0.5, 0), point(1, 0.6, 2)],
    frontier: [1, 0],
    proposal: 0,
    nearMiss: null,
    verdict: 'cheapest of 1',
    elapsedMs: 1,
    threads: 2,
  };
}

async function opened() {
  const fake = fakeApi();
  const tunes: Pending[] = [];
  const cancels: MethodInput<'cancelTune'>[] = [];
  const api = new Proxy(fake.api, {
    get(target, prop: string) {
      if (prop === 'cancelTune') return (input: MethodInput<'cancelTune'>) => (cancels.push(input), Promise.resolve({ cancelled: true }));
      if (prop === 'runTune')
        return (input: MethodInput<'runTune'>) => new Promise<TuneResult>((resolve, reject) => tunes.push({ input, resolve, reject }));
      return target[prop as keyof ApiClient];
    },
  });
  const timers: (() => void)[] = [];
  const store = createAppStore(api, { setTimer: (fn) => timers.push(fn), clearTimer: () => timers.splice(0) });
  void store.getState().init();
  await flush();
  fake.charts[0]!.resolve(chartView('k1'));
  await flush();
  fake.details[0]?.resolve(stepDetail('k1', 0));
  await flush();
  const runTimers = (): void => {
    for (const t of timers.splice(0)) t();
  };
  return { store, tunes, cancels, charts: fake.charts, runTimers };
}

describe('tuner slice', () => {
  it('a new sweep starts from a range around the setting’s value', () => {
    // trigger is a share: swept from 0.5 to 0.95 by 0.05 → 10 values.
    const t = defaultSweep(FIELDS[0]!);
    expect(t).toEqual({ key: 'trigger', from: 0.5, to: 0.95, step: 0.05 });
    expect(sweepCount(t)).toBe(10);
    expect(sweepSpec(t)).toBe('trigger=0.5:0.95:0.05');
    // window is an integer at 1,000 (min 1,000): from max(1,000, 250) to 2,000 by round(1,000 / 10) = 100 → 11 values.
    expect(sweepCount(defaultSweep(FIELDS[1]!))).toBe(11);
    expect(sweepCount({ key: 'x', from: 2, to: 1, step: 1 })).toBe(0);
  });

  it('sends the sweeps with the other overrides and drops the answer of a superseded sweep', async () => {
    const { store, tunes } = await opened();
    void store.getState().setOverride('window', 2000);
    await flush();
    store.getState().setTuneSweep(0, { key: 'trigger' });
    void store.getState().runTune();
    void store.getState().runTune();
    expect(tunes).toHaveLength(2);
    expect(tunes[0]!.input).toMatchObject({
      sessionId: 's1',
      policy: 'p2',
      overrides: { window: 2000 },
      sweeps: ['trigger=0.5:0.95:0.05'],
      channel: 'tune',
    });
    // The host cancels the older one; the newer answers.
    tunes[0]!.reject(new ApiError('cancelled', 'superseded'));
    tunes[1]!.resolve(result('p2'));
    await flush();
    expect(store.getState()).toMatchObject({ tuneRunning: false, tuneError: null, tuneFor: { sessionId: 's1', policy: 'p2' } });
    expect(store.getState().tuneResult?.proposal).toBe(0);
  });

  it('refuses an impossible range before asking the host', async () => {
    const { store, tunes } = await opened();
    store.getState().setTuneSweep(0, { key: 'trigger', from: 0, to: 0.5, step: 0.1 });
    await store.getState().runTune();
    expect(tunes).toHaveLength(0);
    expect(store.getState().tuneError).toMatch(/trigger is a share above 0/);
  });

  it('applying a point sets its values in the config and replays once', async () => {
    const { store, tunes, charts, runTimers } = await opened();
    store.getState().setTuneSweep(0, { key: 'trigger' });
    void store.getState().runTune();
    tunes[0]!.resolve(result('p2'));
    await flush();
    const before = charts.length;
    await store.getState().applyTunePoint(1);
    runTimers();
    await flush();
    expect(store.getState().overrides).toEqual({ trigger: 0.6 });
    expect(store.getState().tuneApplied).toBe(1);
    expect(charts.length).toBe(before + 1);
    expect(charts.at(-1)!.input.overrides).toEqual({ trigger: 0.6 });
  });

  it('refuses to apply a point of a sweep run under another policy', async () => {
    const { store, tunes } = await opened();
    store.getState().setTuneSweep(0, { key: 'trigger' });
    void store.getState().runTune();
    tunes[0]!.resolve(result('p2'));
    await flush();
    void store.getState().setPolicy('p1');
    await flush();
    await store.getState().applyTunePoint(0);
    expect(store.getState().overrides).toEqual({});
    expect(store.getState().tuneError).toMatch(/run on policy p2/);
  });

  it('Cancel stops waiting for the sweep and asks the host to end it', async () => {
    const { store, tunes, cancels } = await opened();
    store.getState().setTuneSweep(0, { key: 'trigger' });
    void store.getState().runTune();
    expect(store.getState().tuneRunning).toBe(true);
    await store.getState().cancelTune();
    expect(cancels).toEqual([{ channel: 'tune' }]);
    expect(store.getState().tuneRunning).toBe(false);
    // The host's late answer (cancelled) changes nothing and shows no error.
    tunes[0]!.reject(new ApiError('cancelled', 'cancelled by the user'));
    await flush();
    expect(store.getState()).toMatchObject({ tuneRunning: false, tuneError: null, tuneResult: null });
  });
});
