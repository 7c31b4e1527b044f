import { describe, expect, it } from 'vitest';
import { createSelectionSlice } from '../../../../src/renderer/src/slices/selection';
import { chartView, SESSION } from '../fake-client';
import { sliceHarness } from './harness';

/** The selection over the fake session (calls at messages 1, 3, 6, 8) and a 4-call chart. */
function selection(compressions: number[] = []) {
  const h = sliceHarness({}, { chart: chartView('k', 4, compressions), detail: SESSION, selectedStep: null, inspectedMessage: null });
  const asked: [number, number][] = [];
  h.install({
    ensureMessages: async (from: number, to: number) => void asked.push([from, to]),
  });
  h.install(createSelectionSlice(h.ctx));
  return { ...h, asked };
}

describe('selection slice', () => {
  it("selects a call (clamped to the calls there are), shows its message, loads around it and asks for the call's detail", () => {
    const h = selection();
    h.state().selectStep(9);
    expect(h.state().selectedStep).toBe(3);
    expect(h.state().inspectedMessage).toBe(8); // SESSION.steps[3]
    expect(h.asked).toEqual([[-12, 28]]);
    expect(h.hooks.requestStepDetail).toHaveBeenCalledTimes(1);
  });

  it('tells the replay which way the selection moved (for the detail fetched ahead)', () => {
    const h = selection();
    h.state().selectStep(2);
    expect(h.hooks.steppedTowards).not.toHaveBeenCalled(); // nothing was selected before
    h.state().stepBy(-1);
    expect(h.hooks.steppedTowards).toHaveBeenLastCalledWith(-1);
    h.state().stepToEnd('last');
    expect(h.hooks.steppedTowards).toHaveBeenLastCalledWith(1);
    expect(h.state().selectedStep).toBe(3);
  });

  it('a message selects the first call that sees it and shows that message', () => {
    const h = selection();
    h.state().selectMessage(4);
    expect(h.state().selectedStep).toBe(2); // message 4 is first seen by the call at message 6
    expect(h.state().inspectedMessage).toBe(4);
  });

  it('null clears the selection and the detail', () => {
    const h = selection();
    h.state().selectStep(1);
    h.state().selectStep(null);
    expect(h.state().selectedStep).toBeNull();
    expect(h.state().inspectedMessage).toBeNull();
    expect(h.state().stepDetail).toBeNull();
  });

  it('jumps from compression to compression, and stays where there is none further', () => {
    const h = selection([1, 3]);
    h.state().jumpCompression(1);
    expect(h.state().selectedStep).toBe(1);
    h.state().jumpCompression(1);
    expect(h.state().selectedStep).toBe(3);
    h.state().jumpCompression(1);
    expect(h.state().selectedStep).toBe(3);
    h.state().jumpCompression(-1);
    expect(h.state().selectedStep).toBe(1);
  });
});
