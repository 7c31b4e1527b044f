/**
 * The replay's output. Per-step numbers live in typed arrays (docs/architecture.md): a replay of a long
 * session allocates no object per step. `toJSON` in ./serialize turns it into the CLI's /
 * contract's JSON shape.
 */

/**
 * Ordered by severity (chart-view.ts keeps a bucket's worst). `overflow`: the request is above the
 * model's window — the provider would reject the call (docs/user-guide.md, statuses).
 */
export const STEP_STATUSES = ['ok', 'warn', 'compress', 'skip', 'final', 'abort', 'overflow'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** The regions of the window, bottom to top, as the charts stack them. */
export const REGIONS = ['system', 'unlogged', 'summary', 'history', 'tools', 'output', 'buffer', 'free'] as const;
export type Region = (typeof REGIONS)[number];

export interface ReplaySteps {
  readonly count: number;
  /** Index of the step's assistant message in `Session.messages`. */
  readonly messageIndex: Uint32Array;
  /** 0-based turn of the step (a user message and what follows it; docs/policies.md §Common). */
  readonly turn: Uint32Array;
  /** One array per region (tokens). `unlogged` = calibrated overhead the transcript does not log. */
  readonly regions: Readonly<Record<Region, Float64Array>>;
  /** Estimated request size (system + unlogged + summary + history + tools). */
  readonly total: Float64Array;
  /**
   * The limit the step's policy enforces on the request (docs/policies.md): S1 window − buffer −
   * maxOutput; S2 ratio × window; S3 its trigger basis; S4 its token budget; presets their
   * auto-compact threshold. A step whose request is above it is never `ok`.
   */
  readonly limit: Float64Array;
  /** The policy's compression trigger in tokens at that step; NaN where it has none (a message-count trigger). */
  readonly trigger: Float64Array;
  /** Provider-reported prompt tokens of the original call; NaN where the source has none. */
  readonly reported: Float64Array;
  /** Per call: request tokens billed as cache reads, as cache writes, and the call's cost in USD (docs/cost.md). */
  readonly cacheRead?: Float64Array;
  readonly cacheWrite?: Float64Array;
  readonly cost?: Float64Array;
  /** Index into STEP_STATUSES. */
  readonly status: Uint8Array;
  /** Index into `reasons` (0 = no reason). */
  readonly reasonIndex: Uint16Array;
  readonly reasons: readonly string[];
  /** First history message index still in the window at that step (what is kept is [keptFrom, messageIndex] minus pruned). */
  readonly keptFrom: Uint32Array;
}

export type CompressionPath = 'async' | 'proactive' | 'emergency' | 'strategy';
/** Inclusive message-index range [from, to]. */
export type MessageRange = readonly [number, number];

export type ReplayEvent =
  | {
      readonly kind: 'compression';
      readonly step: number;
      readonly path: CompressionPath;
      readonly strategy: string;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly dropped: readonly MessageRange[];
      readonly kept: readonly MessageRange[];
      /** Tool results replaced by a placeholder (they stay in place). */
      readonly masked?: readonly MessageRange[];
      readonly summary?: string;
      readonly note?: string;
    }
  | { readonly kind: 'warning'; readonly step: number; readonly text: string }
  | {
      readonly kind: 'guard';
      readonly step: number;
      readonly decision: 'ok' | 'skip' | 'final';
      readonly model: string;
      readonly fallback?: string;
      readonly projected: number;
      readonly limit: number;
      readonly reason: string;
    }
  | {
      readonly kind: 'tool-preflight';
      readonly step: number;
      readonly messageIndex: number;
      readonly callId: string;
      /** The mode that handled an oversized output (docs/policies.md §S1), or the tool budget. */
      readonly action: 'full-chunked' | 'read-grep' | 'truncate' | 'head-tail' | 'offload' | 'budget-exceeded';
      readonly bytesBefore: number;
      readonly bytesAfter: number;
      /** full-chunked: the chunk calls the extraction took. */
      readonly chunks?: number;
      /** full-chunked: what those calls were billed — the output's tokens as input, the extraction that stays as output. */
      readonly chunkInput?: number;
      readonly chunkOutput?: number;
      /** budget-exceeded by tokens: the output's tokens and what was left under the limit. */
      readonly tokens?: number;
      readonly remaining?: number;
      readonly reason?: string;
    }
  | {
      readonly kind: 'abort';
      readonly step: number;
      readonly budget: BudgetDimension;
      readonly used: number;
      readonly max: number;
      readonly layer?: 'session' | 'task' | 'agent';
    }
  | { readonly kind: 'backpressure'; readonly step: number; readonly delayMs: number; readonly usage: number }
  | { readonly kind: 'summarizer-failure'; readonly step: number; readonly error: string }
  | {
      readonly kind: 'source-compaction';
      readonly step: number;
      readonly messageIndex: number;
      readonly trigger: string;
      readonly tokensBefore?: number;
      readonly tokensAfter?: number;
      readonly summary?: string;
    };

export type ReplayEventKind = ReplayEvent['kind'];
export type BudgetDimension = 'turns' | 'tokens' | 'toolCalls' | 'cost' | 'minutes';

export interface ReplayTotals {
  readonly billedInputTokens: number;
  readonly cachedInputTokens: number;
  /** Input tokens billed as cache writes (Anthropic; docs/cost.md). Absent in results made before it was counted. */
  readonly cacheWriteTokens?: number;
  readonly outputTokens: number;
  readonly cost: number;
  readonly compressions: number;
  readonly tokensRemoved: number;
  readonly peak: number;
  readonly forcedFinals: number;
  readonly aborts: number;
  /** Calls whose request was above the model's window: a provider rejects them. */
  readonly overflows: number;
}

export interface RetentionLoss {
  /** The fact: an identifier, path, number, name, or a user needle. */
  readonly key: string;
  readonly kind: 'identifier' | 'path' | 'number' | 'name' | 'needle';
  /** Step at which its last mention left the window (history and summary). */
  readonly lostAt: number;
  /** Step at which a later message referred to it. */
  readonly neededAt: number;
}

/** A user needle across the replay: where it first appeared and every step at which it left the window. */
export interface NeedleTrack {
  readonly key: string;
  /** Message index of its first mention, or null when the session never mentions it. */
  readonly firstMessage: number | null;
  /** Steps at which its last mention left the window (history and summary); it may come back and leave again. */
  readonly leftAt: readonly number[];
}

export interface ReplayResult {
  readonly policy: string;
  /** The fully resolved config the replay ran with. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly steps: ReplaySteps;
  readonly events: readonly ReplayEvent[];
  readonly totals: ReplayTotals;
  readonly retention: { readonly lost: readonly RetentionLoss[]; readonly needles?: readonly NeedleTrack[] };
  /** The agent's own compactions against its preset (compaction-check.ts); absent on a lean result or a session without any. */
  readonly sourceCompactions?: readonly SourceCompactionCheck[];
}

/** One compaction the original agent did, checked against its preset (compaction-check.ts, docs/policies.md §Presets). */
export interface SourceCompactionCheck {
  /** The call (0-based step) the compaction precedes; the step count when it came after the last call. */
  readonly call: number;
  readonly trigger: 'auto' | 'manual' | 'unknown';
  readonly preset: 'claude-code' | 'codex';
  /** The size the agent logged before compacting; null when the log does not say. */
  readonly preTokens: number | null;
  /** The agent's measure at `call` rebuilt from the log (see the module comment): how well the log explains `preTokens`. */
  readonly measuredTokens: number | null;
  /** The preset's trigger in tokens at `window`. */
  readonly triggerTokens: number;
  readonly window: number;
  readonly windowSource: string;
  /** The first call of the segment whose measure passes the preset's trigger; null when none up to `call`. */
  readonly predictedCall: number | null;
  /** The agent's measure at `predictedCall`. */
  readonly predictedTokens: number | null;
  /** predictedCall − call. */
  readonly callError: number | null;
  /** (preTokens − triggerTokens) / triggerTokens: how far past (positive) or below (negative) the trigger the agent compacted. */
  readonly tokensError: number | null;
  /** The window at which the preset's trigger equals `preTokens` (what the agent's window likely was when the catalog's does not explain it). */
  readonly impliedWindow: number | null;
  /** Predicted within ±1 call and the trigger explains `preTokens` within 2%. */
  readonly hit: boolean;
  /** In words: why it is or is not a hit, with the numbers. */
  readonly reason: string;
}
