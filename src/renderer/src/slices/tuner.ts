/**
 * The tuner's state (the Tuner tab): the sweeps the person set up, the last sweep's result and
 * what it was run for. A sweep runs on the host's worker threads (runTune); a newer one supersedes
 * the older (same channel), whose `cancelled` answer is dropped. Applying a point writes its
 * settings through the config slice's setOverride, so the chart, the config panel and the URL
 * follow as for any other change, and the replay re-runs once (the overrides go in as one live
 * change).
 */
import { ApiError, type ApiClient, type ConfigField } from '../../../shared/api';
import type { TuneResult } from '../../../core/tune/index';
import type { Override } from '../model/config';

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
  /** Sets sweep `i` (adds it when i is the length); a new key gets a range around its current value. */
  setTuneSweep(i: number, patch: Partial<SweepDraft>): void;
  removeTuneSweep(i: number): void;
  runTune(): Promise<void>;
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
  setOverride(key: string, value: Override | null, live?: boolean): Promise<void>;
}

type Set = (partial: Partial<TunerSlice>) => void;
type Get = () => TunerSlice & Host;

/** Fields a sweep can range over: numbers the policy uses. */
export const sweepable = (f: ConfigField): boolean => (f.kind === 'number' || f.kind === 'ratio' || f.kind === 'integer') && f.applies;

const round = (n: number, decimals: number): number => Number(n.toFixed(decimals));

/** A first range around a field's current value: the person narrows it. */
export function defaultSweep(f: ConfigField): SweepDraft {
  const v = typeof f.value === 'number' ? f.value : typeof f.policyValue === 'number' ? f.policyValue : (f.min ?? 1);
  if (f.kind === 'ratio') return { key: f.key, from: round(Math.max(0.05, v - 0.3), 2), to: round(Math.min(1, v + 0.1), 2), step: 0.05 };
  const lo = Math.max(f.min ?? 0, f.kind === 'integer' ? Math.max(1, Math.round(v / 4)) : v / 4);
  const hi = f.max !== null ? Math.min(f.max, v * 2) : v * 2;
  const step = f.kind === 'integer' ? Math.max(1, Math.round((hi - lo) / 10)) : round((hi - lo) / 10, 4) || 1;
  return { key: f.key, from: lo, to: Math.max(lo, hi), step };
}

/** The spec the host and the CLI read. */
export const sweepSpec = (s: SweepDraft): string => `${s.key}=${s.from}:${s.to}:${s.step}`;

/** Settings a sweep makes (both ends included); 0 when its range is not a range. */
export function sweepCount(s: SweepDraft): number {
  if (!(s.step > 0) || !(s.to >= s.from) || !Number.isFinite(s.from) || !Number.isFinite(s.to)) return 0;
  return Math.floor((s.to - s.from) / s.step + 1e-9) + 1;
}

export function createTunerSlice(api: ApiClient, set: Set, get: Get): TunerSlice {
  let seq = 0;
  return {
    tuneSweeps: [],
    tuneResult: null,
    tuneFor: null,
    tuneRunning: false,
    tuneError: null,
    tuneApplied: null,

    setTuneSweep(i, patch) {
      const sweeps = [...get().tuneSweeps];
      const field = patch.key !== undefined ? get().fields.find((f) => f.key === patch.key) : undefined;
      // A new key starts from its own range; a number edit keeps the rest.
      const next = field && patch.key !== sweeps[i]?.key ? { ...defaultSweep(field), ...patch } : { ...(sweeps[i] ?? { key: '', from: 0, to: 0, step: 1 }), ...patch };
      sweeps[i] = next;
      set({ tuneSweeps: sweeps });
    },

    removeTuneSweep(i) {
      set({ tuneSweeps: get().tuneSweeps.filter((_, j) => j !== i) });
    },

    async runTune() {
      const { currentId, policyId, overrides, needles, tuneSweeps } = get();
      if (!currentId || !policyId || tuneSweeps.length === 0) return;
      const mine = ++seq;
      // The swept keys are the sweep's; every other override the person set stays under them.
      const swept = new Set(tuneSweeps.map((s) => s.key));
      const base = Object.fromEntries(Object.entries(overrides).filter(([k]) => !swept.has(k)));
      set({ tuneRunning: true, tuneError: null });
      try {
        const r = await api.runTune({ sessionId: currentId, policy: policyId, overrides: base, needles: [...needles], sweeps: tuneSweeps.map(sweepSpec), channel: 'tune' });
        if (mine === seq) set({ tuneResult: r, tuneFor: { sessionId: currentId, policy: policyId }, tuneRunning: false, tuneApplied: null });
      } catch (e) {
        // Superseded by a newer sweep of this window: that one owns the state.
        if (mine !== seq) return;
        const cancelled = e instanceof ApiError && e.code === 'cancelled';
        set({ tuneRunning: false, tuneError: cancelled ? null : e instanceof Error ? e.message : String(e) });
      }
    },

    async cancelTune() {
      seq++;
      set({ tuneRunning: false });
      try {
        await api.cancelTune({ channel: 'tune' });
      } catch {
        // Nothing was running any more: nothing to cancel.
      }
    },

    async applyTunePoint(index) {
      const { tuneResult, tuneFor, currentId, policyId } = get();
      const point = tuneResult?.points[index];
      if (!point || !tuneFor) return;
      if (tuneFor.sessionId !== currentId || tuneFor.policy !== policyId) {
        set({ tuneError: `this sweep was run on policy ${tuneFor.policy}${tuneFor.sessionId !== currentId ? ' and another session' : ''}; run it again here to apply a point` });
        return;
      }
      set({ tuneApplied: index, tuneError: null });
      // Live: one debounced replay for all the keys, not one per key.
      await Promise.all(Object.entries(point.settings).map(([k, v]) => get().setOverride(k, v, true)));
    },
  };
}
