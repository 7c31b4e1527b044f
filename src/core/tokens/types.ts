import type { Message, ToolDef } from '../model';

/**
 * Stable tokenizer ids (used in config, the CLI, the store's count cache and the UI):
 * `chars4` (S1, S2), `runes2.5` (S0), `shannon` (S3), `tiktoken:o200k_base`, `tiktoken:cl100k_base`,
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
}

/** Per-message token breakdown under one tokenizer and cost model. */
export interface MessageBreakdown {
  readonly content: number;
  readonly reasoning: number;
  readonly toolCalls: number;
  readonly toolResults: number;
  readonly media: number;
  readonly overhead: number;
  readonly total: number;
}

/**
 * Per-session counts, one entry per history message, in typed arrays (DESIGN.md: numbers per
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
  message(m: Message): MessageBreakdown;
  text(s: string): number;
  tools(defs: readonly ToolDef[]): number;
}
