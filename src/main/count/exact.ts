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
  type Tally,
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

/**
 * Characters of new text a slice of messages gathers before the pool counts it: a slice's texts
 * are held (and copied to the pool's threads) while it is counted, never the whole session's.
 */
const BATCH_CHARS = 8 * 1024 * 1024;

/**
 * The same numbers as `countWith`, a slice of messages at a time: the texts the cost model reads
 * in a slice are gathered (a recording pass), counted by the pool on every core, and the slice's
 * messages counted again from those numbers into a tally (core/tokens/count.ts `Tally`); the
 * session's counts are then made from the tally without reading any text. The system prompt's and
 * tool definitions' texts are counted first and kept to the end.
 */
export async function countExact(
  session: Session,
  tokenizerId: string,
  options: CostModelOptions,
  bulk: BulkCounter,
  batchChars = BATCH_CHARS,
): Promise<SessionCounts> {
  const encoding = bpeEncodingOf(tokenizerId);
  if (!encoding) return countWith(session, tokenizerId, options);
  const reference = getTokenizer(`tiktoken:${encoding}`);
  // Each counter makes one pass: a memo would hold an object per message to the end of it.
  const once: CostModelOptions = { memo: false, ...options };

  /** Numbers of the texts counted: the system's and tools' for good, a slice's until the next. */
  const kept = new Map<string, number>();
  let numbers = new Map<string, number>();
  let pending = new Set<string>();
  let pendingChars = 0;
  const recorder: Tokenizer = {
    ...reference,
    countText(text) {
      if (text.length > 0 && !numbers.has(text) && !kept.has(text) && !pending.has(text)) {
        pending.add(text);
        pendingChars += text.length;
      }
      return 0;
    },
  };
  const countPending = async (into: Map<string, number>): Promise<void> => {
    const texts = [...pending];
    pending = new Set();
    pendingChars = 0;
    if (texts.length === 0) return;
    const counted = await bulk.count(texts, encoding);
    for (let i = 0; i < texts.length; i++) into.set(texts[i]!, counted[i]!);
  };
  const exact: Tokenizer = {
    ...reference,
    countText(text) {
      if (text.length === 0) return 0;
      return numbers.get(text) ?? kept.get(text) ?? reference.countText(text);
    },
  };
  const chars4 = getTokenizer('chars4');
  const counting: Tokenizer = tokenizerId.startsWith('max:')
    ? { ...getTokenizer(tokenizerId), countText: (t) => Math.max(exact.countText(t), chars4.countText(t)) }
    : exact;
  const record = createCounter(recorder, once);
  const counter = createCounter(counting, once);

  if (session.systemPrompt) record.system(session.systemPrompt);
  record.tools(session.tools);
  await countPending(kept);

  const { messages } = session;
  const n = messages.length;
  const tally: Tally = { units: new Float64Array(n), totals: new Float64Array(n), filled: false };
  for (let from = 0; from < n;) {
    let to = from;
    while (to < n && pendingChars < batchChars) record.message(messages[to++]!);
    await countPending(numbers);
    for (let i = from; i < to; i++) {
      const b = counter.message(messages[i]!);
      tally.units[i] = b.units;
      tally.totals[i] = b.total;
    }
    numbers = new Map();
    from = to;
  }
  tally.filled = true;
  if (tokenizerId === 'calibrated') return countCalibrated(session, counter, tally);
  return countSession(session, counter, { tally });
}
