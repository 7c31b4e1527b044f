/**
 * gpt-tokenizer's exact count behind the long-run guard: gpt-tokenizer merges a piece in time
 * quadratic in its length, so a text that may hold a long piece (hasLongRun, src/core/tokens/bpe.ts)
 * is counted by core's bounded counter instead — the same exact numbers, O(n log n) on any input.
 * The one path for every exact count with gpt-tokenizer (the bulk workers, `inspect --exact`).
 */
import { hasLongRun } from '../../core/tokens/bpe';
import { getTokenizer } from '../../core/tokens/index';

export type GuardedEncoding = 'o200k_base' | 'cl100k_base';
export type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;

/** Loads the encoding (its rank table takes a while to parse) and answers its guarded counter. */
export async function guardedCounter(encoding: GuardedEncoding): Promise<CountTokens> {
  const m = await (encoding === 'o200k_base' ? import('gpt-tokenizer/encoding/o200k_base') : import('gpt-tokenizer/encoding/cl100k_base'));
  // The default 100k-entry merge cache collapses throughput once full; size it for big sessions.
  m.setMergeCacheSize(1_000_000);
  const fast = m.countTokens as CountTokens;
  const bounded = getTokenizer(`tiktoken:${encoding}`);
  return (text, options) => (hasLongRun(text) ? bounded.countText(text) : fast(text, options));
}
