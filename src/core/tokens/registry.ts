/**
 * Tokenizers by stable id (docs/policies.md §Tokenizers and estimates). Apart from index.ts so
 * that the modules index.ts gathers (sent-as.ts among them) can look a tokenizer up without
 * importing index.ts back: no import circle.
 */
import { cl100kBase, o200kBase } from './bpe';
import { chars4, runes25, s4, shannon } from './heuristics';
import type { Tokenizer, TokenizerId } from './types';

const BASE: Readonly<Record<string, Tokenizer>> = {
  chars4,
  'runes2.5': runes25,
  shannon,
  s4,
  'tiktoken:o200k_base': o200kBase,
  'tiktoken:cl100k_base': cl100kBase,
};

/** The tokenizer `calibrated` fits on top of. */
export const CALIBRATION_BASE = 'tiktoken:o200k_base';

export const TOKENIZER_IDS: readonly string[] = [...Object.keys(BASE), 'max:tiktoken:o200k_base', 'max:tiktoken:cl100k_base', 'calibrated'];

const maxCache = new Map<string, Tokenizer>();

/** S1's combined estimate: the higher of a tokenizer and chars/4. */
function maxOf(inner: Tokenizer): Tokenizer {
  let t = maxCache.get(inner.id);
  if (!t) {
    t = {
      id: `max:${inner.id}`,
      label: `max(${inner.label}, chars/4) (S1)`,
      approximate: true,
      countText: (s) => Math.max(inner.countText(s), chars4.countText(s)),
    };
    maxCache.set(inner.id, t);
  }
  return t;
}

export function getTokenizer(id: TokenizerId): Tokenizer {
  const base = BASE[id];
  if (base) return base;
  if (id.startsWith('max:')) return maxOf(getTokenizer(id.slice(4)));
  // `calibrated` counts with its base tokenizer; the fit is applied per session (countWith).
  if (id === 'calibrated')
    return { ...BASE[CALIBRATION_BASE]!, id: 'calibrated', label: 'calibrated to reported usage', approximate: true };
  throw new Error(`unknown tokenizer "${id}" (known: ${TOKENIZER_IDS.join(', ')}, or max:<id>)`);
}
