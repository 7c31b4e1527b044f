/**
 * The one typed contract between the renderer and a host (Electron main over IPC, or
 * `ctxscope serve` over HTTP). Every method's input is a zod schema, validated by the host
 * before the handler runs; outputs are plain JSON (typed arrays become number arrays).
 * The preload, the IPC handler table, the HTTP router and the renderer clients are all
 * generated from `methods` and `events` below, so they cannot drift.
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */
import type { ChartViewWire } from './marker-columns';
import { z } from 'zod';
import type { FormatId, Part, ReportedUsage, Role, SourceCompaction } from '../core/model';
import type { comparisonToJSON } from '../core/replay/compare';
import type { TuneResult } from '../core/tune/index';
import type { RepeatedCalls } from '../core/library/repeated-calls';
import type { ProbeEstimate, ProbeQuestion, ProbeResult, RecordedAction } from '../core/probe/types';
import type { ReplayEvent } from '../core/replay/types';
import type { ConfigField } from '../core/view/config-field';
import type { ReplayView, StepDetail } from '../core/view/replay-view';

const id = z.string().min(1).max(512);
const overrides = z.record(z.string().max(64), z.union([z.string().max(4096), z.number(), z.boolean()]));
const replayRequest = z
  .object({
    sessionId: id,
    policy: z.string().min(1).max(128),
    overrides: overrides.default({}),
    needles: z.array(z.string().min(1).max(512)).max(100).default([]),
  })
  .strict();
/**
 * A replay the debugger asks about, plus the channel it belongs to: a newer request on the same
 * channel supersedes (cancels) an older one still running, which then answers `cancelled`.
 */
const debugRequest = replayRequest.extend({ channel: z.string().min(1).max(64).optional() });
export const EXPORT_TARGETS = ['openai', 'anthropic', 'jsonl', 'markdown', 'report-json', 'report-csv'] as const;
export type ExportTarget = (typeof EXPORT_TARGETS)[number];

/** The built-in redaction sets (src/core/export/redact.ts): credentials, bearer tokens, e-mail addresses. */
export const REDACTION_BUILTINS = ['keys', 'bearer', 'email'] as const;
const exportRequest = z
  .object({
    sessionId: id,
    policy: z.string().min(1).max(128).optional(),
    overrides: overrides.default({}),
    at: z.union([z.number().int().min(0), z.literal('end')]).default('end'),
    to: z.enum(EXPORT_TARGETS),
    redact: z.boolean().default(false),
    redactPatterns: z.array(z.string().min(1).max(512)).max(50).default([]),
    /** The built-in sets in force when `redact` is on; all of them when absent. */
    builtins: z.array(z.enum(REDACTION_BUILTINS)).max(REDACTION_BUILTINS.length).optional(),
  })
  .strict();

/** A probe's settings as the app sends them (docs/probe.md). */
const probeSettings = {
  step: z.number().int().min(0),
  endpoint: z.string().min(1).max(2048),
  model: z.string().min(1).max(256),
  api: z.enum(['openai', 'anthropic']).optional(),
  replicates: z.number().int().min(1).max(50).default(3),
  temperature: z.number().min(0).max(2).default(0.7),
  maxAnswerTokens: z.number().int().min(1).max(8192).default(256),
  /** An optional judge that grades recall answers CORRECT/INCORRECT too (docs/probe.md §Judge): both or neither. */
  judgeEndpoint: z.string().min(1).max(2048).optional(),
  judgeModel: z.string().min(1).max(256).optional(),
  judgeApi: z.enum(['openai', 'anthropic']).optional(),
};

