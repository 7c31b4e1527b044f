/**
 * The replay's view models: what the engine builds for a person to read (a replay as JSON, a chart's
 * buckets and markers, one call in detail). Plain data; the contract (src/shared/api.ts) re-exports
 * them, so the engine never imports the contract.
 */
import type { LossLedger } from '../replay/ledger';
import type {
  BudgetDimension,
  CompressionPath,
  MessageRange,
  NeedleTrack,
  Region,
  ReplayEvent,
  ReplayTotals,
  RetentionLoss,
  SourceCompactionCheck,
  StepStatus,
} from '../replay/types';

/** A ReplayResult as JSON: typed arrays become number arrays, status codes become names. */
export interface ReplayView {
  readonly policy: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly steps: {
    readonly messageIndex: readonly number[];
    readonly turn: readonly number[];
    readonly regions: {
      readonly system: readonly number[];
      readonly unlogged: readonly number[];
      readonly summary: readonly number[];
      readonly history: readonly number[];
      readonly tools: readonly number[];
      readonly output: readonly number[];
      readonly buffer: readonly number[];
      readonly free: readonly number[];
    };
    readonly total: readonly number[];
    readonly limit: readonly number[];
    /** The policy's trigger in tokens; null where it has none. */
    readonly trigger: readonly (number | null)[];
    /** null where the source has no reported usage for the call. */
    readonly reported: readonly (number | null)[];
    readonly status: readonly StepStatus[];
    readonly reason: readonly string[];
    readonly keptFrom: readonly number[];
  };
  /** Summary texts are left out (a compression's and a source compaction's): getStepDetail carries them. */
  readonly events: readonly ReplayEvent[];
  readonly totals: ReplayTotals;
  readonly retention: { readonly lost: readonly RetentionLoss[]; readonly needles?: readonly NeedleTrack[] };
}

/** Min and max of one series over each bucket of calls; null where no call of the bucket has a value. */
export interface BucketSeries {
  readonly min: readonly (number | null)[];
  readonly max: readonly (number | null)[];
}

/**
 * A guard status other than ok, a compression (by path) or a source compaction, at one call. Never
 * downsampled. Markers carry numbers, not prose: a replay has one per compression (thousands at
 * 10,000 calls), and the renderer writes the one line a person reads only for the markers on
 * screen (src/renderer/src/model/marker-label.ts).
 */
export type ChartMarker = CompressionMarker | SourceCompactionMarker | StatusMarker;

interface MarkerSpan {
  readonly step: number;
  /**
   * Last call of a run of consecutive calls drawn as one marker (compressions of one path and
   * strategy at every call, a status whose reason changes only in its numbers, the calls after a
   * final / abort). Absent for a single call.
   */
  readonly until?: number;
}

/** A compression the replay ran; with `until`, one of a run at every call from `step` to `until`. */
export interface CompressionMarker extends MarkerSpan {
  readonly kind: 'compression';
  readonly path: CompressionPath;
  readonly strategy: string;
  /** The request before and after the (first) compression. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** A run's last compression (present with `until`). */
  readonly lastTokensBefore?: number;
  readonly lastTokensAfter?: number;
}

/** A compaction the original agent did (what the transcript records). */
export interface SourceCompactionMarker extends MarkerSpan {
  readonly kind: 'source-compaction';
  /** The agent's own word for why (auto, manual, …). */
  readonly trigger: string;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
}

/** A guard status other than ok / compress, from `step` (to `until` for a run). */
export interface StatusMarker extends MarkerSpan {
  readonly kind: 'warn' | 'skip' | 'final' | 'abort' | 'overflow';
  /** The guard's reason at the run's first call, as the replay wrote it ('' when it gave none). */
  readonly reason: string;
}

/**
 * A replay reduced to what a chart `buckets` wide draws (Perfetto's tracks). Bucket b covers calls
 * [bucketStart[b], bucketStart[b + 1]) (the last one ends at `stepCount`); with fewer calls than
 * buckets each bucket is one call and every figure is exact.
 */
export interface ChartView {
  /** Identifies the replay on the host; detail requests with the same inputs reuse it. */
  readonly key: string;
  readonly policy: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly stepCount: number;
  readonly bucketStart: readonly number[];
  /** The call with the largest request in each bucket: its regions are the stack drawn for the bucket. */
  readonly peakStep: readonly number[];
  readonly regions: Readonly<Record<Region, readonly number[]>>;
  readonly total: BucketSeries;
  readonly limit: BucketSeries;
  readonly trigger: BucketSeries;
  readonly reported: BucketSeries;
  readonly window: BucketSeries;
  /** The worst status in each bucket (abort > final > skip > compress > warn > ok). */
  readonly status: readonly StepStatus[];
  /** Calls at which a turn begins (a user message arrived before them). */
  readonly turnStarts: readonly number[];
  readonly markers: readonly ChartMarker[];
  readonly totals: ReplayTotals;
  readonly retention: { readonly lost: readonly RetentionLoss[]; readonly needles?: readonly NeedleTrack[] };
  /** Fallbacks and notes the user must see (unknown model, calibration rejected, summarizer missing, clamped trigger). */
  readonly warnings: readonly string[];
  /** The agent's own compactions against its preset: real vs predicted (core/replay/compaction-check.ts). */
  readonly sourceCompactions?: readonly SourceCompactionCheck[];
  /** The session is still being imported: this chart covers calls 1–stepCount of a longer file (absent once it is whole). */
  readonly partial?: ImportPartial;
}

