/**
 * The replay slice: the policy, overrides and needles the chart is replayed under, the chart
 * (the last good one: an invalid value or a failed replay never blanks it), the selected call's
 * detail and the session's estimate accuracy.
 *
 * Chart and step-detail requests each go in their own lane (request.ts): only the latest one's
 * answer is applied, so an older replay never overwrites a newer one (the host also cancels
 * superseded requests by channel). Details are cached per chart key, and the next call's detail
 * is fetched ahead while the user reads this one.
 */
import { BoundedCache } from '../../../core/bounded-cache';
import type { ChartView, StepDetail } from '../../../shared/api';
import { chartViewFromWire } from '../../../shared/marker-columns';
import { clampStep } from '../model/selection';
import { guessFieldKey } from '../model/config';
import { codeOf } from './request';
import type { DebuggerHooks, ReplayInputs, ReplaySlice, SliceContext } from './state';

/** Step details kept for instant back-and-forth stepping. */
const DETAIL_CACHE = 256;

export type ReplayInternals = Pick<DebuggerHooks, 'requestStepDetail' | 'clearDetails' | 'steppedTowards'>;

/**
 * Makes the replay slice. `afterPaint` runs a function once the frame showing the last store
 * change is drawn: the chart is drawn before the detail that goes with it is asked for.
 */
export function createReplaySlice(
  { api, set, get, requests, hooks }: SliceContext,
  afterPaint: (fn: () => void) => void,
): { slice: ReplaySlice; internals: ReplayInternals } {
  const detailCache = new BoundedCache<string, StepDetail>({ max: DETAIL_CACHE });
  /** The detail being fetched ahead (prefetchAhead), and the way the selection last moved (+1 / -1). */
  let ahead: { readonly cacheKey: string; readonly promise: Promise<StepDetail> } | null = null;
  let lastDirection: 1 | -1 = 1;

  const inputs = (): ReplayInputs | null => {
    const { currentId, policyId, overrides, needles } = get();
    return currentId && policyId ? { sessionId: currentId, policy: policyId, overrides, needles } : null;
  };

  /** Keeps a call's detail for the chart it was asked under (the least recently used goes first). */
  const remember = (cacheKey: string, d: StepDetail): void => void detailCache.set(cacheKey, d);

  const detailRequest = (chartFor: ReplayInputs, step: number, channel: 'step' | 'step-ahead') =>
    api.getStepDetail({ ...chartFor, overrides: { ...chartFor.overrides }, needles: [...chartFor.needles], step, channel });

  /**
   * The next call's detail, asked for while the user reads this one: stepping on (→, or ← after a
   * step back, and playback) then shows it from the cache in a frame, instead of waiting for a
   * round trip to the host at every step. One at a time, on its own channel (a newer one
   * supersedes it); its answer only fills the cache.
   */
  const prefetchAhead = (chart: ChartView, chartFor: ReplayInputs, step: number): void => {
    const next = step + lastDirection;
    const cacheKey = `${chart.key}#${next}`;
    if (next < 0 || next >= chart.stepCount || detailCache.has(cacheKey) || ahead?.cacheKey === cacheKey) return;
    const promise = detailRequest(chartFor, next, 'step-ahead');
    const mine = { cacheKey, promise };
    ahead = mine;
    promise
      .then(
        (d) => remember(cacheKey, d),
        () => undefined,
      )
      .finally(() => {
        if (ahead === mine) ahead = null;
      });
  };

  const requestStepDetail = async (): Promise<void> => {
    const { chart, chartFor, selectedStep } = get();
    if (!chart || !chartFor || selectedStep === null) return set({ stepDetail: null });
    const cacheKey = `${chart.key}#${selectedStep}`;
    const cached = detailCache.get(cacheKey);
    if (cached) {
      requests.supersede('step');
      set({ stepDetail: cached, stepDetailError: null });
      prefetchAhead(chart, chartFor, selectedStep);
      return;
    }
    // The call asked for ahead of time, still on its way: its answer, not a second request.
    const pending = ahead?.cacheKey === cacheKey ? ahead.promise : null;
    await requests.send(
      async () => {
        const d = (pending && (await pending.catch(() => null))) ?? (await detailRequest(chartFor, selectedStep, 'step'));
        // Kept even when superseded: stepping back to it shows it at once.
        remember(cacheKey, d);
        return d;
      },
      {
        lane: 'step',
        onAnswer: (d) => {
          set({ stepDetail: d, stepDetailError: null });
          prefetchAhead(chart, chartFor, selectedStep);
        },
        onError: (message) => set({ stepDetailError: message }),
      },
    );
  };

  const slice: ReplaySlice = {
    policies: [],
    policyId: null,
    overrides: {},
    needles: [],
    chart: null,
    chartFor: null,
    chartError: null,
    chartLoading: false,
    buckets: 1200,
    stepDetail: null,
    stepDetailError: null,
    accuracy: null,
    accuracyError: null,

    async requestChart(after) {
      const req = inputs();
      if (!req) return;
      set({ chartLoading: true });
      await requests.send(
        async () => {
          const wire = await api.getChartView({
            ...req,
            overrides: { ...req.overrides },
            needles: [...req.needles],
            buckets: get().buckets,
            channel: 'chart',
          });
          if (after) await after;
          return chartViewFromWire(wire);
        },
        {
          lane: 'chart',
          onAnswer: async (chart) => {
            const step = get().selectedStep;
            const selectedStep = chart.stepCount === 0 ? null : clampStep(step ?? 0, chart.stepCount);
            const inspectedMessage =
              selectedStep === step && get().inspectedMessage !== null
                ? get().inspectedMessage
                : selectedStep === null
                  ? null
                  : (get().detail?.steps[selectedStep] ?? null);
            set({ chart, chartFor: req, chartError: null, chartLoading: false, invalid: null, selectedStep, inspectedMessage });
            // The chart is drawn before the selected call's detail (and a comparison) is asked for:
            // an answer that arrived first would be parsed and rendered ahead of the chart's frame.
            await new Promise<void>((done) => afterPaint(done));
            await Promise.all([requestStepDetail(), get().comparePolicyId ? get().runCompare() : undefined]);
          },
          onError: (message, e) => {
            const good = get().chartFor;
            if (codeOf(e) === 'bad_input' && good && good.sessionId === req.sessionId && good.policy === req.policy) {
              // The value is refused: mark it and go back to the overrides the chart on screen used.
              const key = guessFieldKey(message, Object.keys(req.overrides));
              set({ invalid: { key, value: key ? (req.overrides[key] ?? null) : null, message }, overrides: { ...good.overrides } });
              return;
            }
            set({ chartError: message });
          },
          onSettled: () => {
            if (get().chartLoading) set({ chartLoading: false });
          },
        },
      );
    },

    setBuckets(n) {
      const buckets = Math.max(16, Math.min(8192, Math.round(n)));
      if (buckets === get().buckets) return;
      set({ buckets });
      if (get().chart) hooks.scheduleLive();
    },

    async setNeedles(needles) {
      set({ needles });
      await get().requestChart();
    },

    async loadAccuracy() {
      if (!get().currentId) return;
      const sessionId = get().currentId!;
      await requests.send(() => api.getAccuracy({ sessionId }), {
        onAnswer: (accuracy) => set({ accuracy, accuracyError: null }),
        onError: (message) => set({ accuracyError: message }),
      });
    },
  };

  return {
    slice,
    internals: {
      requestStepDetail,
      clearDetails: () => detailCache.clear(),
      steppedTowards: (direction) => {
        lastDirection = direction;
      },
    },
  };
}
