/**
 * A fake host for the renderer store: every method answers from plain data, and the debugger's
 * replay methods (chart, step detail) hand back a deferred promise so a test decides the order
 * in which answers arrive.
 */
import { createAppStore } from '../../../src/renderer/src/store';
import { chartViewToWire } from '../../../src/shared/marker-columns';
import {
  ApiError,
  type ApiClient,
  type ChartView,
  type ConfigField,
  type ExportPreview,
  type MethodInput,
  type MethodOutputs,
  type SessionDetail,
  type StepDetail,
} from '../../../src/shared/api';

export interface Deferred<T> {
  readonly input: Record<string, unknown>;
  resolve(v: T): void;
  reject(e: unknown): void;
}

function deferred<T>(input: Record<string, unknown>): { d: Deferred<T>; promise: Promise<T> } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { d: { input, resolve, reject }, promise };
}

/** Steps at messages 1, 3, 6, 8 (session of 10 messages, two turns from 0 and 5). */
export const SESSION: SessionDetail = {
  summary: {
    id: 's1',
    title: 't',
    format: 'jsonl',
    model: 'm',
    sourcePath: null,
    messages: 10,
    steps: 4,
    turns: 2,
    startedAt: null,
    importedAt: 0,
    reportedUsage: false,
    parentId: null,
    spawnedBy: null,
    spawnedAt: null,
    position: 0,
    cwd: null,
    agent: 'chat log',
    sourceCompactions: 0,
    promptTokens: 0,
    outputTokens: 0,
    cost: null,
    endedAt: null,
    fileSize: 0,
    cachedResults: 0,
  },
  systemPrompt: null,
  tools: [],
  tokenizer: 'chars4',
  approximate: true,
  counts: { system: 0, tools: 0, unlogged: 0 },
  turnStarts: [0, 5],
  steps: [1, 3, 6, 8],
  sourceCompactions: [],
  subagents: 0,
  subagentSessions: [],
  warnings: [],
  modelInfo: { window: 1000, maxOutput: 100, known: true },
  defaultPolicy: 'p2',
};

/** The fake session's messages' roles (its steps are the assistant ones). */
const ROLES = ['user', 'assistant', 'user', 'assistant', 'user', 'user', 'assistant', 'user', 'assistant', 'user'] as const;

export function chartView(key: string, stepCount = 4, compressions: number[] = []): ChartView {
  const n = stepCount;
  const zeros = (): number[] => new Array<number>(n).fill(0);
  const series = () => ({ min: new Array<number | null>(n).fill(100), max: new Array<number | null>(n).fill(100) });
  return {
    key,
    policy: 'p1',
    config: {},
    stepCount: n,
    bucketStart: Array.from({ length: n }, (_, i) => i),
    peakStep: Array.from({ length: n }, (_, i) => i),
    regions: {
      system: zeros(),
      unlogged: zeros(),
      summary: zeros(),
      history: new Array<number>(n).fill(100),
      tools: zeros(),
      output: zeros(),
      buffer: zeros(),
      free: zeros(),
    },
    total: series(),
    limit: series(),
    trigger: series(),
    reported: series(),
    window: series(),
    status: new Array(n).fill('ok'),
    turnStarts: [0, 2],
    markers: compressions.map((step) => ({
      step,
      kind: 'compression' as const,
      path: 'proactive' as const,
      strategy: 'summarize',
      tokensBefore: 1_000,
      tokensAfter: 400,
    })),
    totals: {
      billedInputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      cost: 0,
      compressions: compressions.length,
      tokensRemoved: 0,
      peak: 0,
      forcedFinals: 0,
      aborts: 0,
      overflows: 0,
    },
    retention: { lost: [] },
    warnings: [],
  };
}

export function stepDetail(key: string, step: number): StepDetail {
  const regions = { system: 0, unlogged: 0, summary: 0, history: 100, tools: 0, output: 0, buffer: 0, free: 900 };
  return {
    key,
    step,
    stepCount: 4,
    messageIndex: SESSION.steps[step] ?? 0,
    turn: 0,
    status: 'ok',
    reason: '',
    request: 100,
    reported: null,
    regions,
    window: { value: 1000, source: 'model catalog' },
    limit: { value: 900, formula: 'window − buffer', parts: [] },
    trigger: null,
    budgets: [],
    compression: null,
    context: {
      system: { tokens: 0, text: null },
      unlogged: { tokens: 0, inferred: true },
      summary: { tokens: 0, text: null },
      history: { tokens: 100, messages: 1, ranges: [[0, 0]], masked: [], reduced: [], sentAs: [] },
      tools: { tokens: 0, names: [] },
    },
    messageStates: [],
    events: [],
  };
}

