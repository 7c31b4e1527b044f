/**
 * OpenAI's BPE encodings through js-tiktoken (the reference the tests compare against). The
 * rank tables are parsed once, on first use, not at import. Special-token text such as
 * `<|endoftext|>` in a transcript is counted as ordinary text, never rejected.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import type { Tokenizer } from './types';

function lazyBpe(id: string, label: string, ranks: ConstructorParameters<typeof Tiktoken>[0]): Tokenizer {
  let encoder: Tiktoken | undefined;
  return {
    id,
    label,
    approximate: false,
    countText(text) {
      if (text.length === 0) return 0;
      encoder ??= new Tiktoken(ranks);
      return encoder.encode(text, [], []).length;
    },
  };
}

export const o200kBase = lazyBpe('tiktoken:o200k_base', 'o200k_base (tiktoken)', o200k);
export const cl100kBase = lazyBpe('tiktoken:cl100k_base', 'cl100k_base (tiktoken)', cl100k);
