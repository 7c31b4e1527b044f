/** The URL follows the store, written once after the frame that shows a burst of changes. */
import { describe, expect, it } from 'vitest';
import { createAppStore } from '../../../src/renderer/src/store';
import { syncUrl } from '../../../src/renderer/src/url-sync';
import { fakeApi } from './fake-client';

function fakeWindow() {
  const writes: string[] = [];
  const win = { location: { pathname: '/', search: '?token=t', hash: '' }, history: { replaceState: (_s: unknown, _t: string, url: string) => void writes.push(url) } };
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
