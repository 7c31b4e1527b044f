/**
 * Modal dialogs (use-modal.ts, slices/dialogs.ts): while any dialog is open the debugger's keys do
 * not move the call behind it (counted, so stacked dialogs work), and Tab / Shift+Tab wrap inside
 * the dialog's focusable elements. The DOM side (focus in and back, Escape) is the e2e spec
 * test/e2e/specs/dialogs.mjs.
 */
import { describe, expect, it } from 'vitest';
import { handleDebuggerKey } from '../../../src/renderer/src/keys';
import { createAppStore } from '../../../src/renderer/src/store';
import { trapTarget } from '../../../src/renderer/src/use-modal';
import { chartView, fakeApi, flush } from './fake-client';

const key = (k: string) => ({ key: k, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, target: null });

describe('dialogs and the debugger keys', () => {
  it('no key moves the call while a dialog is open; they work again once every dialog is closed', async () => {
    const { api, charts } = fakeApi();
    const store = createAppStore(api, { setTimer: () => 0, clearTimer: () => {} });
    void store.getState().init();
    await flush();
    charts[0]!.resolve(chartView(String(charts[0]!.input['key'] ?? 'k')));
    await flush();
    store.getState().selectStep(1);
    const at = store.getState().selectedStep;
    expect(at).toBe(1);
    store.getState().dialogOpened();
    store.getState().dialogOpened(); // an import error over the agent-logs panel
    for (const k of ['ArrowRight', 'ArrowLeft', 'Home', 'End', 'n', 'p', ' ']) expect(handleDebuggerKey(store, key(k))).toBe(false);
    expect(store.getState().selectedStep).toBe(at);
    expect(store.getState().playing).toBe(false);
    store.getState().dialogClosed();
    expect(handleDebuggerKey(store, key('ArrowRight'))).toBe(false);
    store.getState().dialogClosed();
    expect(handleDebuggerKey(store, key('ArrowRight'))).toBe(true);
    expect(store.getState().selectedStep).toBe(2);
  });

  it('Tab wraps from the last element to the first, Shift+Tab from the first to the last, focus outside comes in', () => {
    const items = ['a', 'b', 'c'];
    expect(trapTarget(items, 'c', false)).toBe('a');
    expect(trapTarget(items, 'a', true)).toBe('c');
    expect(trapTarget(items, 'b', false)).toBeNull();
    expect(trapTarget(items, 'b', true)).toBeNull();
    expect(trapTarget(items, null, false)).toBe('a');
    expect(trapTarget(items, null, true)).toBe('c');
    expect(trapTarget([], null, false)).toBeNull();
  });
});