/** One number and where it came from (request, model catalog, provider, transcript, default, policy). */
export interface SourcedValue {
  readonly value: number;
  readonly source: string;
}

/** What a message is at the selected call. */
export type MessageState = 'window' | 'summarised' | 'masked' | 'dropped' | 'future';

/** Everything the debugger shows about one call. */
export interface StepDetail {
  readonly key: string;
  readonly step: number;
  readonly stepCount: number;
  readonly messageIndex: number;
  /** 0-based turn, the same numbering the chart and the CLI's JSON use. */
  readonly turn: number;
  readonly status: StepStatus;
  readonly reason: string;
  readonly request: number;
  readonly reported: number | null;
  readonly regions: Readonly<Record<Region, number>>;
  readonly window: SourcedValue;
  /** The limit the policy enforces, how it is derived (e.g. "window − buffer − maxOutput") and its parts. */
  readonly limit: {
    readonly value: number;
    readonly formula: string;
    readonly parts: readonly ({ readonly name: string } & SourcedValue)[];
  };
  /** The compression trigger in tokens and its basis (e.g. "75% of window"); null when the policy triggers on message count only. */
  readonly trigger: { readonly value: number; readonly basis: string } | null;
  /**
   * Every budget dimension in force at this call, per layer (S3 (docs/policies.md §S3): session = `budget`, task, agent):
   * what the calls before it used (turns = LLM calls made), against the layer's limit. `pending`:
   * the tokens of this call a layer that projects (S3's CheckBudget, includeRequest) adds to them;
   * `pct` is of used + pending.
   */
  readonly budgets: readonly {
    readonly layer: string;
    readonly dimension: BudgetDimension;
    readonly used: number;
    readonly pending?: number;
    readonly limit: number;
    readonly pct: number;
  }[];
  /** The compression that ran before this call, if one did. */
  readonly compression: {
    readonly path: CompressionPath;
    readonly strategy: string;
    readonly tokensBefore: number;
    readonly tokensAfter: number;
    readonly dropped: readonly MessageRange[];
    readonly masked: readonly MessageRange[];
    /** Messages folded into the summary by it. */
    readonly summarised: readonly MessageRange[];
    readonly summary: string | null;
    /** The summary before this compression (the before side of the before/after view). */
    readonly summaryBefore: string | null;
    /** History messages in the request before the compression. */
    readonly before: readonly MessageRange[];
    readonly note: string;
  } | null;
  /** What left the model's view before this call (its compression, the agent's own compaction), item by item; absent when nothing did. */
  readonly ledger?: readonly LossLedger[];
  /** Exactly what the model receives at this call, region by region. */
  readonly context: {
    readonly system: { readonly tokens: number; readonly text: string | null };
    /** The calibrated overhead the transcript does not log: inferred, not read. */
    readonly unlogged: { readonly tokens: number; readonly inferred: true };
    readonly summary: { readonly tokens: number; readonly text: string | null };
    /**
     * History messages in the request, as index ranges (fetch them with getMessages); `reduced`: tool
     * results in it that S1's tool preflight cut or stored aside, as the model receives them.
     */
    readonly history: {
      readonly tokens: number;
      readonly messages: number;
      readonly ranges: readonly MessageRange[];
      readonly masked: readonly MessageRange[];
      readonly reduced: readonly {
        readonly messageIndex: number;
        readonly action: string;
        readonly bytesBefore: number;
        readonly bytesAfter: number;
      }[];
      /**
       * Messages in it that the original agent sent rewritten at this call (its history processor, e.g.
       * SWE-agent's elided observations; `Message.sentAs`), with the text the model received in their
       * place. They are also in `masked`.
       */
      readonly sentAs: readonly { readonly messageIndex: number; readonly text: string }[];
    };
    readonly tools: { readonly tokens: number; readonly names: readonly string[] };
  };
  /** Run-length state of every message up to this call: [from, to] inclusive and its state. */
  readonly messageStates: readonly (readonly [number, number, MessageState])[];
  /** The events recorded at this call. */
  readonly events: readonly ReplayEvent[];
}

/**
 * A session still being imported (a big file is opened progressively: docs/user-guide.md
 * "Opening a transcript"): `bytes` of the file's `totalBytes` are stored, and a replay or chart
 * covers the calls stored so far only. Cancelling the import deletes the session.
 */
export interface ImportPartial {
  readonly jobId: string;
  readonly bytes: number;
  readonly totalBytes: number;
}
