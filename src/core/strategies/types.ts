/**
 * The one signature every compression strategy has (docs/architecture.md):
 * `(history, budget, ctx) -> { kept, summaryRequest?, dropped, masked, note }`.
 * `history` is the current window (a live range plus messages kept from before it), `budget`
 * the tokens the history must fit in, `ctx` the session and the window's numbers. A strategy
 * is pure, cuts only at turn boundaries, and never orphans a tool call from its result.
 */
import type { CommonConfig } from '../config-common';
import type { Message } from '../model';
import type { MessageRange } from '../replay/types';

export interface HistoryView {
  /** First message of the live range. */
  readonly from: number;
  /** Messages kept from before `from` (primers), ascending. */
  readonly keepBefore: readonly number[];
  /** The request holds messages before `end`. */
  readonly end: number;
}

/**
 * `C`: the config the strategy reads — the common settings and its own (define.ts); the replay hands
 * every strategy the whole config.
 */
export interface StrategyContext<C extends CommonConfig = CommonConfig> {
  readonly messages: readonly Message[];
  /** Global turn starts, ascending (message indices). */
  readonly turnStarts: readonly number[];
  readonly config: C;
  /** Tokens of [a, b) as they stand in the window (after masking). */
  rangeTokens(a: number, b: number): number;
  /** Tokens of one message as it stands in the window. */
  tokensOf(i: number): number;
  /** Already masked (placeholder) tool-result messages. */
  isMasked(i: number): boolean;
}

export interface StrategyResult {
  /** What stays: the new live range start (a turn boundary) and what is kept before it. */
  readonly kept: { readonly from: number; readonly keepBefore: readonly number[] };
  /** Ranges removed from the history. */
  readonly dropped: readonly MessageRange[];
  /** Tool-result messages whose content becomes a placeholder (they stay in place). */
  readonly masked: readonly number[];
  /** Ranges to fold into the summary, and the size the summary should aim at. */
  readonly summaryRequest?: { readonly ranges: readonly MessageRange[]; readonly targetTokens: number };
  readonly note: string;
  /**
   * The strategy keeps what it must (primers + prompt + recents, docs/policies.md §S3) whatever the
   * budget: it never trims them to meet a number. Whether the target was met is known only once
   * the summary is made, so the replay checks the request it actually sends (kept messages + the
   * summary produced) against the target and says so in the note (replay/compress.ts).
   */
  readonly keptWhateverTarget?: boolean;
}

export type Strategy<C extends CommonConfig = CommonConfig> = (
  history: HistoryView,
  budget: number,
  ctx: StrategyContext<C>,
) => StrategyResult;
