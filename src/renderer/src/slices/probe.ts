/**
 * The Probe tab's state (docs/probe.md): the endpoint, model and replicates the person chose, the
 * plan at the selected call (what would be sent; nothing is), the stored runs of the session
 * (shown again without sending), and whether a run is under way. A run to an endpoint the person
 * has not agreed to is refused by the host; the panel asks first and sends `consent`.
 */
import { type ApiClient, type ProbePlanView, type StoredProbe } from '../../../shared/api';
import type { Override } from '../model/config';
import { createRequests } from './request';

export interface ProbeForm {
  endpoint: string;
  model: string;
  replicates: number;
  temperature: number;
  /** An optional judge (docs/probe.md §Judge): used when both are filled in. */
  judgeEndpoint: string;
  judgeModel: string;
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
  // A plan, a run or the stored runs answered after another session opened are that session's no more: dropped.
  const requests = createRequests({ get, showError: (probeError) => set({ probeError }) });
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
      ...(probeForm.judgeEndpoint.trim() && probeForm.judgeModel.trim()
        ? { judgeEndpoint: probeForm.judgeEndpoint.trim(), judgeModel: probeForm.judgeModel.trim() }
        : {}),
    };
  };
  return {
    probeForm: { endpoint: 'http://127.0.0.1:11434/v1', model: '', replicates: 3, temperature: 0.7, judgeEndpoint: '', judgeModel: '' },
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
      await requests.send(() => api.planProbe(r), {
        lane: 'plan',
        onAnswer: (probePlan) => set({ probePlan }),
        onError: (probeError) => set({ probePlan: null, probeError }),
        onEnd: () => set({ probeBusy: null }),
      });
    },
    async runProbe(consent) {
      const r = request();
      if (!r) return;
      set({ probeBusy: 'running', probeError: null });
      await requests.send(() => api.runProbe({ ...r, consent }), {
        onAnswer: (run) => set({ probeRuns: [...get().probeRuns.filter((x) => x.id !== run.id), run], probePlan: null }),
        onError: (probeError) => set({ probeError }),
        onEnd: () => set({ probeBusy: null }),
      });
    },
    async loadProbes() {
      const id = get().currentId;
      if (!id) return set({ probeRuns: [] });
      await requests.send(() => api.listProbes({ sessionId: id }), { lane: 'runs', onAnswer: (probeRuns) => set({ probeRuns }) });
    },
  };
}