export const methods = {
  getInfo: z.object({}).strict(),
  listSessions: z.object({}).strict(),
  getSession: z.object({ id }).strict(),
  getMessages: z.object({ sessionId: id, offset: z.number().int().min(0), limit: z.number().int().min(1).max(2000) }).strict(),
  listPolicies: z.object({}).strict(),
  runReplay: replayRequest,
  /**
   * The replay reduced for a chart `buckets` pixel columns wide: per bucket the min / max of each
   * series and the regions of its fullest call; every marker (compression, source compaction, a
   * guard status other than ok) kept exactly. Runs off the request thread; cached by its key.
   */
  getChartView: debugRequest.extend({ buckets: z.number().int().min(16).max(8192) }),
  /** Everything about one call of a replay (the debugger's selected call): see StepDetail. */
  getStepDetail: debugRequest.extend({ step: z.number().int().min(0) }),
  /** The config panel of a policy: one field per setting, derived from the config schema. */
  getConfigFields: z.object({ policy: z.string().min(1).max(128), overrides: overrides.default({}) }).strict(),
  /** Per call: the active tokenizer's estimate against the provider's reported prompt, and the calibrated fit. */
  getAccuracy: z.object({ sessionId: id, tokenizer: z.string().min(1).max(128).optional() }).strict(),
  compare: z
    .object({
      sessionId: id,
      a: z.object({ policy: z.string().min(1).max(128), overrides: overrides.default({}) }).strict(),
      b: z.object({ policy: z.string().min(1).max(128), overrides: overrides.default({}) }).strict(),
      /** A call counts as different when its status changed or its request moved by more than this many tokens. */
      minDelta: z.number().int().min(0).max(10_000_000).default(0),
    })
    .strict(),
  importFiles: z.object({ paths: z.array(z.string().min(1).max(4096)).min(1).max(1000), format: z.string().max(64).optional() }).strict(),
  /** Opens the host's file picker (Electron only; `serve` answers `unsupported`). */
  pickAndImport: z.object({}).strict(),
  cancelImport: z.object({ jobId: id }).strict(),
  exportSession: exportRequest,
  setPinned: z.object({ sessionId: id, messageId: id, pinned: z.boolean() }).strict(),
  /** The raw source record of message `index`, as the file had it (shown as text, never as HTML). */
  getRawRecord: z.object({ sessionId: id, index: z.number().int().min(0) }).strict(),
  /** Saves (or replaces) a user policy from its JSON text: `{ id, label, source?, description?, config }`. */
  savePolicy: z.object({ json: z.string().min(2).max(65_536) }).strict(),
  deletePolicy: z.object({ id: z.string().min(1).max(128) }).strict(),
  /** Any policy (built-in or saved) as a JSON file to edit, share or import elsewhere. */
  exportPolicy: z.object({ id: z.string().min(1).max(128) }).strict(),
  /**
   * What `exportSession` with the same input would save, without the text: its file name, how many
   * messages it holds, and what redaction would replace, by kind. A user pattern that does not
   * compile is reported on its line (and left out of the counts) instead of failing the preview.
   * A newer preview on the same `channel` (default `export`) supersedes the older, which answers
   * `cancelled`.
   */
  previewExport: exportRequest.extend({ channel: z.string().min(1).max(64).optional() }),
  /**
   * Deletes a stored session with its subagents, messages, counts, pins and replay runs (its
   * source file's stored copy too when no other session comes from it). The file on disk stays.
   */
  deleteSession: z.object({ id }).strict(),
  /**
   * The session files agents already wrote on this machine (Claude Code, Codex, Gemini CLI, under
   * their own folders only) and the files uploaded to `serve`, grouped by project, newest first.
   */
  listLocalLogs: z.object({}).strict(),
  /**
   * The tuner: replays the session under every setting of the grid (the product of `sweeps`,
   * `key=from:to:step` or `key=a,b,c`, at most 10,000) on worker threads, on top of `overrides`;
   * answers the frontier and the proposal (TuneResult). A newer sweep on the same channel
   * supersedes the older, which answers `cancelled`.
   */
  runTune: replayRequest.extend({
    sweeps: z.array(z.string().min(3).max(256)).min(1).max(6),
    channel: z.string().min(1).max(64).default('tune'),
  }),
  /** Ends the sweep running on `channel` (its workers stop at once; it answers `cancelled`). */
  cancelTune: z.object({ channel: z.string().min(1).max(64).default('tune') }).strict(),
  /**
   * Follows (`on`) or stops following the source file of a session: while it grows (an agent
   * still writing), its new lines are stored and `sessionUpdated` says so (docs/user-guide.md "Live tail").
   */
  watchSession: z.object({ sessionId: id, on: z.boolean() }).strict(),
  /**
   * A fleet run (docs/fleet.md): library sessions (their source files) and transcript paths (files
   * or folders) replayed under each policy on worker threads into a new Parquet dataset in the
   * host's data folder; `fleetProgress` and `fleetDone` follow it.
   */
  startFleet: z
    .object({
      sessionIds: z.array(id).max(100_000).default([]),
      paths: z.array(z.string().min(1).max(4096)).max(100_000).default([]),
      policies: z.array(z.string().min(1).max(128)).min(1).max(12),
      overrides: overrides.default({}),
      needles: z.array(z.string().min(1).max(512)).max(100).default([]),
      threads: z.number().int().min(1).max(64).optional(),
    })
    .strict(),
  cancelFleet: z.object({ runId: id }).strict(),
  /** The finished (and running) fleet datasets in the host's data folder, newest first. */
  listFleetRuns: z.object({}).strict(),
  /** A dataset's report and its per-session table and histograms: the queries of `ctxscope fleet report`. */
  getFleetResults: z.object({ out: z.string().min(1).max(4096), baseline: z.string().min(1).max(128).optional() }).strict(),
  /** The library session a fleet row stands for (its file imported first when it is not in the library). */
  openFleetSession: z.object({ sourcePath: z.string().min(1).max(4096), sessionId: z.string().min(1).max(1024) }).strict(),
  /**
   * The counterfactual probe at one call (docs/probe.md): what it would send — requests, tokens,
   * estimated cost, where — and whether the user already agreed to send transcripts to that
   * endpoint. Sends nothing.
   */
  planProbe: replayRequest.omit({ needles: true }).extend(probeSettings),
  /**
   * Runs the probe and stores it with the session. `consent`: the user agreed (in the app) to send
   * to this endpoint; needed once per endpoint, remembered after.
   */
  runProbe: replayRequest.omit({ needles: true }).extend({ ...probeSettings, consent: z.boolean().default(false) }),
  /** The probes stored for a session (under a policy, when given): shown again without re-sending. */
  listProbes: z.object({ sessionId: id, policy: z.string().min(1).max(128).optional() }).strict(),
} as const;

