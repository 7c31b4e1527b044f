import { describe, expect, it } from 'vitest';
import { ApiError, type AccuracyView } from '../../../../src/shared/api';
import { createReplaySlice } from '../../../../src/renderer/src/slices/replay';
import { chartView, fakeApi, flush, openedStore } from '../fake-client';
import { sliceHarness } from './harness';

describe('replay slice', () => {
  it('keeps the chart buckets between 16 and 8192, and replays only when a chart is on screen', () => {
    const h = sliceHarness({}, { chart: null });
    h.install(createReplaySlice(h.ctx, (fn) => fn()).slice);
    h.state().setBuckets(4);
    expect(h.state().buckets).toBe(16);
    expect(h.hooks.scheduleLive).not.toHaveBeenCalled();
    h.ctx.set({ chart: chartView('k', 4) });
    h.state().setBuckets(100_000);
    expect(h.state().buckets).toBe(8192);
    expect(h.hooks.scheduleLive).toHaveBeenCalledTimes(1);
    h.state().setBuckets(8192.2);
    expect(h.hooks.scheduleLive).toHaveBeenCalledTimes(1); // the same number of columns: nothing to do
  });

  it('replays with the needles', async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    void store.getState().setNeedles(['ORD-1187']);
    await flush();
    expect(fake.charts.at(-1)!.input).toMatchObject({ sessionId: 's1', needles: ['ORD-1187'] });
  });

  it('a failed replay keeps the last good chart and says why', async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    const good = store.getState().chart;
    void store.getState().setNeedles(['x']);
    await flush();
    fake.charts.at(-1)!.reject(new ApiError('internal', 'worker crashed'));
    await flush();
    expect(store.getState().chart).toBe(good);
    expect(store.getState().chartError).toBe('worker crashed');
    expect(store.getState().chartLoading).toBe(false);
  });

  it("shows the session's estimate accuracy, or why there is none", async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    const view = { calls: [] } as unknown as AccuracyView;
    Object.assign(fake.api, { getAccuracy: () => Promise.resolve(view) });
    await store.getState().loadAccuracy();
    expect(store.getState().accuracy).toBe(view);
    Object.assign(fake.api, { getAccuracy: () => Promise.reject(new Error('no reported usage')) });
    await store.getState().loadAccuracy();
    expect(store.getState().accuracyError).toBe('no reported usage');
    expect(store.getState().error).toBeNull();
  });
});
