/**
 * Live tail in the renderer store (docs/user-guide.md "Live tail"): the open session is followed, an update
 * refreshes the detail and the chart keeping the selected call, "follow" selects the last call,
 * and switching sessions stops following the previous one.
 */
import { describe, expect, it } from 'vitest';
import type { EventPayload, MethodInput, SessionDetail } from '../../../src/shared/api';
import { chartView, fakeApi, flush, openedStore, SESSION } from './fake-client';

/** The fake session after its file grew: two more calls (steps at 10 and 12). */
const GROWN: SessionDetail = {
  ...SESSION,
  summary: { ...SESSION.summary, messages: 13, steps: 6 },
  steps: [...SESSION.steps, 10, 12],
};

async function live() {
  const fake = fakeApi();
  const watches: MethodInput<'watchSession'>[] = [];
  let emit: ((p: EventPayload<'sessionUpdated'>) => void) | undefined;
  let detail = SESSION;
  Object.assign(fake.api, {
    watchSession: (i: MethodInput<'watchSession'>) => {
      watches.push(i);
      return Promise.resolve({ watching: i.on, path: '/tmp/s.jsonl' });
    },
    getSession: () => Promise.resolve(detail),
    on: (event: string, listener: (p: EventPayload<'sessionUpdated'>) => void) => {
      if (event === 'sessionUpdated') emit = listener;
      return () => {};
    },
  });
  const store = await openedStore(fake);
  /** The file grew: the host says so, and answers the chart asked for next with `steps` calls. */
  const grow = async (steps: number): Promise<void> => {
    detail = GROWN;
    emit!({ sessionId: 's1', steps, messages: 13, rewritten: false });
    await flush();
    fake.charts[fake.charts.length - 1]!.resolve(chartView('k1', steps));
    await flush();
  };
  return { ...fake, store, watches, grow };
}

describe('renderer store: live tail', () => {
  it('follows the open session and refreshes it in place, keeping the selected call', async () => {
    const { store, watches, grow, details } = await live();
    expect(watches).toEqual([{ sessionId: 's1', on: true }]);
    expect(store.getState().liveSession).toBe('s1');
    store.getState().selectStep(2);
    await flush();
    const asked = details.length;
    await grow(6);
    expect(store.getState().detail?.summary.steps).toBe(6);
    expect(store.getState().chart?.stepCount).toBe(6);
    expect(store.getState().selectedStep).toBe(2);
    expect(store.getState().liveUpdates).toBe(1);
    // The same chart key now describes other calls: the selected call's detail is asked again.
    expect(details.length).toBeGreaterThan(asked);
  });

  it('selects the last call as calls arrive while following', async () => {
    const { store, grow } = await live();
    store.getState().setFollowing(true);
    expect(store.getState().selectedStep).toBe(3);
    await grow(6);
    expect(store.getState().selectedStep).toBe(5);
    expect(store.getState().inspectedMessage).toBe(12);
  });

  it('stops following the previous session when another opens', async () => {
    const { store, watches } = await live();
    void store.getState().openSession('s2');
    await flush();
    expect(watches).toEqual([
      { sessionId: 's1', on: true },
      { sessionId: 's1', on: false },
      { sessionId: 's2', on: true },
    ]);
  });
});