export type MethodName = keyof typeof methods;
/** What a caller passes (defaults may be omitted). */
export type MethodInput<K extends MethodName> = z.input<(typeof methods)[K]>;
/** What a handler receives after validation (defaults filled in). */
export type MethodArgs<K extends MethodName> = z.output<(typeof methods)[K]>;

export interface AppInfo {
  readonly version: string;
  readonly host: 'electron' | 'serve';
  readonly dbPath: string;
  /** Session opened at start-up (the bundled sample, or the files given to `serve`). */
  readonly initialSessionId: string | null;
  /** What the user should be told about the database (moved aside as corrupt, opened read-only). */
  readonly notices?: string[];
  /** Imports still running (a big file given to `serve` is opened progressively): the window shows their progress and Cancel. */
  readonly imports?: readonly RunningImport[];
}

/** An import the host is running: its job, the file's name and size. */
export interface RunningImport {
  readonly jobId: string;
  readonly file: string;
  readonly totalBytes: number;
}

export interface SessionSummary {
  readonly id: string;
  readonly title: string;
  readonly format: FormatId;
  readonly model: string | null;
  /** The file it was imported from; on `serve` an uploaded file is `upload:<name>` (host/upload-refs.ts). */
  readonly sourcePath: string | null;
  readonly messages: number;
  readonly steps: number;
  readonly turns: number;
  readonly startedAt: number | null;
  readonly importedAt: number;
  readonly reportedUsage: boolean;
  // The library's columns (computed at import: listing reads rows, never messages).
  /** The subagent's parent session (Claude Code sidechain), null for a top-level session. */
  readonly parentId: string | null;
  /** The tool call in the parent that spawned this subagent, and the parent message holding it. */
  readonly spawnedBy: string | null;
  readonly spawnedAt: number | null;
  /** Index of the session in its file (a file may hold several). */
  readonly position: number;
  /** The directory the agent ran in, when the format records it. */
  readonly cwd: string | null;
  /** Who wrote it: Claude Code, Codex, OpenHands… (from the format). */
  readonly agent: string;
  /** Compactions the agent itself did. */
  readonly sourceCompactions: number;
  /** Provider-reported tokens summed over the calls (prompt and output); 0 without reported usage. */
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** USD from the source's own figures or the model catalog's prices; null when unknown. */
  readonly cost: number | null;
  readonly endedAt: number | null;
  /** Size of the source file in bytes. */
  readonly fileSize: number;
  /** Cached results stored for it (token counts, replay runs): what a delete also removes. */
  readonly cachedResults: number;
  /**
   * What its calls that repeat a call another stored session holds (a resumed session) add to its
   * figures: the library's totals take them out (core/library/repeated-calls.ts). Absent: none.
   */
  readonly repeated?: RepeatedCalls;
}

