import { describe, expect, it } from 'vitest';
import type { MethodInput } from '../../../../src/shared/api';
import { createLiveScheduler } from '../../../../src/renderer/src/slices/config';
import { chartView, fakeApi, FIELDS, flush, openedStore, stepDetail } from '../fake-client';

/** Answers every chart and step detail asked for so far, until nothing more is asked. */
async function answerReplays(fake: ReturnType<typeof fakeApi>): Promise<void> {
  for (let round = 0; round < 5; round++) {
    for (const c of fake.charts) c.resolve(chartView('k2', 4));
    for (const d of [...fake.details, ...fake.ahead]) d.resolve(stepDetail('k2', 0));
    await flush();
  }
}

describe('config slice: live changes', () => {
  it('fires the first change at the end of the task, then the later ones once, after the debounce', async () => {
    const timers: { fn: () => void; ms: number }[] = [];
    let fired = 0;
    const live = createLiveScheduler(() => void fired++, 40, {
      setTimer: (fn, ms) => timers.push({ fn, ms }),
      clearTimer: () => void timers.shift(),
    });
    live.schedule();
    expect(fired).toBe(0);
    await flush();
    expect(fired).toBe(1);
    live.schedule();
    live.schedule();
    expect(timers).toHaveLength(1);
    expect(timers[0]!.ms).toBe(40);
    timers.shift()!.fn();
    expect(fired).toBe(2);
  });

  it('flush sends the leading change at once, and the end of the task does not send it again', async () => {
    let fired = 0;
    const live = createLiveScheduler(() => void fired++, 40, { setTimer: () => 0, clearTimer: () => undefined });
    live.schedule();
    live.flush();
    expect(fired).toBe(1);
    await flush();
    expect(fired).toBe(1);
  });
});

describe('config slice: policies', () => {
  it('saving the overrides as a new policy sends the policy with them and switches to it', async () => {
    const fake = fakeApi();
    const saved: MethodInput<'savePolicy'>[] = [];
    Object.assign(fake.api, {
      savePolicy: (i: MethodInput<'savePolicy'>) => {
        saved.push(i);
        return Promise.resolve({ id: 'tight-p2' });
      },
    });
    const store = await openedStore(fake);
    void store.getState().setOverride('trigger', 0.5);
    await flush();
    const problem = store.getState().savePolicyAs('  Tight P2! ');
    await flush();
    // The switch to the saved policy replays: answer it.
    await answerReplays(fake);
    expect(await problem).toBeNull();
    const json = JSON.parse(saved[0]!.json) as { id: string; label: string; source: string; description: string };
    expect(json).toMatchObject({ id: 'tight-p2', label: 'Tight P2!', source: 'p2 with changes', description: 'p2, with trigger=0.5' });
    expect(store.getState().policyId).toBe('tight-p2');
    expect(store.getState().overrides).toEqual({});
  });

  it("a refused save is returned to the editor, not put on the window's error line", async () => {
    const fake = fakeApi();
    Object.assign(fake.api, { savePolicy: () => Promise.reject(new Error('policy: expected an id')) });
    const store = await openedStore(fake);
    expect(await store.getState().savePolicy('{}')).toBe('policy: expected an id');
    expect(store.getState().error).toBeNull();
    expect(await store.getState().savePolicyAs('!!!')).toBe('Give the policy a name (letters or digits).');
  });

  it('deleting the policy in use moves to another one first, then deletes it', async () => {
    const fake = fakeApi();
    const order: string[] = [];
    Object.assign(fake.api, {
      deletePolicy: (i: MethodInput<'deletePolicy'>) => {
        order.push(`delete ${i.id} (on ${store.getState().policyId})`);
        return Promise.resolve({});
      },
    });
    const store = await openedStore(fake);
    const done = store.getState().deletePolicy('p2');
    await flush();
    expect(order).toEqual([]);
    await answerReplays(fake);
    await done;
    expect(order).toEqual(['delete p2 (on p1)']);
  });

  it('the fields follow the policy and the overrides in force', async () => {
    const fake = fakeApi();
    const store = await openedStore(fake);
    expect(store.getState().fields).toEqual(FIELDS);
    void store.getState().setPolicy('p3');
    await flush();
    expect(store.getState().fields.map((f) => f.key)).toEqual(['window']);
  });
});
