/**
 * THE path for exact BPE counts outside src/core (the bulk workers, the host's count worker through
 * them, `inspect --exact`): gpt-tokenizer's count behind the long-run guard. gpt-tokenizer merges
 * a piece in time quadratic in its length, so a text that may hold a long piece (hasLongRun,
 * src/core/tokens/bpe.ts) is counted by core's bounded counter instead — the same exact numbers,
 * O(n log n) on any input. Core's counter (on js-tiktoken's rank tables) stays the reference
 * everywhere else; test/integration/count/one-bpe-path.test.ts checks the three agree.
 */
import { hasLongRun } from '../../core/tokens/bpe';
import { getTokenizer } from '../../core/tokens/index';

export type GuardedEncoding = 'o200k_base' | 'cl100k_base';
export type CountTokens = (text: string) => number;

/** Special-token text in a transcript (`<|endoftext|>`) is counted as text, never refused. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/** One load per encoding and thread: a rank table takes a while to parse. */
const loaded = new Map<GuardedEncoding, Promise<CountTokens>>();

/** The guarded counter of `encoding` (loaded on first use, then shared by every caller in this thread). */
export function guardedCounter(encoding: GuardedEncoding): Promise<CountTokens> {
  let p = loaded.get(encoding);
  if (!p) {
    p = load(encoding);
    loaded.set(encoding, p);
  }
  return p;
}

async function load(encoding: GuardedEncoding): Promise<CountTokens> {
  const m = await (encoding === 'o200k_base' ? import('gpt-tokenizer/encoding/o200k_base') : import('gpt-tokenizer/encoding/cl100k_base'));
  // The default 100k-entry merge cache collapses throughput once full; size it for big sessions.
  m.setMergeCacheSize(1_000_000);
  const fast = m.countTokens as (text: string, options: typeof NO_SPECIAL) => number;
  const bounded = getTokenizer(`tiktoken:${encoding}`);
  return (text) => (hasLongRun(text) ? bounded.countText(text) : fast(text, NO_SPECIAL));
}

/** Exact counts of `texts` (0 for an empty one), in order. */
export async function countGuarded(texts: readonly string[], encoding: GuardedEncoding): Promise<Uint32Array> {
  const count = await guardedCounter(encoding);
  const out = new Uint32Array(texts.length);
  for (let i = 0; i < texts.length; i++) out[i] = texts[i] ? count(texts[i]!) : 0;
  return out;
}
