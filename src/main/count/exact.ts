/**
 * A session's exact counts through the bulk pool: one pass of the engine's cost model collects
 * every text it would tokenise, the pool counts the distinct texts on every core (gpt-tokenizer,
 * which matches js-tiktoken), and a second pass of the same cost model reads the numbers back.
 * The result is what `countWith` returns for the same tokenizer id, only faster; tokenizers that
 * are not OpenAI BPE based (chars/4, runes, shannon) are left to `countWith`.
 */
import type { Session } from '../../core/model';
import {
  CALIBRATION_BASE,
  countCalibrated,
  countSession,
  countWith,
  createCounter,
  getTokenizer,
  type CostModelOptions,
  type SessionCounts,
  type Tokenizer,
} from '../../core/tokens/index';
import type { BpeEncoding, BulkCounter } from './bulk';

/** The BPE encoding a tokenizer id counts with, or undefined when it is not BPE based. */
export function bpeEncodingOf(tokenizerId: string): BpeEncoding | undefined {
  const base = tokenizerId === 'calibrated' ? CALIBRATION_BASE : tokenizerId.startsWith('max:') ? tokenizerId.slice(4) : tokenizerId;
  if (base === 'tiktoken:o200k_base') return 'o200k_base';
  if (base === 'tiktoken:cl100k_base') return 'cl100k_base';
  return undefined;
}

/** Characters of text sent to the pool at once (a few MB per thread: its chunks stay parallel). */
const BATCH_CHARS = 16 * 1024 * 1024;

export async function countExact(
  session: Session,
  tokenizerId: string,
  options: CostModelOptions,
  bulk: BulkCounter,
): Promise<SessionCounts> {
  const encoding = bpeEncodingOf(tokenizerId);
  if (!encoding) return countWith(session, tokenizerId, options);
  const reference = getTokenizer(`tiktoken:${encoding}`);
  // Each counter makes one pass: a memo would hold an object per message to the end of it.
  const once: CostModelOptions = { memo: false, ...options };

  // Pass 1: every text the cost model counts (message parts, system prompt, tool definitions).
  const seen = new Map<string, number>();
  const recorder: Tokenizer = {
    ...reference,
    countText(text) {
      if (text.length > 0) seen.set(text, 0);
      return 0;
    },
  };
  countSession(session, createCounter(recorder, once));

  // The pool counts the distinct texts, BATCH_CHARS at a time: each batch is copied to its
  // threads, and all of a long session's text at once would be a second copy of it in memory.
  let batch: string[] = [];
  let chars = 0;
  const flush = async (): Promise<void> => {
    const numbers = await bulk.count(batch, encoding);
    for (let i = 0; i < batch.length; i++) seen.set(batch[i]!, numbers[i]!);
    batch = [];
    chars = 0;
  };
  for (const text of seen.keys()) {
    batch.push(text);
    chars += text.length;
    if (chars >= BATCH_CHARS) await flush();
  }
  if (batch.length > 0) await flush();

  // Pass 2: the same cost model over the counted numbers (js-tiktoken for anything unseen).
  const exact: Tokenizer = {
    ...reference,
    countText(text) {
      if (text.length === 0) return 0;
      return seen.get(text) ?? reference.countText(text);
    },
  };
  if (tokenizerId === 'calibrated') return countCalibrated(session, createCounter(exact, once));
  if (tokenizerId.startsWith('max:')) {
    const chars4 = getTokenizer('chars4');
    const max: Tokenizer = { ...getTokenizer(tokenizerId), countText: (s) => Math.max(exact.countText(s), chars4.countText(s)) };
    return countSession(session, createCounter(max, once));
  }
  return countSession(session, createCounter(exact, once));
}
