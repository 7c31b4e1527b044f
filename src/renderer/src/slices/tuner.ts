/**
 * The tuner's state (the Tuner tab): the sweeps the person set up, the last sweep's result and
 * what it was run for. A sweep runs on the host's worker threads (runTune); a newer one supersedes
 * the older (same channel), whose `cancelled` answer is dropped. Applying a point writes its
 * settings through the config slice's setOverride, so the chart, the config panel and the URL
 * follow as for any other change, and the replay re-runs once (the overrides go in as one live
 * change).
 */
import { type ApiClient, type ChartView, type ConfigField } from '../../../shared/api';
import { defaultRange, rangeProblem, type SweepContext, type TuneResult } from '../../../core/tune/index';
import type { Override } from '../model/config';
import { createRequests } from './request';

/** One sweep as the panel edits it: a setting and a range (`key=from:to:step`). */
export interface SweepDraft {
  readonly key: string;
  readonly from: number;
  readonly to: number;
  readonly step: number;
}

export interface TunerSlice {
  tuneSweeps: SweepDraft[];
  tuneResult: TuneResult | null;
  /** Session and policy the result was computed for (a point applies only to them). */
  tuneFor: { sessionId: string; policy: string } | null;
  tuneRunning: boolean;
  tuneError: string | null;
  /** Grid index last applied to the config. */
  tuneApplied: number | null;
  /** The model's own window per session, remembered from a replay without a window override. */
  tuneModelWindow: Record<string, number>;
  /** Sets sweep `i` (adds it when i is the length); a new key gets a range around its current value. */
  setTuneSweep(i: number, patch: Partial<SweepDraft>): void;
  removeTuneSweep(i: number): void;
  runTune(): Promise<void>;
  /** The session's bounds for a sweep (largest and smallest request, the model's window). */
  tuneContext(): SweepContext;
  /** Reads the model's window off the replay on screen while no override hides it. */
  tuneRemember(): void;
  cancelTune(): Promise<void>;
  applyTunePoint(index: number): Promise<void>;
}

/** What the slice needs of the rest of the store. */
interface Host {
  currentId: string | null;
  policyId: string | null;
  overrides: Record<string, Override>;
  needles: string[];
  fields: ConfigField[];
  chart: ChartView | null;
  setOverride(key: string, value: Override | null, live?: boolean): Promise<void>;
}

type Set = (partial: Partial<TunerSlice>) => void;
type Get = () => TunerSlice & Host;

/** Fields a sweep can range over: numbers the policy uses. */
export const sweepable = (f: ConfigField): boolean => (f.kind === 'number' || f.kind === 'ratio' || f.kind === 'integer') && f.applies;

const NO_CONTEXT: SweepContext = { largestRequest: null, smallestRequest: null, modelWindow: null };

/** A first range from the session and the setting (src/core/tune/ranges.ts): the person narrows it. */
export function defaultSweep(f: ConfigField, ctx: SweepContext = NO_CONTEXT): SweepDraft {
  return defaultRange(f, ctx);
}

/**
 * What the replay on screen says about the values a sweep can take: the largest request (the
 * provider's count where the transcript reports one), the smallest (the first call's) and the
 * model's window (`remembered`: read from a replay that had no window override).
 */
export function sweepContextOf(chart: ChartView | null, remembered: number | undefined): SweepContext {
  if (!chart) return { ...NO_CONTEXT, modelWindow: remembered ?? null };
  const max = (xs: readonly (number | null)[]): number | null =>
    xs.reduce<number | null>((m, x) => (x !== null && (m === null || x > m) ? x : m), null);
  const reported = max(chart.reported.max);
  const largest = reported ?? max(chart.total.max);
  const first = chart.total.min[0] ?? null;
  const resolved = (chart.config as { resolved?: { window?: number; windowSource?: string } }).resolved;
  const own = resolved && resolved.windowSource !== 'request' && typeof resolved.window === 'number' ? resolved.window : undefined;
  return { largestRequest: largest, smallestRequest: first, modelWindow: own ?? remembered ?? null };
}

/** Why the sweeps cannot run on this session (the first problem), or null. */
export function sweepsProblem(sweeps: readonly SweepDraft[], fields: readonly ConfigField[], ctx: SweepContext): string | null {
  for (const s of sweeps) {
    const f = fields.find((x) => x.key === s.key);
    if (!f) return s.key ? `${s.key} is not a setting of this policy` : 'choose a setting to sweep';
    if (!(s.step > 0)) return `${s.key}: the step must be greater than 0`;
    const p = rangeProblem(f, s.from, s.to, ctx);
    if (p) return p;
  }
  return null;
}

/** The spec the host and the CLI read. */
export const sweepSpec = (s: SweepDraft): string => `${s.key}=${s.from}:${s.to}:${s.step}`;

