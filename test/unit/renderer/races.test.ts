/**
 * Late answers: every request the debugger sends may come back after the user opened another
 * session or asked again. Each test holds an answer back (a fake host whose promises the test
 * resolves), switches session or sends a newer request, then lets the stale answer in and checks
 * it changed nothing — the new session's state is exactly as it was — while a current answer
 * still lands.
 */
import { describe, expect, it } from 'vitest';
import type { CompareView, ConfigField, MethodInput, MethodOutputs } from '../../../src/shared/api';
import { chartView, FIELDS, fakeApi, flush, openedStore, stepDetail } from './fake-client';

/** A host method whose answers the test gives, one per call, in any order. */
function held<I, O>() {
  const calls: { input: I; resolve: (v: O) => void; reject: (e: unknown) => void }[] = [];
  const fn = (input: I): Promise<O> => new Promise<O>((resolve, reject) => calls.push({ input, resolve, reject }));
  return { fn, calls };
}

const comparison = (sessionId: string): CompareView => ({ sessionId }) as unknown as CompareView;

/** The fake store opened on s1, then a second session s2 opened and its first chart answered. */
async function switchTo(fake: ReturnType<typeof fakeApi>, store: Awaited<ReturnType<typeof openedStore>>, id = 's2') {
  void store.getState().openSession(id);
  await flush();
  fake.charts.at(-1)!.resolve(chartView(`${id}-k`, 4));
  await flush();
  fake.details.at(-1)?.resolve(stepDetail(`${id}-k`, 0));
  await flush();
}

describe('races: pin', () => {
  it("a pin answered after another session opened does not touch that session's messages or replay", async () => {
    const fake = fakeApi();
    const pins = held<MethodInput<'setPinned'>, MethodOutputs['setPinned']>();
    Object.assign(fake.api, { setPinned: pins.fn });
    const store = await openedStore(fake);
    void store.getState().setPinned(1, true);
    await flush();
    expect(pins.calls[0]!.input).toMatchObject({ sessionId: 's1', messageId: 'm1', pinned: true });

    await switchTo(fake, store);
    const before = store.getState();
    const charts = fake.charts.length;
    pins.calls[0]!.resolve({ pinned: true });
    await flush();
    const after = store.getState();
    expect(after.currentId).toBe('s2');
    expect(after.messages).toBe(before.messages);
    expect(after.messages.get(1)?.pinned).toBe(false);
    // No replay of s2 for s1's pin.
    expect(fake.charts.length).toBe(charts);
    expect(after.error).toBeNull();
  });

  it('a pin answered while its session is still open marks the message and replays', async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    const charts = fake.charts.length;
    await Promise.race([store.getState().setPinned(1, true), flush()]);
    await flush();
    expect(store.getState().messages.get(1)?.pinned).toBe(true);
    expect(fake.charts.length).toBe(charts + 1);
  });

  it("a pin's failure after another session opened is not shown over that session", async () => {
    const fake = fakeApi();
    const pins = held<MethodInput<'setPinned'>, MethodOutputs['setPinned']>();
    Object.assign(fake.api, { setPinned: pins.fn });
    const store = await openedStore(fake);
    void store.getState().setPinned(1, true);
    await flush();
    await switchTo(fake, store);
    pins.calls[0]!.reject(new Error('database is locked'));
    await flush();
    expect(store.getState().error).toBeNull();
  });
});

describe('races: compare', () => {
  it('a comparison answered after another session opened is dropped', async () => {
    const fake = fakeApi();
    const compares = held<MethodInput<'compare'>, CompareView>();
    Object.assign(fake.api, { compare: compares.fn });
    const store = await openedStore(fake);
    void store.getState().setComparePolicy('p3');
    await flush();
    expect(compares.calls[0]!.input).toMatchObject({ sessionId: 's1' });

    void store.getState().openSession('s2');
    await flush();
    // s2 is open, its chart (and so its own comparison) not yet answered: s1's comparison comes now.
    compares.calls[0]!.resolve(comparison('s1'));
    await flush();
    expect(store.getState().comparison).toBeNull();

    fake.charts.at(-1)!.resolve(chartView('s2-k', 4));
    await flush();
    expect(compares.calls[1]!.input).toMatchObject({ sessionId: 's2' });
    compares.calls[1]!.resolve(comparison('s2'));
    await flush();
    expect(store.getState().comparison).toEqual(comparison('s2'));
  });

  it('an older comparison answered after a newer one is dropped (min delta changed mid-request)', async () => {
    const fake = fakeApi();
    const compares = held<MethodInput<'compare'>, CompareView>();
    Object.assign(fake.api, { compare: compares.fn });
    const store = await openedStore(fake);
    void store.getState().setComparePolicy('p3');
    await flush();
    void store.getState().setMinDelta(50);
    await flush();
    expect(compares.calls[1]!.input).toMatchObject({ minDelta: 50 });
    compares.calls[1]!.resolve(comparison('new'));
    await flush();
    compares.calls[0]!.resolve(comparison('old'));
    compares.calls[0]!.reject(new Error('late failure'));
    await flush();
    expect(store.getState().comparison).toEqual(comparison('new'));
    expect(store.getState().error).toBeNull();
  });
});

