/**
 * The character heuristics of the seeds, each a Tokenizer with a stable id
 * (docs/policies.md §Tokenizers and estimates):
 * - `chars4` (S1, S2): ceil(chars / 4), S1's `Math.ceil(text.length / 4)`.
 * - `runes2.5` (S0): runes × 2 / 5 — rune count, so multibyte text is not over-counted.
 * - `shannon` (S3): runes / 4 for prose, runes / 3 for code, floored once per message's text;
 *   the +5 per message and the ×1.1 on the total are the cost model's (cost.ts, count.ts).
 * - `s4` (S4): ceil(chars / 4) of each string its estimator is given — the system prompt, a
 *   message's content, one tool call's arguments; nothing else (cost.ts, `COST_RULES.s4`).
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

const shannonExact = (text: string): number => runeCount(text) / (looksLikeCode(text) ? 3 : 4);
export const shannon: Tokenizer = {
  id: 'shannon',
  label: 'chars / 4, code chars / 3, +5 per message, ×1.1 on the total (S3)',
  approximate: true,
  countText: (text) => Math.floor(shannonExact(text) + 1e-9),
  // Go's integer division of a message's rune count: one floor per message, not per part.
  perMessage: { exact: shannonExact, round: (x) => Math.floor(x + 1e-9) },
};

/**
 * S4's estimateTokens(): the seed names it but gives no ratio; 4 characters per token, rounded up
 * per string, is the chars/4 estimate S1 and S2 use (docs/policies.md §Tokenizers and estimates).
 */
export const s4: Tokenizer = {
  id: 's4',
  label: 'chars / 4 of system prompt, content and tool-call arguments (S4)',
  approximate: true,
  countText: (text) => Math.ceil(text.length / 4),
  perMessage: { exact: (text) => text.length / 4, round: Math.ceil },
};
