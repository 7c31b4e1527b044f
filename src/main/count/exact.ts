/**
 * A session's exact counts through the bulk pool: one pass of the engine's cost model collects
 * every text it would tokenise, the pool counts the distinct texts on every core (gpt-tokenizer,
 * which matches js-tiktoken), and a second pass of the same cost model reads the numbers back.
 * The result is what `countWith` returns for the same tokenizer id, only faster; tokenizers that
 * are not OpenAI BPE based (chars/4, runes, shannon) are left to `countWith`.
 */
import type { Message, Session } from '../../core/model';
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
 * Where a count reads its messages' text, and what it may skip (count/incremental.ts): `session`
 * is what the counts are assembled from without text (its messages' roles, usage and `sentAs`;
 * the messages themselves, or heads of them), `read` gives messages [from, to) with their text,
 * and the first `known.length` messages are not read at all: `known` holds their totals under the
 * counted tokenizer's own counter (scale 1 and no ratio: what stored counts of that tokenizer
 * hold per message).
 */
export interface CountSource {
  readonly read: (from: number, to: number) => readonly Message[];
  readonly known?: Uint32Array;
}

/** Messages read at once from a `CountSource` (a page of store/lazy-session.ts's size). */
const READ_PAGE = 256;

/** A session's counts, and for `calibrated` the counts of its base tokenizer made on the way (ratio 1: what its own count would store). */
export interface ExactCounts {
  readonly counts: SessionCounts;
  readonly base: SessionCounts;
}

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
  if (!bpeEncodingOf(tokenizerId)) return countWith(session, tokenizerId, options);
  const { messages } = session;
  return (await countExactFrom(session, { read: (from, to) => messages.slice(from, to) }, tokenizerId, options, bulk, batchChars)).counts;
}

/** `countExact` over a `CountSource` (a BPE tokenizer only): the messages' text read a page at a time, the known prefix not at all. */
export async function countExactFrom(
  session: Session,
  source: CountSource,
  tokenizerId: string,
  options: CostModelOptions,
  bulk: BulkCounter,
  batchChars = BATCH_CHARS,
): Promise<ExactCounts> {
  const encoding = bpeEncodingOf(tokenizerId);
  if (!encoding) throw new RangeError(`${tokenizerId} is not counted by a BPE encoding`);
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

  const n = session.messages.length;
  const tally: Tally = { units: new Float64Array(n), totals: new Float64Array(n), filled: false };
  // A message's units and total are one number under a scale of 1 (core/tokens/count.ts).
  const known = counter.scale === 1 && source.known ? source.known.subarray(0, n) : undefined;
  if (known) {
    tally.units.set(known);
    tally.totals.set(known);
  }
  for (let from = known?.length ?? 0; from < n;) {
    const slice: Message[] = [];
    while (from + slice.length < n && pendingChars < batchChars) {
      const at = from + slice.length;
      const page = source.read(at, Math.min(n, at + READ_PAGE));
      if (page.length === 0) throw new Error(`message #${at} of ${n} could not be read`);
      for (const m of page) {
        record.message(m);
        slice.push(m);
      }
    }
    await countPending(numbers);
    for (let k = 0; k < slice.length; k++) {
      const b = counter.message(slice[k]!);
      tally.units[from + k] = b.units;
      tally.totals[from + k] = b.total;
    }
    numbers = new Map();
    from += slice.length;
  }
  tally.filled = true;
  const base = countSession(session, counter, { tally });
  if (tokenizerId === 'calibrated') return { counts: countCalibrated(session, counter, tally), base };
  return { counts: base, base };
}