describe('races: config fields', () => {
  const marked = (value: number): ConfigField[] => FIELDS.map((f) => (f.key === 'trigger' ? { ...f, value } : f));

  it('fields asked under older overrides and answered last are dropped', async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    const fields = held<MethodInput<'getConfigFields'>, ConfigField[]>();
    Object.assign(fake.api, { getConfigFields: fields.fn });
    void store.getState().setOverride('trigger', 0.5);
    await flush();
    void store.getState().setOverride('trigger', 0.6);
    await flush();
    expect(fields.calls.map((c) => c.input.overrides)).toEqual([{ trigger: 0.5 }, { trigger: 0.6 }]);
    fields.calls[1]!.resolve(marked(0.6));
    await flush();
    fields.calls[0]!.resolve(marked(0.5));
    await flush();
    expect(store.getState().fields.find((f) => f.key === 'trigger')?.value).toBe(0.6);
  });

  it("fields answered after another session opened leave that session's fields alone", async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    const fields = held<MethodInput<'getConfigFields'>, ConfigField[]>();
    Object.assign(fake.api, { getConfigFields: fields.fn });
    void store.getState().loadFields();
    await flush();
    void store.getState().openSession('s2');
    await flush();
    // s2's own fields, answered first.
    fields.calls[1]!.resolve(marked(0.7));
    await flush();
    fields.calls[0]!.resolve(marked(0.1));
    fields.calls[0]!.reject(new Error('late failure'));
    await flush();
    expect(store.getState().currentId).toBe('s2');
    expect(store.getState().fields.find((f) => f.key === 'trigger')?.value).toBe(0.7);
    expect(store.getState().fieldsError).toBeNull();
  });
});

describe('races: step detail', () => {
  it("a step detail answered after another session opened does not replace that session's detail", async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    store.getState().selectStep(2);
    await flush();
    const stale = fake.details.at(-1)!;
    expect(stale.input).toMatchObject({ sessionId: 's1', step: 2 });

    await switchTo(fake, store);
    expect(store.getState().stepDetail?.key).toBe('s2-k');
    stale.resolve(stepDetail('k1', 2));
    await flush();
    expect(store.getState().stepDetail?.key).toBe('s2-k');
    expect(store.getState().stepDetail?.step).toBe(0);
  });

  it("a step detail's failure after another session opened is not shown", async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    store.getState().selectStep(2);
    await flush();
    const stale = fake.details.at(-1)!;
    await switchTo(fake, store);
    stale.reject(new Error('replay failed'));
    await flush();
    expect(store.getState().stepDetailError).toBeNull();
  });
});

describe('races: message pages', () => {
  it("a page answered after another session opened neither fills nor clears that session's pages", async () => {
    const fake = fakeApi();
    const pages = held<MethodInput<'getMessages'>, MethodOutputs['getMessages']>();
    const real = fake.api.getMessages;
    Object.assign(fake.api, { getMessages: pages.fn });
    const store = await openedStore(fake);
    expect(pages.calls[0]!.input).toMatchObject({ sessionId: 's1', offset: 0 });
    void store.getState().openSession('s2');
    await flush();
    expect(pages.calls[1]!.input).toMatchObject({ sessionId: 's2', offset: 0 });
    expect(store.getState().loadingPages.has(0)).toBe(true);

    pages.calls[0]!.resolve(await real(pages.calls[0]!.input));
    await flush();
    // s2's page 0 is still on its way: still marked, so it is not asked for twice.
    expect(store.getState().loadingPages.has(0)).toBe(true);
    expect(store.getState().messages.size).toBe(0);
    void store.getState().ensureMessages(0, 9);
    await flush();
    expect(pages.calls).toHaveLength(2);

    pages.calls[1]!.resolve(await real(pages.calls[1]!.input));
    await flush();
    expect(store.getState().loadingPages.has(0)).toBe(false);
    expect(store.getState().messages.size).toBe(10);
  });
});

describe('races: probe', () => {
  it("a probe run answered after another session opened is not added to that session's runs, and the busy flag still clears", async () => {
    const fake = fakeApi();
    const runs = held<MethodInput<'runProbe'>, MethodOutputs['runProbe']>();
    Object.assign(fake.api, { runProbe: runs.fn, listProbes: () => Promise.resolve([]) });
    const store = await openedStore(fake);
    store.getState().setProbeForm({ model: 'llama3' });
    void store.getState().runProbe(true);
    await flush();
    expect(runs.calls[0]!.input).toMatchObject({ sessionId: 's1', step: 0 });
    expect(store.getState().probeBusy).toBe('running');

    await switchTo(fake, store);
    runs.calls[0]!.resolve({ id: 'run-1' } as unknown as MethodOutputs['runProbe']);
    await flush();
    expect(store.getState().probeRuns).toEqual([]);
    expect(store.getState().probeBusy).toBeNull();
  });
});
