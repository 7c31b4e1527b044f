import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/shared/api';
import { createAppStore } from '../../../src/renderer/src/store';
import { handleDebuggerKey } from '../../../src/renderer/src/keys';
import { chartView, fakeApi, flush, SESSION, stepDetail } from './fake-client';

function setup() {
  const fake = fakeApi();
  const timers: (() => void)[] = [];
  const store = createAppStore(fake.api, { setTimer: (fn) => timers.push(fn), clearTimer: () => timers.splice(0) });
  const runTimers = (): void => {
    for (const t of timers.splice(0)) t();
  };
  return { ...fake, store, runTimers };
}

/** Opens the fake session and answers its first chart and step detail. */
async function opened(compressions: number[] = []) {
  const s = setup();
  void s.store.getState().init();
  await flush();
  s.charts[0]!.resolve(chartView('k1', 4, compressions));
  await flush();
  s.details[0]?.resolve(stepDetail('k1', s.store.getState().selectedStep ?? 0));
  await flush();
  return s;
}

describe('renderer store: opening', () => {
  it('opens the session on its default policy and selects the first call', async () => {
    const { store, charts } = await opened();
    expect(charts[0]!.input).toMatchObject({ sessionId: 's1', policy: 'p2', channel: 'chart' });
    expect(store.getState().policyId).toBe('p2');
    expect(store.getState().selectedStep).toBe(0);
    expect(store.getState().stepDetail?.step).toBe(0);
  });
});

describe('renderer store: host notices', () => {
  it("shows the host's notice (a corrupt database moved aside) when the window opens", async () => {
    const s = setup();
    Object.assign(s.api, {
      getInfo: () =>
        Promise.resolve({
          version: '0',
          host: 'serve',
          dbPath: '/d/ctx.db',
          initialSessionId: 's1',
          notices: ['/d/ctx.db was corrupt: moved to /d/ctx.db.corrupt-1; a new database was started'],
        }),
    });
    void s.store.getState().init();
    await flush();
    expect(s.store.getState().error).toMatch(/was corrupt: moved to \/d\/ctx\.db\.corrupt-1/);
  });
});

describe('renderer store: races', () => {
  it('discards an older chart answer that arrives after a newer one', async () => {
    const { store, charts } = await opened();
    void store.getState().setOverride('trigger', 0.5);
    void store.getState().setOverride('trigger', 0.6);
    await flush();
    const [older, newer] = [charts[1]!, charts[2]!];
    expect(older.input.overrides).toEqual({ trigger: 0.5 });
    expect(newer.input.overrides).toEqual({ trigger: 0.6 });
    newer.resolve(chartView('new'));
    await flush();
    older.resolve(chartView('old'));
    await flush();
    expect(store.getState().chart?.key).toBe('new');
    expect(store.getState().chartFor?.overrides).toEqual({ trigger: 0.6 });
  });

  it('discards an older step detail that arrives after a newer one', async () => {
    const { store, details } = await opened();
    // Calls 2 and 3: neither is the one fetched ahead (1), so both are asked for.
    store.getState().selectStep(2);
    store.getState().selectStep(3);
    await flush();
    const [forTwo, forThree] = [details[1]!, details[2]!];
    expect(forTwo.input).toMatchObject({ step: 2, channel: 'step' });
    forThree.resolve(stepDetail('k1', 3));
    await flush();
    forTwo.resolve(stepDetail('k1', 2));
    await flush();
    expect(store.getState().selectedStep).toBe(3);
    expect(store.getState().stepDetail?.step).toBe(3);
  });

  it('ignores a cancelled chart request and keeps the chart on screen', async () => {
    const { store, charts } = await opened();
    void store.getState().setOverride('trigger', 0.5);
    await flush();
    charts[1]!.reject(new ApiError('cancelled', 'superseded'));
    await flush();
    expect(store.getState().chart?.key).toBe('k1');
    expect(store.getState().chartError).toBeNull();
  });
});

