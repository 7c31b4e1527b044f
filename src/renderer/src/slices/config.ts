/**
 * The config panel's slice: the policy's fields (the host derives them for the policy and the
 * overrides in force), a value the field's range or the host refused, overrides a policy switch
 * dropped, live (dragged) changes, and saving, deleting and exporting policies.
 */
import type { ConfigField } from '../../../shared/api';
import { fieldProblem, withOverrides, type Override } from '../model/config';
import { codeOf } from './request';
import type { ConfigSlice, SliceContext, StoreTimers } from './state';

export interface LiveScheduler {
  /** A live change: replay soon (see below). */
  schedule(): void;
  /** Sends a waiting leading replay now. */
  flush(): void;
}

/**
 * A dragged setting: its first move replays at once (at the end of this task, so keys set
 * together — a tuner point — go in one replay), and the moves that follow, each within
 * `debounceMs` of the last, in one replay after them. Waiting out the debounce before the first
 * replay cost every slider move 40 ms of the 150 it may take.
 */
export function createLiveScheduler(fire: () => void, debounceMs: number, { setTimer, clearTimer }: StoreTimers): LiveScheduler {
  let liveTimer: unknown = null;
  let liveLeading = false;
  let livePending = false;
  return {
    schedule() {
      if (liveTimer === null) {
        if (!liveLeading) {
          liveLeading = true;
          queueMicrotask(() => {
            // flush sent it already.
            if (!liveLeading) return;
            liveLeading = false;
            fire();
          });
        }
      } else {
        clearTimer(liveTimer);
        // A move before the leading replay has gone is part of it.
        if (!liveLeading) livePending = true;
      }
      liveTimer = setTimer(() => {
        liveTimer = null;
        if (!livePending) return;
        livePending = false;
        fire();
      }, debounceMs);
    },
    flush() {
      if (!liveLeading) return;
      liveLeading = false;
      fire();
    },
  };
}

export function createConfigSlice({ api, set, get, requests, hooks }: SliceContext, live: LiveScheduler): ConfigSlice {
  return {
    fields: [],
    fieldsError: null,
    invalid: null,
    droppedOverrides: [],

    async loadFields() {
      const { policyId, overrides } = get();
      if (!policyId) return;
      await requests.send(() => api.getConfigFields({ policy: policyId, overrides: { ...overrides } }), {
        lane: 'fields',
        onAnswer: (fields: ConfigField[]) => set({ fields, fieldsError: null }),
        // A refused value is shown on its field (the chart's answer says which); the panel keeps its fields.
        onError: (message, e) => {
          if (codeOf(e) !== 'bad_input') set({ fieldsError: message });
        },
      });
    },

    async setPolicy(id) {
      const { overrides } = get();
      let kept: Record<string, Override> = { ...overrides };
      let dropped: string[] = [];
      if (Object.keys(overrides).length > 0) {
        await requests.send(() => api.getConfigFields({ policy: id, overrides: {} }), {
          // Keep the overrides the new policy still has a setting for, say which it has not.
          onAnswer: (fields) => {
            const applies = new Set(fields.filter((f) => f.applies).map((f) => f.key));
            kept = Object.fromEntries(Object.entries(overrides).filter(([k]) => applies.has(k)));
            dropped = Object.keys(overrides).filter((k) => !applies.has(k));
          },
          // Without the new policy's fields the host judges them: keep them all.
          onError: () => undefined,
        });
      }
      set({ policyId: id, overrides: kept, droppedOverrides: dropped, invalid: null });
      await Promise.all([get().requestChart(), get().loadFields()]);
    },

    async setOverride(key, value, isLive = false) {
      const field = get().fields.find((f) => f.key === key);
      const problem = value === null ? null : fieldProblem(field, value);
      if (problem) {
        // Out of range: mark the field, send nothing, keep the chart on screen.
        set({ invalid: { key, value, message: problem } });
        return;
      }
      const overrides = { ...get().overrides };
      if (value === null || value === '') delete overrides[key];
      else overrides[key] = value;
      set({ overrides, invalid: get().invalid?.key === key ? null : get().invalid });
      if (isLive) return hooks.scheduleLive();
      await Promise.all([get().requestChart(), get().loadFields()]);
    },

    flushLive() {
      live.flush();
    },

    async resetOverrides() {
      set({ overrides: {}, invalid: null, droppedOverrides: [] });
      await Promise.all([get().requestChart(), get().loadFields()]);
    },

    async savePolicyAs(name) {
      const { policies, policyId, overrides } = get();
      const base = policies.find((p) => p.id === policyId);
      const id = name
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
      if (!base || !id) return 'Give the policy a name (letters or digits).';
      const json = JSON.stringify({
        id,
        label: name.trim(),
        source: `${base.id} with changes`,
        description: `${base.label}, with ${
          Object.entries(overrides)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(', ') || 'no changes'
        }`,
        config: withOverrides(base.config, overrides),
      });
      return get().savePolicy(json);
    },

    async refreshPolicies() {
      await requests.send(() => api.listPolicies({}), { session: null, onAnswer: (policies) => set({ policies }) });
    },

    async savePolicy(json) {
      let problem: string | null = null;
      await requests.send(() => api.savePolicy({ json }), {
        session: null,
        onAnswer: async (saved) => {
          await get().refreshPolicies();
          set({ overrides: {} });
          await get().setPolicy(saved.id);
        },
        // Shown in the editor that saved it, not on the window's error line.
        onError: (message) => {
          problem = message;
        },
      });
      return problem;
    },

    async deletePolicy(id) {
      // Move off the policy before it goes, so nothing asks the host for it once deleted.
      const { policies, policyId, comparePolicyId } = get();
      if (comparePolicyId === id) set({ comparePolicyId: null, comparison: null });
      if (policyId === id) await get().setPolicy(policies.find((p) => p.id !== id)?.id ?? '');
      await requests.send(() => api.deletePolicy({ id }), { session: null, onAnswer: () => get().refreshPolicies() });
    },

    async exportPolicy(id) {
      let result: Awaited<ReturnType<typeof api.exportPolicy>> | null = null;
      await requests.send(() => api.exportPolicy({ id }), {
        session: null,
        onAnswer: (r) => {
          result = r;
        },
      });
      return result;
    },
  };
}
