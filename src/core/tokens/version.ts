/**
 * The version of what the estimators count (docs/policies.md §Tokenizers and estimates). Stored
 * counts are kept under (session, tokenizer @ this version): when a tokenizer or the message cost
 * model changes what it counts — S3's floor moving from each message to the total, a new per-message
 * overhead, an encoding update — bump it, and every count stored by the older estimator is ignored
 * and recomputed instead of being replayed as if it were current.
 *
 * 1: the first versioned counts (every estimate as docs/policies.md states it).
 * 2: S0's `runes2.5` counts each tool call's type (docs/policies.md §S0, estimate).
 * 3: the calibrated fit keeps the best line with overhead ≥ 0 (through the origin) where the free
 *    line's overhead came out negative, instead of a fixed offset (src/core/tokens/calibrate.ts).
 */
export const ESTIMATOR_VERSION = 3;

/** The key a count of `tokenizer` is stored under by the estimator of `version`. */
export function countsKey(tokenizer: string, version: number = ESTIMATOR_VERSION): string {
  return `${tokenizer}@v${version}`;
}