describe('renderer store: one selection', () => {
  it('a message click selects the call at or after the message, and Export uses that call', async () => {
    const { store, exports } = await opened();
    // Steps sit at messages 1, 3, 6, 8: message 4 is first seen by the call at message 6, step 2.
    store.getState().selectMessage(4);
    expect(store.getState().selectedStep).toBe(2);
    expect(store.getState().inspectedMessage).toBe(4);
    await store.getState().saveExport();
    expect(exports[0]).toMatchObject({ at: 2, policy: 'p2', to: 'openai' });
  });

  it('a message after the last call selects the last call', async () => {
    const { store } = await opened();
    store.getState().selectMessage(9);
    expect(store.getState().selectedStep).toBe(3);
  });

  it('stepping is clamped to the calls there are', async () => {
    const { store } = await opened();
    store.getState().stepBy(10);
    expect(store.getState().selectedStep).toBe(3);
    store.getState().stepBy(-10);
    expect(store.getState().selectedStep).toBe(0);
  });

  it('the keys move the one selection: arrows, Shift, N / P, and not inside a text field', async () => {
    const { store } = await opened([2]);
    const key = (k: string, extra: Partial<KeyboardEvent> = {}) =>
      handleDebuggerKey(store, { key: k, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, target: null, ...extra });
    expect(key('ArrowRight')).toBe(true);
    expect(store.getState().selectedStep).toBe(1);
    key('N');
    expect(store.getState().selectedStep).toBe(2);
    key('Home');
    expect(store.getState().selectedStep).toBe(0);
    key('ArrowRight', { shiftKey: true });
    expect(store.getState().selectedStep).toBe(3);
    key('P');
    expect(store.getState().selectedStep).toBe(2);
    const input = { tagName: 'INPUT' } as unknown as EventTarget;
    expect(key('ArrowLeft', { target: input })).toBe(false);
    expect(store.getState().selectedStep).toBe(2);
  });
});

describe('renderer store: the next call fetched ahead', () => {
  it('asks for the next call while one is shown, and a step onto it needs no request', async () => {
    const { store, details, ahead } = await opened();
    // Call 0 shown: call 1 is asked for ahead, on its own channel.
    expect(ahead).toHaveLength(1);
    expect(ahead[0]!.input).toMatchObject({ step: 1, channel: 'step-ahead' });
    ahead[0]!.resolve(stepDetail('k1', 1));
    await flush();
    store.getState().stepBy(1);
    // Shown at once from what came ahead; the selection made no request of its own.
    expect(store.getState().stepDetail?.step).toBe(1);
    expect(details).toHaveLength(1);
    // And the one after it is asked for in turn.
    expect(ahead[1]!.input).toMatchObject({ step: 2 });
  });

  it('a step onto a call still on its way waits for that answer instead of asking again', async () => {
    const { store, details, ahead } = await opened();
    store.getState().stepBy(1);
    await flush();
    expect(details).toHaveLength(1);
    ahead[0]!.resolve(stepDetail('k1', 1));
    await flush();
    expect(store.getState().stepDetail?.step).toBe(1);
  });

  it('follows the way the selection moves: after a step back it fetches the call before', async () => {
    const { store, details, ahead } = await opened();
    // The call after 0 was asked for ahead and superseded: nothing of it is kept.
    ahead[0]!.reject(new ApiError('cancelled', 'superseded'));
    await flush();
    store.getState().selectStep(3);
    details[1]!.resolve(stepDetail('k1', 3));
    await flush();
    // Call 3 is the last: nothing after it to fetch.
    expect(ahead).toHaveLength(1);
    store.getState().stepBy(-1);
    details[2]!.resolve(stepDetail('k1', 2));
    await flush();
    expect(ahead).toHaveLength(2);
    expect(ahead[1]!.input).toMatchObject({ step: 1, channel: 'step-ahead' });
  });
});