export interface SessionDetail {
  readonly summary: SessionSummary;
  readonly systemPrompt: string | null;
  readonly tools: readonly { readonly name: string; readonly description: string }[];
  readonly tokenizer: string;
  readonly approximate: boolean;
  /**
   * The totals outside the messages. Per-message counts and roles are not sent here: they come
   * with each page of messages (getMessages), so this answer, asked again at every live-tail
   * append, does not carry two arrays as long as the session (12 MB at 600,000 messages).
   */
  readonly counts: {
    readonly system: number;
    readonly tools: number;
    readonly unlogged: number;
  };
  /** Message index of each turn's first message. */
  readonly turnStarts: readonly number[];
  /** Message index of each step (assistant message). */
  readonly steps: readonly number[];
  readonly sourceCompactions: readonly SourceCompaction[];
  readonly subagents: number;
  /** The subagents stored as sessions of their own (open them by id), in the order of the calls that spawned them. */
  readonly subagentSessions: readonly SessionSummary[];
  readonly warnings: readonly string[];
  readonly modelInfo: { readonly window: number; readonly maxOutput: number; readonly known: boolean; readonly warning?: string };
  /** The policy of the agent that wrote the session (Claude Code → claude-code, Codex → codex, …); the app opens on it. */
  readonly defaultPolicy: string;
}

export interface MessageView {
  readonly index: number;
  readonly id: string;
  readonly role: Role;
  readonly parts: readonly Part[];
  readonly timestamp: number | null;
  readonly tokens: number;
  readonly usage: ReportedUsage | null;
  readonly pinned: boolean;
  /** Parts were shortened for display (the full text stays in the store). */
  readonly truncated: boolean;
}

export interface PolicyInfo {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  /** Which source document or agent documentation it reproduces (S0..S4, or a URL-free name). */
  readonly source: string;
  readonly config: Readonly<Record<string, unknown>>;
  /** Saved by the user (editable, deletable); built-ins are not. */
  readonly saved: boolean;
}

// The view models the engine builds live in src/core/view; the contract re-exports them.
export type {
  BucketSeries,
  ChartMarker,
  ChartView,
  CompressionMarker,
  MessageState,
  ReplayView,
  SourceCompactionMarker,
  SourcedValue,
  StatusMarker,
  StepDetail,
} from '../core/view/replay-view';
export type { ConfigField } from '../core/view/config-field';
export type { ImportPartial } from '../core/view/replay-view';

/** Estimate against provider-reported prompt size, per call, and the calibrated fit. */
export interface AccuracyView {
  readonly tokenizer: string;
  readonly calls: readonly {
    readonly step: number;
    readonly messageIndex: number;
    readonly estimate: number;
    readonly reported: number;
    readonly errorPct: number;
  }[];
  readonly calibration: {
    readonly ratio: number;
    readonly overhead: number;
    /** Median absolute error % on the calls it was fitted on. */
    readonly inSampleError: number;
    /** Fitted on the first half of the calls, median absolute error % on the second half; null with too few calls. */
    readonly outOfSampleError: number | null;
    readonly calls: number;
  } | null;
  /** Why the calibrated tokenizer fell back (no usable usage, rejected fit), when it did. */
  readonly fallback: string | null;
  readonly warnings: readonly string[];
}

