/**
 * The character heuristics of the seeds, each a Tokenizer with a stable id:
 * - `chars4` (S1, S2): ceil(chars / 4), S1's `Math.ceil(text.length / 4)`.
 * - `runes2.5` (S0): runes × 2 / 5 — rune count, so multibyte text is not over-counted.
 * - `shannon` (S3): runes / 4 for prose, runes / 3 for code; the +5 per message and the ×1.1
 *   safety margin are applied per message by the cost model (see `messageOverhead`, `scale`).
 */
import type { Tokenizer } from './types';

/** Code points, not UTF-16 units: "😀" is one rune. */
export function runeCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low surrogate is one rune.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export const chars4: Tokenizer = {
  id: 'chars4',
  label: 'chars / 4 (S1, S2)',
  approximate: true,
  countText: (text) => Math.ceil(text.length / 4),
};

export const runes25: Tokenizer = {
  id: 'runes2.5',
  label: 'runes × 2 / 5 (S0)',
  approximate: true,
  countText: (text) => Math.floor((runeCount(text) * 2) / 5),
};

const CODE_CHARS = /[{}()[\];=<>]/g;

/** S3 counts code at 3 chars per token: text dense in brackets, braces and operators, or fenced. */
export function looksLikeCode(text: string): boolean {
  if (text.length < 40) return false;
  if (text.includes('```')) return true;
  const symbols = text.match(CODE_CHARS)?.length ?? 0;
  return symbols / text.length > 0.04;
}

export const shannon: Tokenizer = {
  id: 'shannon',
  label: 'chars / 4, code chars / 3, +5 per message, ×1.1 (S3)',
  approximate: true,
  countText: (text) => Math.floor(runeCount(text) / (looksLikeCode(text) ? 3 : 4)),
};
