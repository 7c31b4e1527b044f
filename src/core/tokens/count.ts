/**
 * Per-session counts in typed arrays with prefix sums, so any window [from, to) of the history
 * is summed in O(1) (the replay is built on this). The `calibrated` tokenizer is resolved here:
 * it needs the whole session to fit itself to the provider's reported numbers.
 */
import type { Session } from '../model';
import { fitCalibration } from './calibrate';
import { scaleFloor } from './cost';
import type { Counter, SessionCounts } from './types';

export interface CountOptions {
  /** Fitted overhead (calibrated tokenizer) to report as the `unlogged` region. */
  readonly unlogged?: number;
  /** Multiplier applied to every message count (calibrated tokenizer). */
  readonly ratio?: number;
  /**
   * Each message's units and total, recorded by a first pass and read back by a second one over
   * the same session (calibrated): cheaper than a memo, which holds an object per message.
   */
  readonly tally?: Tally;
  /**
   * The counts of the first messages, made before by the same counter over the same message
   * objects (a live tail's grown session): taken instead of counted. Used only where each
   * message's count is its own (no scale, ratio or tally); ignored otherwise.
   */
  readonly known?: Uint32Array;
}

export interface Tally {
  readonly units: Float64Array;
  readonly totals: Float64Array;
  filled: boolean;
}

export function countSession(session: Session, counter: Counter, options: CountOptions = {}): SessionCounts {
  const n = session.messages.length;
  const perMessage = new Uint32Array(n);
  const prefix = new Float64Array(n + 1);
  const ratio = options.ratio ?? 1;
  const scale = counter.scale;
  // S3 floors the total, not each message (docs/policies.md §Tokenizers and estimates): the
  // request of system + messages [0, k) is floor(1.1 × (system units + Σ units)). Each message
  // holds the step that total takes when the message joins, so prefix sums stay additive and a
  // request that starts at message 0 is exactly the seed's figure; a window that starts later
  // (after a cut) is within one token of it. With a scale of 1 this is each message's own total.
  let units = session.systemPrompt ? counter.system(session.systemPrompt) : 0;
  let floored = scaleFloor(units, scale);
  const system = Math.round(floored * ratio);
  const tally = options.tally;
  const replay = tally?.filled === true;
  const known = scale === 1 && ratio === 1 && !tally && options.known ? options.known.subarray(0, n) : undefined;
  const start = known?.length ?? 0;
  if (known) {
    perMessage.set(known);
    for (let i = 0; i < start; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;
  }
  for (let i = start; i < n; i++) {
    let bUnits: number;
    let bTotal: number;
    if (replay) {
      bUnits = tally.units[i]!;
      bTotal = tally.totals[i]!;
    } else {
      const b = counter.message(session.messages[i]!);
      bUnits = b.units;
      bTotal = b.total;
      if (tally) {
        tally.units[i] = bUnits;
        tally.totals[i] = bTotal;
      }
    }
    let t: number;
    if (scale === 1) t = bTotal;
    else {
      units += bUnits;
      const next = scaleFloor(units, scale);
      t = next - floored + (bTotal - scaleFloor(bUnits, scale));
      floored = next;
    }
    perMessage[i] = ratio === 1 ? t : Math.round(t * ratio);
    prefix[i + 1] = prefix[i]! + perMessage[i]!;
  }
  if (tally) tally.filled = true;
  const tools = Math.round(counter.tools(session.tools) * ratio);
  return {
    tokenizer: counter.tokenizer.id,
    perMessage,
    prefix,
    system,
    tools,
    unlogged: options.unlogged ?? 0,
    approximate: counter.tokenizer.approximate,
  };
}

/**
 * Counts with the `calibrated` tokenizer: the base counter's numbers fitted to the reported
 * prompt sizes (ratio × content + fixed unlogged overhead). Without reported usage it is the
 * base count, marked approximate.
 */
export function countCalibrated(
  session: Session,
  base: Counter,
  /** Each message's units and total by `base`, recorded already (filled): its text is not read again. */
  recorded?: Tally,
): SessionCounts & { fit: ReturnType<typeof fitCalibration> } {
  const n = session.messages.length;
  const tally: Tally = recorded ?? { units: new Float64Array(n), totals: new Float64Array(n), filled: false };
  const raw = countSession(session, base, { tally });
  const fit = fitCalibration(session, raw);
  const counts = countSession(session, base, { ratio: fit.ratio, unlogged: fit.overhead, tally });
  return { ...counts, tokenizer: 'calibrated', approximate: true, fit };
}
