import type { Message, ToolDef } from '../model';

/**
 * Stable tokenizer ids (docs/policies.md §Tokenizers and estimates; used in config, the CLI, the store's count cache and the UI):
 * `chars4` (S1, S2), `runes2.5` (S0), `shannon` (S3), `s4` (S4), `tiktoken:o200k_base`, `tiktoken:cl100k_base`,
 * `max:<id>` (S1: max(tokenizer, chars/4)), `calibrated` (fit to reported usage).
 */
export type TokenizerId = string;

/** Counts the tokens of a piece of text. Pure and deterministic. */
export interface Tokenizer {
  readonly id: TokenizerId;
  /** Human label, e.g. "o200k (tiktoken)". */
  readonly label: string;
  /** True when the count is a heuristic or a different model family's BPE. */
  readonly approximate: boolean;
  countText(text: string): number;
  /**
   * For estimators defined on a message's whole content string (S3's `len([]rune(msg.Content)) / 4`,
   * S4's `estimateTokens(msg.content)`): the unrounded count of one text, and the rounding taken
   * once over a message's text parts, so a message in several parts counts as the seed counts it.
   */
  readonly perMessage?: { exact(text: string): number; round(x: number): number };
}

/** Per-message token breakdown under one tokenizer and cost model. */
export interface MessageBreakdown {
  readonly content: number;
  readonly reasoning: number;
  readonly toolCalls: number;
  readonly toolResults: number;
  readonly media: number;
  /** The per-message overhead and what the scale (S3's ×1.1) adds: total = content + reasoning + toolCalls + toolResults + overhead + media. */
  readonly overhead: number;
  /** content + reasoning + tool calls + results + the per-message overhead, before the scale. */
  readonly units: number;
  /** The message counted on its own: floor(units × scale) + media. In a session see `countSession`. */
  readonly total: number;
}

/**
 * Per-session counts, one entry per history message, in typed arrays (docs/architecture.md: numbers per
 * step live in typed arrays). `perMessage[i]` is the total of message i. Regions that are
 * not history are separate numbers.
 */
export interface SessionCounts {
  readonly tokenizer: TokenizerId;
  readonly perMessage: Uint32Array;
  /** prefix[i] = sum of perMessage[0..i); length = messages + 1. */
  readonly prefix: Float64Array;
  readonly system: number;
  readonly tools: number;
  /** Fitted overhead of what the transcript does not log (calibrated tokenizer only), else 0. */
  readonly unlogged: number;
  readonly approximate: boolean;
}

/** Counts messages, texts and tool definitions; caches per (message, tokenizer). */
export interface Counter {
  readonly tokenizer: Tokenizer;
  /** Multiplier on a request's total (S3's ×1.1), floored once per total; 1 for most estimators. */
  readonly scale: number;
  message(m: Message): MessageBreakdown;
  text(s: string): number;
  /** The system prompt's units before the scale: its text, plus a message's overhead where the seed counts it as one (S3). */
  system(text: string): number;
  tools(defs: readonly ToolDef[]): number;
}
