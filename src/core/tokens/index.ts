/**
 * Tokenizers by stable id, the message cost model, and per-session counts
 * (docs/policies.md §Tokenizers and estimates).
 * Ids: `chars4` `runes2.5` `shannon` `s4` `tiktoken:o200k_base` `tiktoken:cl100k_base` `max:<id>`
 * `calibrated`.
 */
import type { Session } from '../model';
import { countCalibrated, countSession } from './count';
import { createCounter, MEDIA_TOKENS as MEDIA_TOKENS_BY_PROVIDER, type CostModelOptions } from './cost';
import { CALIBRATION_BASE, getTokenizer } from './registry';
import type { SessionCounts, TokenizerId } from './types';

export {
  COST_RULES,
  costRulesFor,
  createCounter,
  MEDIA_TOKENS,
  SCHEMA_SCALE_S1,
  scaleFloor,
  type CostModelOptions,
  type CostRules,
} from './cost';
export { countSession, countCalibrated, type Tally } from './count';
export { fitCalibration, type CalibrationFit } from './calibrate';
export { ESTIMATOR_VERSION, countsKey } from './version';
export type { Counter, MessageBreakdown, SessionCounts, Tokenizer, TokenizerId } from './types';
export { CALIBRATION_BASE, getTokenizer, TOKENIZER_IDS } from './registry';

/** The model family's sensible default: OpenAI → its BPE; Claude, Gemini → calibrated when usage is reported. */
export function defaultTokenizerFor(model: string | undefined, hasUsage: boolean): TokenizerId {
  const m = (model ?? '').toLowerCase();
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt|codex|gpt-oss)/.test(m)) return 'tiktoken:o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding)/.test(m)) return 'tiktoken:cl100k_base';
  return hasUsage ? 'calibrated' : 'max:tiktoken:o200k_base';
}

/** S0's flat per-media cost, by provider (a mid-size image elsewhere). */
export function mediaTokensFor(provider: string | undefined): number {
  return MEDIA_TOKENS_BY_PROVIDER[provider ?? ''] ?? MEDIA_TOKENS_BY_PROVIDER['default']!;
}

/** Counts a session under a tokenizer id, handling `calibrated`'s per-session fit. */
export function countWith(session: Session, tokenizerId: TokenizerId, options: CostModelOptions = {}): SessionCounts {
  // A fresh counter makes one pass (calibrated: two, the second from a tally): a memo would
  // only hold a breakdown object per message until the end (a million tiny lines: ~300 MB).
  if (tokenizerId === 'calibrated')
    return countCalibrated(session, createCounter(getTokenizer(CALIBRATION_BASE), { memo: false, ...options }));
  return countSession(session, createCounter(getTokenizer(tokenizerId), { memo: false, ...options }));
}
