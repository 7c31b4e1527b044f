/**
 * The counterfactual probe's data (docs/probe.md §Probe): at one call, the request the agent really
 * sent (a, "original") and the request under a policy (b, "policy") are each sent N times to a model
 * the user chose; its next action and its answers to recall questions are compared.
 */
import type { LedgerKind } from '../ledger/extract';
import type { Interval, Verdict } from './stats';

export type ProbeApi = 'openai' | 'anthropic';
export type ProbeSide = 'original' | 'policy';
export const PROBE_SIDES: readonly ProbeSide[] = ['original', 'policy'];

export interface ProbeSettings {
  readonly api: ProbeApi;
  readonly endpoint: string;
  readonly model: string;
  readonly replicates: number;
  readonly temperature: number;
  /** Most tokens asked for per answer. */
  readonly maxAnswerTokens: number;
  /** The judge that grades recall answers too (./judge.ts), when the user configured one. */
  readonly judge?: JudgeSettings;
}

/** A judge endpoint and model: its own endpoint, its own key (bound to that endpoint only). */
export interface JudgeSettings {
  readonly api: ProbeApi;
  readonly endpoint: string;
  readonly model: string;
}

export interface JudgeEstimate {
  readonly requests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** USD, or null when the judge model's price is unknown. */
  readonly cost: number | null;
  readonly summary: string;
}

export interface ProbeQuestion {
  readonly id: string;
  readonly kind: LedgerKind;
  readonly text: string;
  /** The value a correct answer contains. */
  readonly expected: string;
  /** The message the item came from. */
  readonly messageIndex: number;
}

/** The agent's recorded next action at the call, what each replicate is compared with. */
export type RecordedAction =
  { readonly kind: 'tool'; readonly name: string; readonly args: string } | { readonly kind: 'text'; readonly text: string };

/** How a replicate's next action compares with the recorded one. */
export type ActionMatch = 'same-call' | 'same-tool' | 'other-tool' | 'text-instead' | 'text';

export interface ProbeAnswer {
  readonly side: ProbeSide;
  readonly replicate: number;
  /** `next` (the next action) or a question's id. */
  readonly task: string;
  /** The model's text, or its tool call as `name(args)`; null after an error. */
  readonly answer: string | null;
  readonly tool?: { readonly name: string; readonly args: string };
  /** A replicate that failed for good (timeouts, HTTP errors, malformed answers after retries). */
  readonly error?: string;
  /** Recall: the deterministic match against the item's value. */
  readonly correct?: boolean;
  /** Recall, with a judge: its grade (true = CORRECT), its own words, or why grading failed. */
  readonly judged?: boolean;
  readonly judgeAnswer?: string;
  readonly judgeError?: string;
  /** Next action: how it compares with the recorded one; `similarity` for a text answer to a text. */
  readonly match?: ActionMatch;
  readonly similarity?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

export interface ProbeTally {
  readonly task: string;
  /** Successes, answered replicates, failed replicates, per side; a success is a correct answer or the agent's own call (same call). */
  readonly original: { readonly k: number; readonly n: number; readonly errors: number; readonly interval: Interval };
  readonly policy: { readonly k: number; readonly n: number; readonly errors: number; readonly interval: Interval };
  readonly verdict: Verdict;
  /** With a judge, a question's tally by the judge's grades (an answer it failed to grade is left out of n). */
  readonly judge?: {
    readonly original: { readonly k: number; readonly n: number; readonly errors: number; readonly interval: Interval };
    readonly policy: { readonly k: number; readonly n: number; readonly errors: number; readonly interval: Interval };
    readonly verdict: Verdict;
  };
}

export interface ProbeEstimate {
  /** Tokens of one request of each side (the context alone). */
  readonly contextTokens: Readonly<Record<ProbeSide, number>>;
  readonly requests: number;
  readonly inputTokens: number;
  /** Most output tokens the answers may take. */
  readonly outputTokens: number;
  /** USD, or null when the model's price is unknown (a local model costs nothing per token). */
  readonly cost: number | null;
  /** What leaves the machine, in words. */
  readonly summary: string;
  /** With a judge, what grading sends besides (cost and tokens above do not include it). */
  readonly judge?: JudgeEstimate;
}

export interface ProbeResult {
  readonly version: 1;
  readonly policy: string;
  readonly step: number;
  readonly messageIndex: number;
  readonly settings: ProbeSettings;
  readonly recorded: RecordedAction;
  readonly questions: readonly ProbeQuestion[];
  readonly estimate: ProbeEstimate;
  readonly answers: readonly ProbeAnswer[];
  readonly tallies: readonly ProbeTally[];
  readonly startedAt: number;
  readonly finishedAt: number;
}