/**
 * Two replays of one session: both views, totals side by side, per-step differences (core/replay/compare)
 * — only calls whose status changed or whose request moved by more than `minDelta` — the settings
 * that differ between A and B, and B's compressions (to draw on A's chart).
 */
export type CompareView = ReturnType<typeof comparisonToJSON> & {
  readonly a: ReplayView;
  readonly b: ReplayView;
  /** Dotted config keys whose resolved values differ (policy name aside). */
  readonly configDifferences: readonly { readonly key: string; readonly a: unknown; readonly b: unknown }[];
  readonly bCompressions: readonly Extract<ReplayEvent, { kind: 'compression' }>[];
};

export interface ExportResult {
  readonly fileName: string;
  readonly mime: string;
  readonly text: string;
  readonly redactions: number;
}

/** The export dialog's preview of an export (see `previewExport`). */
export interface ExportPreview {
  readonly fileName: string;
  /** Without the dot: `json`, `jsonl`, `md`, `csv`. */
  readonly extension: string;
  /** Messages of the history exported (the session's, or the window's at the call); null for a report. */
  readonly messages: number | null;
  readonly redactions: number;
  /** Replacements by kind: `email`, `token` (bearer), `api-key`, `github`, `custom`… */
  readonly byKind: Readonly<Record<string, number>>;
  /** One entry per user pattern: null when it compiles, else why it does not. */
  readonly patternProblems: readonly (string | null)[];
}

/** Who wrote a local session file: an agent's own folder (its format, core/formats: `localLogs`), or an upload to `serve`. */
export type LocalLogAgent = FormatId | 'upload';

export interface LocalLogFile {
  /**
   * Where the host reads it (inside one of the listed roots); importFiles takes it as is. On
   * `serve` an uploaded file is `upload:<name>`, never the server's path (host/upload-refs.ts).
   */
  readonly path: string;
  /** The file's name below its project folder. */
  readonly name: string;
  readonly size: number;
  /** Last modified, ms since the epoch. */
  readonly mtime: number;
  /** Sessions already stored from this file; empty when it was never imported. */
  readonly sessionIds: readonly string[];
  /** Imported, but the file's size changed since (an agent still writing it): importing again updates it. */
  readonly changed: boolean;
}

/** One project: Claude Code's cwd, Codex's cwd (else its date folder), Gemini CLI's project hash. */
export interface LocalLogGroup {
  readonly agent: LocalLogAgent;
  /** The agent's name as the library shows it (`Uploaded` for uploads). */
  readonly label?: string;
  readonly project: string;
  /** mtime of its newest file. */
  readonly newest: number;
  /** Newest first. */
  readonly files: readonly LocalLogFile[];
}

export interface LocalLogsView {
  /** Every folder looked at, whether it exists and how many files it holds. */
  readonly roots: readonly {
    readonly agent: LocalLogAgent;
    readonly label?: string;
    readonly path: string;
    readonly exists: boolean;
    readonly files: number;
  }[];
  /** Newest group first. */
  readonly groups: readonly LocalLogGroup[];
  /** Files left out because the listing stops at its cap. */
  readonly truncated: number;
}

export interface MethodOutputs {
  getInfo: AppInfo;
  listSessions: SessionSummary[];
  getSession: SessionDetail;
  getMessages: { total: number; messages: MessageView[] };
  listPolicies: PolicyInfo[];
  runReplay: ReplayView;
  getChartView: ChartViewWire;
  getStepDetail: StepDetail;
  getConfigFields: ConfigField[];
  getAccuracy: AccuracyView;
  compare: CompareView;
  importFiles: { jobId: string };
  pickAndImport: { jobId: string | null };
  cancelImport: { cancelled: boolean };
  exportSession: ExportResult;
  setPinned: { pinned: boolean };
  /** `record` null: the format keeps no per-message record (a JSON document read whole). */
  getRawRecord: { record: string | null; line: number | null };
  savePolicy: PolicyInfo;
  deletePolicy: { deleted: boolean };
  exportPolicy: ExportResult;
  previewExport: ExportPreview;
  /** What went: sessions (itself and its subagents), their messages and calls, cached results. */
  deleteSession: { sessions: number; messages: number; calls: number; cachedResults: number };
  /** Agent session files and uploads, grouped by project, newest first; what is already stored says so. */
  listLocalLogs: LocalLogsView;
  runTune: TuneResult;
  cancelTune: { cancelled: boolean };
  /** `path`: the file followed (null when the session has none). */
  watchSession: { watching: boolean; path: string | null };
  startFleet: { runId: string; out: string; total: number };
  cancelFleet: { cancelled: boolean };
  listFleetRuns: FleetRunInfo[];
  getFleetResults: FleetResults;
  openFleetSession: { sessionId: string };
  planProbe: ProbePlanView;
  runProbe: StoredProbe;
  listProbes: StoredProbe[];
}

