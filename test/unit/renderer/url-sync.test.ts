/** The URL follows the store, written once after the frame that shows a burst of changes. */
import { describe, expect, it } from 'vitest';
import { createAppStore } from '../../../src/renderer/src/store';
import { syncUrl } from '../../../src/renderer/src/url-sync';
import { fakeApi } from './fake-client';

function fakeWindow() {
  const writes: string[] = [];
  const win = {
    location: { pathname: '/', search: '?token=t', hash: '' },
    history: { replaceState: (_s: unknown, _t: string, url: string) => void writes.push(url) },
  };
  return { win: win as unknown as Window, writes };
}

describe('syncUrl', () => {
  it('writes the hash once per burst of changes, after the frame, with the last state', () => {
    const store = createAppStore(fakeApi().api);
    const { win, writes } = fakeWindow();
    const later: (() => void)[] = [];
    const stop = syncUrl(store, win, (fn) => later.push(fn));
    store.setState({ currentId: 's1', policyId: 'p2', selectedStep: 1 });
    store.setState({ selectedStep: 2 });
    store.setState({ selectedStep: 3 });
    // Nothing written inside the updates; one write queued for the three.
    expect(writes).toEqual([]);
    expect(later).toHaveLength(1);
    later.shift()!();
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^\/\?token=t#/);
    expect(writes[0]).toContain('step=3');
    // An update that changes nothing the URL holds writes nothing.
    store.setState({ chartLoading: true });
    later.shift()!();
    expect(writes).toHaveLength(1);
    // Stopped: a queued write does nothing.
    store.setState({ selectedStep: 0 });
    stop();
    later.shift()!();
    expect(writes).toHaveLength(1);
  });
});

describe('syncUrl history entries', () => {
  it('pushes an entry for a new session and for a call selected after a pause; a burst of steps replaces', () => {
    const store = createAppStore(fakeApi().api);
    const pushes: string[] = [];
    const replaces: string[] = [];
    const win = {
      location: { pathname: '/', search: '', hash: '' },
      history: {
        replaceState: (_s: unknown, _t: string, u: string) => void replaces.push(u),
        pushState: (_s: unknown, _t: string, u: string) => void pushes.push(u),
      },
    } as unknown as Window;
    let t = 0;
    const later: (() => void)[] = [];
    const run = (): void => later.splice(0).forEach((f) => f());
    syncUrl(
      store,
      win,
      (fn) => later.push(fn),
      () => t,
    );
    store.setState({ currentId: 's1', policyId: 'p1', selectedStep: 0 });
    run();
    expect([pushes.length, replaces.length]).toEqual([0, 1]); // where the page opened
    t = 100;
    store.setState({ selectedStep: 1 });
    run();
    expect(pushes).toHaveLength(0); // 100 ms after: a burst, replaced
    t = 2_000;
    store.setState({ selectedStep: 7 });
    run();
    expect(pushes).toHaveLength(1); // after a pause: an entry of its own
    expect(pushes[0]).toContain('step=7');
    t = 2_050;
    store.setState({ currentId: 's2', selectedStep: 0 });
    run();
    expect(pushes).toHaveLength(2); // a new session is always an entry
    expect(pushes[1]).toContain('s=s2');
  });
});