export const FIELDS: ConfigField[] = [
  {
    key: 'trigger',
    label: 'trigger',
    group: 'compression',
    kind: 'ratio',
    unit: null,
    min: 0,
    max: 1,
    step: 0.01,
    options: null,
    value: 0.8,
    policyValue: 0.8,
    overridden: false,
    applies: true,
    why: null,
    description: '',
  },
  {
    key: 'window',
    label: 'window',
    group: 'model',
    kind: 'integer',
    unit: 'tokens',
    min: 1000,
    max: 2_000_000,
    step: 1000,
    options: null,
    value: 1000,
    policyValue: 1000,
    overridden: false,
    applies: true,
    why: null,
    description: '',
  },
];

export function fakeApi() {
  const charts: Deferred<ChartView>[] = [];
  const details: Deferred<StepDetail>[] = [];
  const ahead: Deferred<StepDetail>[] = [];
  const exports: MethodInput<'exportSession'>[] = [];
  const previews: Deferred<ExportPreview>[] = [];
  const listeners = new Map<string, ((payload: unknown) => void)[]>();
  /** Config fields per policy; a policy without an entry has none. */
  const fieldsByPolicy: Record<string, ConfigField[]> = { p1: FIELDS, p2: FIELDS, p3: [FIELDS[1]!] };
  const ok = <T>(v: T) => Promise.resolve(v);
  const api = {
    getInfo: () => ok({ version: '0', host: 'serve' as const, dbPath: '', initialSessionId: 's1' }),
    listSessions: () => ok([SESSION.summary]),
    getSession: () => ok(SESSION),
    getMessages: (i: MethodInput<'getMessages'>) =>
      ok({
        total: 10,
        messages: Array.from({ length: Math.max(0, Math.min(10, i.offset + i.limit) - i.offset) }, (_, k) => ({
          index: i.offset + k,
          id: `m${i.offset + k}`,
          role: ROLES[i.offset + k]!,
          parts: [],
          timestamp: null,
          tokens: 10,
          usage: null,
          pinned: false,
          truncated: false,
        })),
      }),
    listPolicies: () => ok(['p1', 'p2', 'p3'].map((id) => ({ id, label: id, description: '', source: '', config: {}, saved: false }))),
    getChartView: (i: MethodInput<'getChartView'>) => {
      const { d, promise } = deferred<ChartView>(i as Record<string, unknown>);
      charts.push(d);
      // Sent as the host sends it: the markers as columns (the store turns them back).
      return promise.then(chartViewToWire);
    },
    // Details fetched ahead of the selection (channel 'step-ahead') are kept apart, so a test
    // counts the requests the selection itself made.
    getStepDetail: (i: MethodInput<'getStepDetail'>) => {
      const { d, promise } = deferred<StepDetail>(i as Record<string, unknown>);
      (i.channel === 'step-ahead' ? ahead : details).push(d);
      return promise;
    },
    getConfigFields: (i: MethodInput<'getConfigFields'>) => ok(fieldsByPolicy[i.policy] ?? []),
    exportSession: (i: MethodInput<'exportSession'>) => {
      exports.push(i);
      return ok({ fileName: 'x', mime: 'text/plain', text: '', redactions: 0 });
    },
    setPinned: (i: MethodInput<'setPinned'>) => ok({ pinned: i.pinned }),
    previewExport: (i: MethodInput<'previewExport'>) => {
      const { d, promise } = deferred<ExportPreview>(i as Record<string, unknown>);
      previews.push(d);
      return promise;
    },
    on: (event: string, listener: (payload: unknown) => void) => {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return () =>
        listeners.set(
          event,
          (listeners.get(event) ?? []).filter((l) => l !== listener),
        );
    },
  } as Partial<Record<keyof MethodOutputs | 'on', unknown>>;
  const client = new Proxy(api, {
    get(target, prop: string) {
      if (prop in target) return target[prop as keyof typeof target];
      return () => Promise.reject(new ApiError('unsupported', `${prop} is not faked`));
    },
  }) as unknown as ApiClient;
  /** Delivers a host event to the store's listeners. */
  const emit = (event: string, payload: unknown = {}): void => {
    for (const l of listeners.get(event) ?? []) l(payload);
  };
  return { api: client, charts, details, ahead, exports, previews, emit };
}

/** Lets pending promise callbacks run. */
export const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

/**
 * A store on `fake` (timers off), initialised, with its first chart (`k1`, 4 calls) and that
 * chart's first step detail answered: the window as a user first sees it.
 */
export async function openedStore(fake: ReturnType<typeof fakeApi>): Promise<ReturnType<typeof createAppStore>> {
  const store = createAppStore(fake.api, { setTimer: () => 0, clearTimer: () => {} });
  void store.getState().init();
  await flush();
  fake.charts[0]!.resolve(chartView('k1', 4));
  await flush();
  fake.details[0]?.resolve(stepDetail('k1', 0));
  await flush();
  return store;
}