/** Settings a sweep makes (both ends included); 0 when its range is not a range. */
export function sweepCount(s: SweepDraft): number {
  if (!(s.step > 0) || !(s.to >= s.from) || !Number.isFinite(s.from) || !Number.isFinite(s.to)) return 0;
  return Math.floor((s.to - s.from) / s.step + 1e-9) + 1;
}

export function createTunerSlice(api: ApiClient, set: Set, get: Get): TunerSlice {
  // A sweep is not dropped when another session opens (its result names its session, and a point
  // applies only there); a newer sweep of this window supersedes it (the 'tune' lane).
  const requests = createRequests({ get: () => ({ currentId: null }), showError: (tuneError) => set({ tuneError }) });
  const contextNow = (): SweepContext => {
    const { chart, currentId, tuneModelWindow } = get();
    return sweepContextOf(chart, currentId ? tuneModelWindow[currentId] : undefined);
  };
  /** Remembers the model's window while no override hides it, so the tuner's own Apply does not move the sweep's upper end. */
  const remember = (): SweepContext => {
    const ctx = contextNow();
    const { currentId, tuneModelWindow, overrides } = get();
    if (currentId && ctx.modelWindow !== null && overrides.window === undefined && tuneModelWindow[currentId] !== ctx.modelWindow)
      set({ tuneModelWindow: { ...tuneModelWindow, [currentId]: ctx.modelWindow } });
    return ctx;
  };
  return {
    tuneSweeps: [],
    tuneResult: null,
    tuneFor: null,
    tuneRunning: false,
    tuneError: null,
    tuneApplied: null,
    tuneModelWindow: {},

    setTuneSweep(i, patch) {
      const sweeps = [...get().tuneSweeps];
      const field = patch.key !== undefined ? get().fields.find((f) => f.key === patch.key) : undefined;
      // A new key starts from its own range; a number edit keeps the rest.
      const next =
        field && patch.key !== sweeps[i]?.key
          ? { ...defaultSweep(field, remember()), ...patch }
          : { ...(sweeps[i] ?? { key: '', from: 0, to: 0, step: 1 }), ...patch };
      sweeps[i] = next;
      set({ tuneSweeps: sweeps });
    },

    tuneContext: contextNow,
    tuneRemember() {
      remember();
    },

    removeTuneSweep(i) {
      set({ tuneSweeps: get().tuneSweeps.filter((_, j) => j !== i) });
    },

    async runTune() {
      const { currentId, policyId, overrides, needles, tuneSweeps } = get();
      if (!currentId || !policyId || tuneSweeps.length === 0) return;
      // Refused here, before any replay: a window no call fits, a share of 0, a range upside down.
      const problem = sweepsProblem(tuneSweeps, get().fields, remember());
      if (problem) {
        set({ tuneError: problem });
        return;
      }
      // The swept keys are the sweep's; every other override the person set stays under them.
      const swept = new Set(tuneSweeps.map((s) => s.key));
      const base = Object.fromEntries(Object.entries(overrides).filter(([k]) => !swept.has(k)));
      set({ tuneRunning: true, tuneError: null });
      await requests.send(
        () =>
          api.runTune({
            sessionId: currentId,
            policy: policyId,
            overrides: base,
            needles: [...needles],
            sweeps: tuneSweeps.map(sweepSpec),
            channel: 'tune',
          }),
        {
          lane: 'tune',
          onAnswer: (r) => set({ tuneResult: r, tuneFor: { sessionId: currentId, policy: policyId }, tuneApplied: null }),
          // Superseded by a newer sweep of this window: that one owns the running flag.
          onSettled: () => set({ tuneRunning: false }),
        },
      );
    },

    async cancelTune() {
      requests.supersede('tune');
      set({ tuneRunning: false });
      // A failure means nothing was running any more: nothing to cancel, nothing to show.
      await requests.send(() => api.cancelTune({ channel: 'tune' }), { onError: () => undefined });
    },

    async applyTunePoint(index) {
      const { tuneResult, tuneFor, currentId, policyId } = get();
      const point = tuneResult?.points[index];
      if (!point || !tuneFor) return;
      if (tuneFor.sessionId !== currentId || tuneFor.policy !== policyId) {
        set({
          tuneError: `this sweep was run on policy ${tuneFor.policy}${tuneFor.sessionId !== currentId ? ' and another session' : ''}; run it again here to apply a point`,
        });
        return;
      }
      set({ tuneApplied: index, tuneError: null });
      // Live: one debounced replay for all the keys, not one per key.
      await Promise.all(Object.entries(point.settings).map(([k, v]) => get().setOverride(k, v, true)));
    },
  };
}
