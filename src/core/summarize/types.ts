/** Summarizers turn the messages a strategy folds away into summary text. */
import type { Message } from '../model';
import type { SummaryText } from './summary-text';

export interface SummaryRequest {
  readonly messages: readonly Message[];
  /** The summary the window already had; a new summary supersedes it. */
  readonly previousSummary: string | null;
  readonly targetTokens: number;
  /** Where `messages` lie, when they are one run of a longer list (FoldSource). */
  readonly source?: FoldSource;
}

/**
 * The list the folded messages are one contiguous run of, and the run's first index: the replay
 * names its session's message list, so that a local summarizer can read what it keeps per list
 * (the extractive one's layout of every message's items) instead of per message. A hint only: a
 * summarizer checks it (the same message objects at those places) and summarizes the same either way.
 */
export interface FoldSource {
  readonly list: readonly Message[];
  readonly from: number;
}

export interface Summarizer {
  /** `extractive`, `openai`, `anthropic`. */
  readonly id: string;
  /** Model name (part of the cache key). */
  readonly model: string;
  /** The prompt template (part of the cache key); empty for the extractive one. */
  readonly prompt: string;
  /**
   * Computed in this process, deterministically and cheaply (the extractive one): recomputing is
   * cheaper than hashing its input and storing its output, so `cached` passes it through and a
   * replay keeps its summaries in memory by what was folded (replay/compress.ts). A remote one
   * (it costs money and time) is cached by the hash of its input, prompt and model, and stored.
   */
  readonly local?: boolean;
  summarize(request: SummaryRequest, signal?: AbortSignal): Promise<string>;
  /**
   * The same summary, synchronously and laid out rather than written (a local summarizer's): the
   * replay prefers it, and writes a summary's text only when something reads it (summary-text.ts).
   */
  summarizeText?(request: SummaryTextRequest): SummaryText;
}

/** A summary request whose previous summary is held as the replay holds it (summary-text.ts). */
export interface SummaryTextRequest {
  readonly messages: readonly Message[];
  readonly previous: SummaryText | null;
  readonly targetTokens: number;
  /** Where `messages` lie, when they are one run of a longer list (FoldSource). */
  readonly source?: FoldSource;
}

/** The compression prompt of docs/policies.md §S3: target budget, and the conversation's own language. */
export function s3Prompt(conversation: string, targetTokens: number): string {
  return `Compress this conversation into a factual summary.
Focus on:
- Key decisions made
- Important discoveries
- Unresolved questions
- Named entities and their relationships
Keep the summary under ${targetTokens} tokens.
Use the SAME LANGUAGE as the conversation.
Conversation:
${conversation}`;
}

/** One line per message, the way the prompt shows the conversation. */
export function formatMessages(messages: readonly Message[], previousSummary: string | null): string {
  const lines: string[] = [];
  if (previousSummary) lines.push(`[previous summary] ${previousSummary}`);
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.kind === 'text') lines.push(`${m.role}: ${p.text}`);
      else if (p.kind === 'tool_call') lines.push(`${m.role} called ${p.name}(${p.args})`);
      else if (p.kind === 'tool_result') lines.push(`tool ${p.isError ? 'error' : 'result'}: ${p.text}`);
    }
  }
  return lines.join('\n');
}
