/**
 * The selection slice. One selection drives the window (docs/architecture.md): `selectedStep` is
 * the only "where am I"; a message click, an event click, the chart, the timeline and the keys all
 * go through `selectStep`, and the export dialog, the guard status, the context view and the URL
 * read it.
 */
import { clampStep, compressionSteps, nextCompression, stepAtOrAfter } from '../model/selection';
import type { SelectionSlice, SliceContext } from './state';

export function createSelectionSlice({ set, get, hooks }: SliceContext): SelectionSlice {
  return {
    selectedStep: null,
    inspectedMessage: null,

    selectStep(step, opts) {
      const count = get().chart?.stepCount ?? get().detail?.steps.length ?? 0;
      if (step === null || count === 0) {
        set({ selectedStep: null, inspectedMessage: null, stepDetail: null });
        return;
      }
      const selectedStep = clampStep(step, count);
      const previous = get().selectedStep;
      if (previous !== null && selectedStep !== previous) hooks.steppedTowards(selectedStep > previous ? 1 : -1);
      const inspectedMessage = opts?.message ?? get().detail?.steps[selectedStep] ?? null;
      set({ selectedStep, inspectedMessage });
      if (inspectedMessage !== null) void get().ensureMessages(inspectedMessage - 20, inspectedMessage + 20);
      void hooks.requestStepDetail();
    },

    selectMessage(index) {
      const detail = get().detail;
      if (!detail) return;
      const step = stepAtOrAfter(detail.steps, index, get().chart?.stepCount);
      get().selectStep(step, { message: index });
    },

    stepBy(delta) {
      const { selectedStep } = get();
      get().selectStep((selectedStep ?? -1) + delta);
    },

    stepToEnd(end) {
      const count = get().chart?.stepCount ?? 0;
      if (count > 0) get().selectStep(end === 'first' ? 0 : count - 1);
    },

    jumpCompression(dir) {
      const { chart, selectedStep } = get();
      if (!chart) return;
      const to = nextCompression(compressionSteps(chart.markers), selectedStep ?? (dir === 1 ? -1 : chart.stepCount), dir);
      if (to !== null) get().selectStep(to);
    },
  };
}
