import { describe, expect, it } from 'vitest';
import type { MethodInput } from '../../../../src/shared/api';
import { chartView, fakeApi, flush, openedStore, stepDetail } from '../fake-client';

describe('session slice', () => {
  it("opening another session drops what belonged to the one before and opens on the new one's default policy", async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    store.getState().selectStep(2);
    void store.getState().setComparePolicy('p3');
    await flush();
    void store.getState().openSession('s2');
    // At once, before the host answers: nothing of s1 is left on screen.
    const s = store.getState();
    expect(s.currentId).toBe('s2');
    expect([s.chart, s.chartFor, s.stepDetail, s.comparison, s.selectedStep, s.detail]).toEqual([null, null, null, null, null, null]);
    expect(s.messages.size).toBe(0);
    await flush();
    expect(store.getState().policyId).toBe('p2');
    expect(fake.charts.at(-1)!.input).toMatchObject({ sessionId: 's2', policy: 'p2' });
  });

  it('opens where the URL says: its policy, overrides and call', async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    void store.getState().openSession('s1', { policy: 'p3', overrides: { window: 2000 }, step: 2 });
    await flush();
    fake.charts.at(-1)!.resolve(chartView('k3', 4));
    await flush();
    expect(store.getState()).toMatchObject({ policyId: 'p3', overrides: { window: 2000 }, selectedStep: 2 });
  });

  it('fetches the messages a list shows page by page, each page once', async () => {
    const fake = fakeApi();
    const asked: MethodInput<'getMessages'>[] = [];
    const real = fake.api.getMessages;
    Object.assign(fake.api, {
      getMessages: (i: MethodInput<'getMessages'>) => {
        asked.push(i);
        return real(i);
      },
    });
    const store = await openedStore(fake);
    expect(asked).toEqual([{ sessionId: 's1', offset: 0, limit: 200 }]);
    await store.getState().ensureMessages(0, 9);
    expect(asked).toHaveLength(1);
    expect(store.getState().messages.size).toBe(10);
    expect(store.getState().loadingPages.size).toBe(0);
  });

  it("a failure to list sessions is shown on the window's error line, and cleared on request", async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    Object.assign(fake.api, { listSessions: () => Promise.reject(new Error('database is locked')) });
    await store.getState().refreshSessions();
    expect(store.getState().error).toBe('database is locked');
    store.getState().clearError();
    expect(store.getState().error).toBeNull();
  });

  it("a message's raw record is kept only for the session it was asked for", async () => {
    const fake = fakeApi();
    let answer!: (v: { record: string; line: number }) => void;
    Object.assign(fake.api, { getRawRecord: () => new Promise((r) => (answer = r)) });
    const store = await openedStore(fake);
    void store.getState().loadRawRecord(3);
    await flush();
    answer({ record: '{"a":1}', line: 4 });
    await flush();
    expect(store.getState().rawRecord).toEqual({ index: 3, record: '{"a":1}', line: 4 });

    store.setState({ rawRecord: null });
    void store.getState().loadRawRecord(3);
    await flush();
    void store.getState().openSession('s2');
    answer({ record: '{"b":2}', line: 9 });
    await flush();
    expect(store.getState().rawRecord).toBeNull();
  });

  it('opening a session stops playback', async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    store.getState().togglePlay();
    expect(store.getState().playing).toBe(true);
    void store.getState().openSession('s2');
    expect(store.getState().playing).toBe(false);
    fake.details.at(-1)?.resolve(stepDetail('k1', 0));
  });
});
