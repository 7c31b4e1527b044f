/**
 * The comparison slice: the chart's replay (A) against another policy (B) on the same session,
 * the calls where they differ by at least `minDelta` tokens. A comparison answers for the chart on
 * screen; a newer one supersedes it, and one for a session no longer open is dropped.
 */
import type { CompareSlice, SliceContext } from './state';

export function createCompareSlice({ api, set, get, requests }: SliceContext): CompareSlice {
  return {
    comparePolicyId: null,
    compareWithOverrides: true,
    minDelta: 0,
    comparison: null,

    async setComparePolicy(id) {
      set({ comparePolicyId: id, comparison: null });
      await get().runCompare();
    },

    async setCompareWithOverrides(on) {
      set({ compareWithOverrides: on });
      await get().runCompare();
    },

    async setMinDelta(n) {
      set({ minDelta: Math.max(0, Math.round(n)) });
      await get().runCompare();
    },

    async runCompare() {
      const { chartFor, comparePolicyId, compareWithOverrides, minDelta } = get();
      if (!chartFor || !comparePolicyId) return set({ comparison: null });
      // A is what the chart shows; B gets the same overrides unless the user unticked it.
      const a = { policy: chartFor.policy, overrides: { ...chartFor.overrides } };
      const b = { policy: comparePolicyId, overrides: compareWithOverrides ? { ...chartFor.overrides } : {} };
      await requests.send(() => api.compare({ sessionId: chartFor.sessionId, a, b, minDelta }), {
        lane: 'compare',
        session: chartFor.sessionId,
        onAnswer: (comparison) => set({ comparison }),
        onError: (message) => set({ comparison: null, error: message }),
      });
    },
  };
}
