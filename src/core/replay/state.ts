/**
 * What one replay holds while it runs: the setup every handler reads (config, counts, limits,
 * shape of the session, pins) and the few things the pass changes (the window, the summary, the
 * counters). Handlers get this one object; each changes only what its concern owns.
 */
import type { ResolvedLimits } from '../budget/limits';
import type { ModelInfo } from '../catalog';
import type { ReplayConfig } from '../config';
import type { Message, Session } from '../model';
import type { Strategy } from '../strategies/index';
import type { SummaryText } from '../summarize/summary-text';
import type { Summarizer } from '../summarize/types';
import type { SessionCounts } from '../tokens/index';
import type { CompressionLog } from './compressions';
import type { Enforcement } from './enforce';
import type { RetentionTracker } from './retention';
import type { ReplayEvent, StepStatus } from './types';
import type { WindowState } from './window';

/** Steps, turns and turn starts of a message list (fixed per session, cached for sweeps). */
export interface SessionShape {
  /** Message index of each step (assistant message). */
  readonly stepMsg: Uint32Array;
  readonly turnOfMsg: Uint32Array;
  /** Message index where each turn starts, ascending. */
  readonly starts: readonly number[];
  /** Tool calls each message makes (its tool_call parts): arrival adds them up without reading the parts. */
  readonly toolCallsOf: Uint32Array;
  /**
   * What each message reports of its call, read once per list: the replay reads it at every call,
   * and reaching into 10,000 message objects per replay led a cold replay's own time.
   * usageAt[i] is 1 when message i reports usage; promptOf[i] is then promptTokens of it.
   */
  readonly usageAt: Uint8Array;
  readonly promptOf: Float64Array;
  /** outputAt[i] is 1 when message i's `usage?.output` is not nullish; outputOf[i] is then that output. */
  readonly outputAt: Uint8Array;
  readonly outputOf: Float64Array;
  /** Whether any message reports usage (a tokenizer and the emergency path's reference depend on it). */
  readonly anyUsage: boolean;
}

/** Pinned messages (docs/policies.md §Common, pinning): never dropped, never masked. */
export interface Pins {
  readonly any: boolean;
  /** Pinned message indices, ascending. */
  readonly sorted: Int32Array;
  isPinned(i: number): boolean;
}

/** The running totals of a replay (ReplayTotals while it is built). */
export interface RunningTotals {
  billedInputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  cost: number;
  compressions: number;
  tokensRemoved: number;
  peak: number;
  forcedFinals: number;
  aborts: number;
  overflows: number;
}

export interface ReplayState {
  /** ReplayOptions.detail 'totals': handlers on a hot path skip reason text and events (statuses and totals unchanged). */
  readonly lean: boolean;
  readonly session: Session;
  readonly messages: readonly Message[];
  readonly config: ReplayConfig;
  readonly counts: SessionCounts;
  /** Counts standing in for the provider's (S0's emergency path without reported usage). */
  readonly reference: SessionCounts | undefined;
  readonly limits: ResolvedLimits;
  readonly enforcement: Enforcement;
  /** system + unlogged + tool definitions: the regions no compression touches. */
  readonly fixed: number;
  readonly shape: SessionShape;
  readonly pins: Pins;
  /** Counts a text (a summary, a note) as the config's tokenizer does. */
  readonly countText: (text: string) => number;
  /** Counts a summary as countText counts its text, without writing the text (summary-text.ts). */
  readonly countSummary: (summary: SummaryText) => number;
  readonly summarizer: Summarizer | undefined;
  readonly customStrategies: ReadonlyMap<string, Strategy>;
  readonly model: ModelInfo | undefined;
  readonly win: WindowState;
  readonly retention: RetentionTracker;
  /** Every event but the compressions, which are kept as columns in `compressions` (compressions.ts). */
  readonly events: ReplayEvent[];
  readonly compressions: CompressionLog;
  readonly totals: RunningTotals;
  summary: SummaryText | null;
  summaryTokens: number;
  /** Tool calls the agent has made so far (assistant messages before the current call). */
  toolCalls: number;
  /** LLM calls made so far (S4's turns). */
  callsMade: number;
  /** Step at which S1's tool budget was found exceeded (its final turn), −1 until then. */
  toolBudgetHitAt: number;
  /** Why the run ended (an abort, or a forced final turn that was taken); null while it goes on. */
  ended: 'abort' | 'final' | null;
}

/**
 * A reason worded only if someone reads it (steps.ts, `stepReason`): the words and the numbers
 * they need. A policy compressing at every call gave every call its own sentence ("61 messages >
 * 60, compaction applied: 48,113 before → 47,982 after"), which was formatted, hashed to be
 * interned and kept for the life of the result, while the views read the reason of one call.
 */
export interface DeferredReason {
  /** A module-level function (no closure per call): the text of numbers[0..5] and `name`. */
  readonly words: (n: ArrayLike<number>, at: number, name: string) => string;
  readonly n0: number;
  readonly n1: number;
  readonly n2: number;
  readonly n3: number;
  readonly n4: number;
  readonly n5: number;
  readonly name: string;
}

/** What the handlers decide about one call, in order; the last word wins where they disagree. */
export interface StepDecision {
  status: StepStatus;
  /** The reason as text; '' with `deferred` set means the deferred one (a later handler's text wins). */
  reason: string;
  deferred: DeferredReason | undefined;
  /** The limit the policy enforces at this call (a fallback model's on a skipped call). */
  limit: number;
  /** The model that takes the call (a fallback after an S1 skip). */
  model: ModelInfo | undefined;
}

/** The request as it stands before message `end`: fixed regions + summary + kept history. */
export function requestAt(s: ReplayState, end: number): number {
  return s.fixed + s.summaryTokens + s.win.historyTokens(end);
}

/**
 * A whole number as `toLocaleString('en-US')` writes it (12,345), grouped by hand for a
 * non-negative safe integer: ICU's formatting costs microseconds, and a policy compressing at every
 * call words two or three numbers per call. Anything else (negative, -0, huge, NaN) goes to ICU.
 */
export const int = (n: number): string => {
  const r = Math.round(n);
  if (r < 0 || Object.is(r, -0) || !Number.isSafeInteger(r)) return r.toLocaleString('en-US');
  if (r < 1000) return String(r);
  // Groups of three from a table, divided exactly (r − r % 1000 is a multiple of 1000).
  let rest = r;
  let out = '';
  while (rest >= 1000) {
    const g = rest % 1000;
    out = out === '' ? THREE_DIGITS[g]! : THREE_DIGITS[g]! + ',' + out;
    rest = (rest - g) / 1000;
  }
  return String(rest) + ',' + out;
};
const THREE_DIGITS: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
/** A share as a whole percentage, truncated like S2's int() (87.9% → 87%). */
export const pct = (part: number, whole: number): string => `${whole > 0 ? Math.floor((part / whole) * 100 + 1e-9) : 0}%`;