describe('renderer store: config', () => {
  it('an out-of-range value marks its field, sends nothing and keeps the chart', async () => {
    const { store, charts } = await opened();
    await store.getState().setOverride('trigger', 5);
    expect(charts).toHaveLength(1);
    expect(store.getState().invalid).toMatchObject({ key: 'trigger', value: 5 });
    expect(store.getState().chart?.key).toBe('k1');
    expect(store.getState().overrides).toEqual({});
  });

  it('a value the host refuses keeps the last good chart and its overrides', async () => {
    const { store, charts } = await opened();
    void store.getState().setOverride('window', 5000);
    await flush();
    charts[1]!.reject(new ApiError('bad_input', 'config: window: too small for the system prompt'));
    await flush();
    expect(store.getState().chart?.key).toBe('k1');
    expect(store.getState().invalid).toMatchObject({ key: 'window', value: 5000 });
    expect(store.getState().overrides).toEqual({});
    expect(store.getState().chartError).toBeNull();
  });

  it('a dragged slider replays its first move at once, and the moves after it once, after the debounce, with the last value', async () => {
    const { store, charts, runTimers } = await opened();
    // Moves in one task (a tuner point sets its keys together) are one replay, sent at once.
    for (const v of [0.5, 0.55]) void store.getState().setOverride('trigger', v, true);
    await flush();
    expect(charts).toHaveLength(2);
    expect(charts[1]!.input.overrides).toEqual({ trigger: 0.55 });
    // The drag goes on: nothing more until it pauses for the debounce, then one replay of the last value.
    void store.getState().setOverride('trigger', 0.6, true);
    await flush();
    void store.getState().setOverride('trigger', 0.65, true);
    await flush();
    expect(charts).toHaveLength(2);
    runTimers();
    await flush();
    expect(charts).toHaveLength(3);
    expect(charts[2]!.input.overrides).toEqual({ trigger: 0.65 });
    // A single move after the pause: at once again, and no second replay of it after the debounce.
    runTimers();
    void store.getState().setOverride('trigger', 0.7, true);
    await flush();
    expect(charts).toHaveLength(4);
    runTimers();
    await flush();
    expect(charts).toHaveLength(4);
  });

  it("flushLive sends a slider move's replay at once, in the same task, and only once", async () => {
    const { store, charts, runTimers } = await opened();
    void store.getState().setOverride('trigger', 0.5, true);
    store.getState().flushLive();
    // Asked for before any microtask ran: the request does not wait for the window to re-render.
    expect(charts).toHaveLength(2);
    expect(charts[1]!.input.overrides).toEqual({ trigger: 0.5 });
    await flush();
    runTimers();
    await flush();
    expect(charts).toHaveLength(2);
    // Nothing queued: a no-op. The drag's next moves still wait for the debounce, as one replay.
    store.getState().flushLive();
    void store.getState().setOverride('trigger', 0.6, true);
    store.getState().flushLive();
    expect(charts).toHaveLength(3);
    void store.getState().setOverride('trigger', 0.65, true);
    store.getState().flushLive();
    await flush();
    expect(charts).toHaveLength(3);
    runTimers();
    await flush();
    expect(charts).toHaveLength(4);
    expect(charts[3]!.input.overrides).toEqual({ trigger: 0.65 });
  });

  it('switching policy keeps the overrides that still apply and names the dropped ones', async () => {
    const { store, charts } = await opened();
    void store.getState().setOverride('trigger', 0.5);
    void store.getState().setOverride('window', 9000);
    await flush();
    void store.getState().setPolicy('p3');
    await flush();
    expect(store.getState().overrides).toEqual({ window: 9000 });
    expect(store.getState().droppedOverrides).toEqual(['trigger']);
    expect(charts[charts.length - 1]!.input).toMatchObject({ policy: 'p3', overrides: { window: 9000 } });
  });
});

describe('renderer store: exact counts landing', () => {
  it('asks for the chart on the exact counts at once, and shows it with the new detail, not before', async () => {
    const s = await opened();
    let answerDetail!: (d: unknown) => void;
    Object.assign(s.api, { getSession: () => new Promise((r) => (answerDetail = r)) });
    s.emit('countsReady', { sessionId: 's1' });
    await flush();
    // Before: the chart was asked for only after getSession and getMessages had answered.
    expect(s.charts).toHaveLength(2);
    expect(s.store.getState().detail?.tokenizer).toBe('chars4');
    // The chart answering first is held until the detail is in: the two never disagree.
    s.charts[1]!.resolve(chartView('exact', 4));
    await flush();
    expect(s.store.getState().chart?.key).toBe('k1');
    answerDetail({ ...SESSION, tokenizer: 'calibrated' });
    await flush();
    expect(s.store.getState().detail?.tokenizer).toBe('calibrated');
    expect(s.store.getState().chart?.key).toBe('exact');
  });
});

describe('renderer store: the chart first', () => {
  it("asks for the selected call's detail only once the new chart's frame is drawn", async () => {
    const fake = fakeApi();
    const painted: (() => void)[] = [];
    const store = createAppStore(fake.api, { setTimer: () => 0, clearTimer: () => undefined, afterPaint: (fn) => painted.push(fn) });
    void store.getState().init();
    await flush();
    fake.charts[0]!.resolve(chartView('k1'));
    await flush();
    // The chart is in the store (React draws it); its detail has not been asked for yet.
    expect(store.getState().chart?.key).toBe('k1');
    expect(fake.details).toHaveLength(0);
    for (const fn of painted.splice(0)) fn();
    await flush();
    expect(fake.details).toHaveLength(1);
    expect(fake.details[0]!.input).toMatchObject({ step: 0, channel: 'step' });
  });
});