/** A table of rows as a fleet query answers it (src/main/fleet/dataset.ts). */
export interface FleetTable {
  readonly columns: readonly string[];
  readonly rows: readonly Record<string, string | number | boolean | null>[];
}

export interface FleetRunInfo {
  readonly out: string;
  readonly name: string;
  readonly policies: readonly string[];
  readonly sessions: number;
  readonly running: boolean;
  readonly finishedAt: string | null;
}

export interface FleetResults {
  readonly out: string;
  readonly policies: readonly string[];
  readonly baseline: string | null;
  readonly perPolicy: FleetTable;
  readonly stopped: FleetTable;
  readonly differ: FleetTable;
  readonly errors: FleetTable;
  readonly sessions: FleetTable;
  readonly compressions: FleetTable;
  readonly lostFacts: FleetTable;
}

/** What a probe would send (planProbe). */
export interface ProbePlanView {
  readonly step: number;
  readonly endpoint: string;
  readonly model: string;
  readonly api: 'openai' | 'anthropic';
  readonly estimate: ProbeEstimate;
  readonly questions: readonly ProbeQuestion[];
  readonly recorded: RecordedAction;
  /** The user already agreed to send transcripts to this endpoint. */
  readonly consented: boolean;
  /** Whether a key bound to this endpoint will go with the requests (never the key itself). */
  readonly withKey: boolean;
  /** The judge, when one is set: its endpoint, consent and key, as for the probe endpoint. */
  readonly judge?: {
    readonly endpoint: string;
    readonly model: string;
    readonly api: 'openai' | 'anthropic';
    readonly consented: boolean;
    readonly withKey: boolean;
  };
}

/** A stored probe run. */
export interface StoredProbe {
  readonly id: number;
  readonly sessionId: string;
  readonly policy: string;
  readonly overrides: Readonly<Record<string, string | number | boolean>>;
  readonly step: number;
  readonly createdAt: number;
  readonly result: ProbeResult;
}

export const events = {
  importProgress: z.object({
    jobId: z.string(),
    file: z.string(),
    bytes: z.number(),
    totalBytes: z.number(),
    messages: z.number(),
    sessions: z.number(),
    bytesPerSecond: z.number(),
    etaMs: z.number().nullable(),
  }),
  importDone: z.object({ jobId: z.string(), sessionIds: z.array(z.string()), reused: z.boolean() }),
  importFailed: z.object({ jobId: z.string(), error: z.string(), cancelled: z.boolean() }),
  /**
   * A big file's first part is stored (it is opened progressively): its sessions can be opened
   * now; they grow (`sessionUpdated`) until `importDone`, and their charts carry `partial` meanwhile.
   */
  importVisible: z.object({ jobId: z.string(), sessionIds: z.array(z.string()) }),
  countsReady: z.object({ sessionId: z.string(), tokenizer: z.string() }),
  /** The desktop menu's File ▸ Export…: the window opens its export dialog. */
  exportRequested: z.object({}),
  /** The host asks the window to show the agent-logs panel (Electron's File ▸ Import Agent Logs…). */
  showLocalLogs: z.object({}),
  /**
   * A followed session changed in the store: its file grew (new messages; the last ones may have
   * been rewritten, e.g. another branch became the main chain) or, with `rewritten`, the file was
   * truncated or rewritten and re-imported whole. `steps` and `messages` are the new totals.
   */
  sessionUpdated: z.object({ sessionId: z.string(), steps: z.number(), messages: z.number(), rewritten: z.boolean() }),
  /**
   * The host started an import of its own (Electron: File ▸ Open…, Open Recent, a second launch
   * with a file, the OS's open-file): the window shows its progress and error panels and opens its
   * session when done, as for an import it started itself. `file` is the file's name (or "N files").
   */
  hostImportStarted: z.object({ jobId: z.string(), file: z.string(), totalBytes: z.number() }),
  /** A fleet run's progress: transcripts done of total, the rate and the time left at it. */
  fleetProgress: z.object({
    runId: z.string(),
    done: z.number(),
    total: z.number(),
    skipped: z.number(),
    errors: z.number(),
    rate: z.number().nullable(),
    etaMs: z.number().nullable(),
  }),
  fleetDone: z.object({ runId: z.string(), out: z.string(), cancelled: z.boolean(), error: z.string().nullable() }),
} as const;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

