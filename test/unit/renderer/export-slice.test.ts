/**
 * The export dialog's store slice: the request follows the window (chart policy and overrides at
 * the selected call), formats follow "what", an older preview never replaces a newer one, Save
 * waits for the preview of the current choices, and the menu's Export… opens the dialog.
 */
import { describe, expect, it } from 'vitest';
import { handleDebuggerKey } from '../../../src/renderer/src/keys';
import type { ExportPreview } from '../../../src/shared/api';
import { fakeApi, flush, openedStore } from './fake-client';

const preview = (fileName: string, redactions = 0): ExportPreview => ({
  fileName,
  extension: 'json',
  messages: 3,
  redactions,
  byKind: redactions ? { email: redactions } : {},
  patternProblems: [],
});

async function opened() {
  const fake = fakeApi();
  const store = await openedStore(fake);
  return { ...fake, store };
}

describe('export dialog slice', () => {
  it('previews the compacted history at the selected call under the chart policy', async () => {
    const { store, previews } = await opened();
    store.getState().selectStep(2);
    store.getState().openExport();
    expect(store.getState().exportOpen).toBe(true);
    expect(previews[0]!.input).toMatchObject({
      sessionId: 's1',
      policy: 'p2',
      at: 2,
      to: 'openai',
      redact: true,
      builtins: ['keys', 'bearer', 'email'],
    });
    expect(store.getState().exportPending).toBe(true);
    previews[0]!.resolve(preview('a.json'));
    await flush();
    expect(store.getState().exportPreview?.fileName).toBe('a.json');
    expect(store.getState().exportPending).toBe(false);
  });

  it('switches to a format that fits what is exported, and the original has no policy', async () => {
    const { store, previews } = await opened();
    store.getState().openExport();
    void store.getState().setExportChoice({ what: 'report' });
    expect(store.getState().exportChoice.to).toBe('report-json');
    expect(previews[1]!.input).toMatchObject({ policy: 'p2', at: 'end', to: 'report-json', redact: false });
    void store.getState().setExportChoice({ what: 'original', to: 'markdown' });
    expect(previews[2]!.input).not.toHaveProperty('policy');
    expect(previews[2]!.input).toMatchObject({ to: 'markdown', at: 'end' });
  });

  it('user patterns go one per line, blank lines ignored; turning redaction off sends none', async () => {
    const { store, previews } = await opened();
    store.getState().openExport();
    void store.getState().setExportChoice({ patterns: 'ORD-\n\n  /x\\d+/  \n', builtins: ['email'] });
    expect(previews[1]!.input).toMatchObject({ redactPatterns: ['ORD-', '/x\\d+/'], builtins: ['email'] });
    void store.getState().setExportChoice({ redact: false });
    expect(previews[2]!.input).toMatchObject({ redact: false, redactPatterns: [] });
  });

  it('an older preview answering late does not replace the newer one', async () => {
    const { store, previews } = await opened();
    store.getState().openExport();
    void store.getState().setExportChoice({ patterns: 'ana' });
    previews[1]!.resolve(preview('new.json', 2));
    await flush();
    previews[0]!.resolve(preview('old.json', 0));
    await flush();
    expect(store.getState().exportPreview).toMatchObject({ fileName: 'new.json', redactions: 2 });
  });

  it('while the dialog is open playback stops and the debugger keys do not move the call', async () => {
    const { store } = await opened();
    store.getState().togglePlay();
    expect(store.getState().playing).toBe(true);
    store.getState().openExport();
    expect(store.getState().playing).toBe(false);
    const step = store.getState().selectedStep;
    expect(
      handleDebuggerKey(store, { key: 'ArrowRight', shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, target: null }),
    ).toBe(false);
    expect(store.getState().selectedStep).toBe(step);
    store.getState().closeExport();
    expect(
      handleDebuggerKey(store, { key: 'ArrowRight', shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, target: null }),
    ).toBe(true);
  });

  it("the menu's File ▸ Export… opens the dialog", async () => {
    const { store, emit } = await opened();
    const stop = store.getState().watchExportMenu();
    emit('exportRequested');
    expect(store.getState().exportOpen).toBe(true);
    store.getState().closeExport();
    stop();
    emit('exportRequested');
    expect(store.getState().exportOpen).toBe(false);
  });
});
