/**
 * The Probe tab's state (docs/probe.md): the endpoint, model and replicates the person chose, the
 * plan at the selected call (what would be sent; nothing is), the stored runs of the session
 * (shown again without sending), and whether a run is under way. A run to an endpoint the person
 * has not agreed to is refused by the host; the panel asks first and sends `consent`.
 */
import { type ApiClient, type ProbePlanView, type StoredProbe } from '../../../shared/api';
import type { Override } from '../model/config';
import { describe } from './request';

export interface ProbeForm {
  endpoint: string;
  model: string;
  replicates: number;
  temperature: number;
}

export interface ProbeSlice {
  probeForm: ProbeForm;
  probePlan: ProbePlanView | null;
  /** Stored runs of the current session (every policy): the chart marks their calls. */
  probeRuns: StoredProbe[];
  probeBusy: 'planning' | 'running' | null;
  probeError: string | null;
  setProbeForm(patch: Partial<ProbeForm>): void;
  planProbe(): Promise<void>;
  runProbe(consent: boolean): Promise<void>;
  loadProbes(): Promise<void>;
}

interface Host {
  currentId: string | null;
  policyId: string | null;
  overrides: Record<string, Override>;
  selectedStep: number | null;
}

type Set = (partial: Partial<ProbeSlice>) => void;
type Get = () => ProbeSlice & Host;

export function createProbeSlice(api: ApiClient, set: Set, get: Get): ProbeSlice {
  const request = () => {
    const { currentId, policyId, overrides, selectedStep, probeForm } = get();
    if (!currentId || !policyId || selectedStep === null) return null;
    return {
      sessionId: currentId,
      policy: policyId,
      overrides: { ...overrides },
      step: selectedStep,
      endpoint: probeForm.endpoint.trim(),
      model: probeForm.model.trim(),
      replicates: probeForm.replicates,
      temperature: probeForm.temperature,
    };
  };
  return {
    probeForm: { endpoint: 'http://127.0.0.1:11434/v1', model: '', replicates: 3, temperature: 0.7 },
    probePlan: null,
    probeRuns: [],
    probeBusy: null,
    probeError: null,
    setProbeForm(patch) {
      set({ probeForm: { ...get().probeForm, ...patch }, probePlan: null, probeError: null });
    },
    async planProbe() {
      const r = request();
      if (!r) return;
      if (!r.model) return set({ probeError: 'name the model to probe with' });
      set({ probeBusy: 'planning', probeError: null });
      try {
        set({ probePlan: await api.planProbe(r), probeBusy: null });
      } catch (e) {
        set({ probePlan: null, probeBusy: null, probeError: describe(e) });
      }
    },
    async runProbe(consent) {
      const r = request();
      if (!r) return;
      set({ probeBusy: 'running', probeError: null });
      try {
        const run = await api.runProbe({ ...r, consent });
        set({ probeRuns: [...get().probeRuns.filter((x) => x.id !== run.id), run], probeBusy: null, probePlan: null });
      } catch (e) {
        set({ probeBusy: null, probeError: describe(e) });
      }
    },
    async loadProbes() {
      const id = get().currentId;
      if (!id) return set({ probeRuns: [] });
      try {
        const runs = await api.listProbes({ sessionId: id });
        if (get().currentId === id) set({ probeRuns: runs });
      } catch (e) {
        set({ probeError: describe(e) });
      }
    },
  };
}