/**
 * Error codes every transport carries unchanged. `busy`: the host's memory budget and its queue
 * are full (HTTP 409; src/main/host/work-budget.ts).
 */
export type ApiErrorCode = 'bad_input' | 'not_found' | 'unsupported' | 'cancelled' | 'internal' | 'busy';

/** The envelope every transport returns, so errors survive Electron's IPC and HTTP alike. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: { code: ApiErrorCode; message: string } };

export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The renderer's view of a host: every method, plus event subscription. */
export type Api = { [K in MethodName]: (input: MethodInput<K>) => Promise<MethodOutputs[K]> };
export interface ApiClient extends Api {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/**
 * An answer already written as JSON where it was made. The replay worker writes a chart view
 * (hundreds of KB at thousands of markers) as text once: the host then sends that text as it is
 * over HTTP, and over IPC the window parses it, instead of the object being copied from the worker
 * thread (structured clone, both ways) and written as JSON again on the host's thread at every
 * slider move. Plain data: it crosses postMessage and IPC as one string.
 */
export interface JsonText<T> {
  readonly jsonText: string;
  /** What the text holds (never set: for the type only). */
  readonly __holds?: T;
}

export function toJsonText<T>(value: T): JsonText<T> {
  return { jsonText: JSON.stringify(value) };
}

/** Whether an answer is a JsonText. Asked only of a WrittenAhead method's answer: another's may hold anything. */
export function isJsonText(value: unknown): value is JsonText<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { jsonText?: unknown }).jsonText === 'string' &&
    Object.keys(value).length === 1
  );
}

/** The answer itself, parsed when it came as JsonText (a WrittenAhead method's answer). */
export function answerOf<T>(value: T | JsonText<T>): T {
  return isJsonText(value) ? (JSON.parse(value.jsonText) as T) : value;
}

/**
 * The methods whose handlers may answer with JsonText; the transports and the IPC client look
 * for one in these answers only, so no other answer — a transcript's record, say — is ever taken
 * for text to send as it is.
 */
const WRITTEN_AHEAD = ['getChartView'] as const satisfies readonly MethodName[];
export type WrittenAhead = (typeof WRITTEN_AHEAD)[number];
export function isWrittenAhead(method: string): method is WrittenAhead {
  return (WRITTEN_AHEAD as readonly string[]).includes(method);
}
/** What a handler answers: the value, or for WrittenAhead methods the value or its JsonText. */
export type HandlerOutput<K extends MethodName> = K extends WrittenAhead ? MethodOutputs[K] | JsonText<MethodOutputs[K]> : MethodOutputs[K];
/** A host's handler table: one function per method, given validated arguments. */
export type Handlers = { [K in MethodName]: (args: MethodArgs<K>) => Promise<HandlerOutput<K>> };
export type EventSink = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export const METHOD_NAMES = Object.keys(methods) as MethodName[];
export const EVENT_NAMES = Object.keys(events) as EventName[];
/** The one IPC channel prefix; the preload and main both derive channel names from it. */
export const IPC_PREFIX = 'ctxscope:';
export const IPC_EVENT_CHANNEL = 'ctxscope:event';
