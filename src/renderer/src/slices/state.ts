/**
 * The debugger's state as its slices see it: the session and its messages, the replay, the config
 * panel, the selection, playback and the comparison (one file each beside this one), and the
 * context every slice is made with. It lives apart from store.ts, which assembles the slices, so
 * that no slice imports the store (and no import goes round in a circle).
 */
import type {
  AccuracyView,
  ApiClient,
  AppInfo,
  ChartView,
  CompareView,
  ConfigField,
  ExportResult,
  MessageView,
  PolicyInfo,
  SessionDetail,
  SessionSummary,
  StepDetail,
} from '../../../shared/api';
import type { Override } from '../model/config';
import type { UrlState } from '../model/url-state';
import type { Requests } from './request';

/** The inputs a chart (and the step details that go with it) was computed from. */
export interface ReplayInputs {
  readonly sessionId: string;
  readonly policy: string;
  readonly overrides: Readonly<Record<string, Override>>;
  readonly needles: readonly string[];
}

export interface SessionSlice {
  info: AppInfo | null;
  sessions: SessionSummary[];
  currentId: string | null;
  detail: SessionDetail | null;
  /** Sparse: index → message, filled page by page. */
  messages: Map<number, MessageView>;
  loadingPages: Set<number>;
  /** The raw source record of a message, once asked for. */
  rawRecord: { index: number; record: string | null; line: number | null } | null;
  error: string | null;
  importing: string | null;
  init(from?: UrlState): Promise<void>;
  openSession(id: string, from?: Partial<UrlState>): Promise<void>;
  ensureMessages(from: number, to: number): Promise<void>;
  loadRawRecord(index: number): Promise<void>;
  refreshSessions(): Promise<void>;
  /** Exact counts arrived: refetch what shows them, keeping what is on screen until then. */
  refreshCounts(): Promise<void>;
  openFiles(): Promise<void>;
  /** Pins or unpins a message (kept by every strategy) and replays again. */
  setPinned(index: number, pinned: boolean): Promise<void>;
  clearError(): void;
}

export interface ReplaySlice {
  policies: PolicyInfo[];
  policyId: string | null;
  /** `--set`-style overrides on top of the policy (dotted config key → value), as the chart on screen used them. */
  overrides: Record<string, Override>;
  needles: string[];
  /** The last good chart: an invalid value or a failed replay never blanks it. */
  chart: ChartView | null;
  chartFor: ReplayInputs | null;
  chartError: string | null;
  chartLoading: boolean;
  /** Pixel columns of the chart: the host reduces the replay to this many buckets. */
  buckets: number;
  stepDetail: StepDetail | null;
  stepDetailError: string | null;
  accuracy: AccuracyView | null;
  accuracyError: string | null;
  /** Asks for the chart; `after`: the chart is shown only once that settles (the detail it must agree with). */
  requestChart(after?: Promise<unknown>): Promise<void>;
  setBuckets(n: number): void;
  setNeedles(needles: string[]): Promise<void>;
  loadAccuracy(): Promise<void>;
}

export interface ConfigSlice {
  fields: ConfigField[];
  fieldsError: string | null;
  /** A value the host or the field's range rejected: shown on its field, never applied. */
  invalid: { key: string | null; value: Override | null; message: string } | null;
  /** Overrides the last policy switch dropped because the new policy has no such setting. */
  droppedOverrides: string[];
  setPolicy(id: string): Promise<void>;
  /** Sets (or clears, with null) one override; `live`: a slider being dragged (the first move replays at once, the rest debounced). */
  setOverride(key: string, value: Override | null, live?: boolean): Promise<void>;
  /**
   * Sends a live change's leading replay now instead of at the end of the task. A slider's input
   * event calls it after its one setOverride: React re-renders a controlled input's window before
   * the event returns, ahead of any microtask, and the request waited those milliseconds for it.
   */
  flushLive(): void;
  resetOverrides(): Promise<void>;
  /** Saves the policy with the overrides in force under a new name; resolves to an error or null. */
  savePolicyAs(name: string): Promise<string | null>;
  loadFields(): Promise<void>;
  savePolicy(json: string): Promise<string | null>;
  deletePolicy(id: string): Promise<void>;
  exportPolicy(id: string): Promise<ExportResult | null>;
  refreshPolicies(): Promise<void>;
}

export interface SelectionSlice {
  /** THE selected call; every panel derives from it. */
  selectedStep: number | null;
  /** The message shown in full: the one clicked, else the selected call's own message. */
  inspectedMessage: number | null;
  selectStep(step: number | null, opts?: { message?: number }): void;
  /** Selects the call at or after the message (the first call that sees it) and shows the message. */
  selectMessage(index: number): void;
  stepBy(delta: number): void;
  stepToEnd(end: 'first' | 'last'): void;
  jumpCompression(dir: 1 | -1): void;
}

export interface PlaybackSlice {
  playing: boolean;
  /** Calls per second while playing. */
  speed: number;
  togglePlay(): void;
  setSpeed(callsPerSecond: number): void;
}

export interface CompareSlice {
  comparePolicyId: string | null;
  /** Both sides get the user's overrides unless the user unticks it. */
  compareWithOverrides: boolean;
  minDelta: number;
  comparison: CompareView | null;
  setComparePolicy(id: string | null): Promise<void>;
  setCompareWithOverrides(on: boolean): Promise<void>;
  setMinDelta(n: number): Promise<void>;
  runCompare(): Promise<void>;
}

/** The little the debugger's slices touch of the window's other slices (library, probe). */
export interface Neighbours {
  /** The library's search text: an import clears it (it could hide the new session). */
  libraryQuery: string;
  /** Stored probe runs of the open session (the chart marks their calls). */
  loadProbes(): Promise<void>;
}

export type DebuggerState = SessionSlice & ReplaySlice & ConfigSlice & SelectionSlice & PlaybackSlice & CompareSlice & Neighbours;

/** What the debugger's slices call of each other beyond the state: the store wires them once all exist. */
export interface DebuggerHooks {
  /** Asks for the selected call's detail under the chart on screen (from the cache when it has it). */
  requestStepDetail(): Promise<void>;
  /** Forgets cached step details (a pin or a grown file changes what a chart key describes). */
  clearDetails(): void;
  /** The selection moved by one call in this direction: the next detail is fetched ahead that way. */
  steppedTowards(direction: 1 | -1): void;
  /** A live (dragged) change: replay soon, coalescing the moves of one drag. */
  scheduleLive(): void;
}

export interface StoreTimers {
  readonly setTimer: (fn: () => void, ms: number) => unknown;
  readonly clearTimer: (handle: unknown) => void;
}

/** What each debugger slice is made with. */
export interface SliceContext {
  readonly api: ApiClient;
  readonly set: (partial: Partial<DebuggerState>) => void;
  readonly get: () => DebuggerState;
  readonly requests: Requests;
  readonly hooks: DebuggerHooks;
  readonly timers: StoreTimers;
}
