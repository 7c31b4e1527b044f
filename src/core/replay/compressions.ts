/**
 * The compression events of a replay as columns (docs/architecture.md: numbers per step live in typed
 * arrays). A policy compressing at (nearly) every call kept one event object per compression —
 * with its range tuples, for the life of the result — and that was the largest cost left in its
 * replay. Here a compression is a row of numbers: its call, path, strategy (interned), tokens
 * before / after, its dropped and masked ranges in one flat array of pairs, its kept ranges as the
 * shared runs before the live range (compress.ts keptBeforeRuns) plus the live range's bounds,
 * and references to its note and summary (both made anyway).
 *
 * The event objects are made only when something reads `ReplayResult.events` (`eventsOf`), exactly
 * as compress.ts wrote them before, key by key: the same JSON. The chart view and compare read
 * the columns.
 */
import { eachRun } from '../strategies/util';
import { attachSummary, type SummaryText } from '../summarize/summary-text';
import type { CompressionPath, MessageRange, ReplayEvent } from './types';

type Compression = Extract<ReplayEvent, { kind: 'compression' }>;

export const COMPRESSION_PATHS: readonly CompressionPath[] = ['async', 'proactive', 'emergency', 'strategy'];

const INITIAL = 64;

export class CompressionLog {
  count = 0;
  /** Per compression: how many other events (ReplayState.events) were recorded before it. */
  at = new Uint32Array(INITIAL);
  step = new Uint32Array(INITIAL);
  /** Index into COMPRESSION_PATHS. */
  path = new Uint8Array(INITIAL);
  /** Index into `strategies`. */
  strategy = new Uint16Array(INITIAL);
  before = new Float64Array(INITIAL);
  after = new Float64Array(INITIAL);
  /** Pairs in `ranges`: dropped [droppedAt[c], maskedAt[c]), masked [maskedAt[c], droppedAt[c + 1]) (in pairs). */
  droppedAt = new Uint32Array(INITIAL + 1);
  maskedAt = new Uint32Array(INITIAL);
  /** The live range of the kept ones: messages [keptFrom, keptEnd) (none when keptFrom >= keptEnd). */
  keptFrom = new Uint32Array(INITIAL);
  keptEnd = new Uint32Array(INITIAL);
  /** The kept runs before the live range: lists shared between compressions (never written). */
  keptRuns: (readonly MessageRange[])[] = [];
  notes: string[] = [];
  /** The summary after the compression; null when there was none (the event has no `summary`). */
  summaries: (SummaryText | null)[] = [];
  readonly strategies: string[] = [];
  private readonly strategyIds = new Map<string, number>();
  /** Range bounds, two per range. */
  ranges = new Int32Array(INITIAL * 4);
  private rangeLength = 0;

  strategyId(name: string): number {
    let id = this.strategyIds.get(name);
    if (id === undefined) {
      id = this.strategies.length;
      this.strategies.push(name);
      this.strategyIds.set(name, id);
    }
    return id;
  }

  /**
   * Records one compression. `dropped` ascends and is merged (compress.ts `merged`); `masked` is
   * the masked message indices (written as toRanges makes them).
   */
  push(
    at: number,
    step: number,
    path: CompressionPath,
    strategy: string,
    before: number,
    after: number,
    dropped: readonly MessageRange[],
    masked: readonly number[],
    keptRuns: readonly MessageRange[],
    keptFrom: number,
    keptEnd: number,
    note: string,
    summary: SummaryText | null,
  ): void {
    const c = this.count;
    if (c === this.at.length) this.grow(c * 2);
    this.at[c] = at;
    this.step[c] = step;
    this.path[c] = COMPRESSION_PATHS.indexOf(path);
    this.strategy[c] = this.strategyId(strategy);
    this.before[c] = before;
    this.after[c] = after;
    for (let q = 0; q < dropped.length; q++) this.pair(dropped[q]![0], dropped[q]![1]);
    this.maskedAt[c] = this.rangeLength >> 1;
    eachRun(masked, this.pair);
    this.droppedAt[c + 1] = this.rangeLength >> 1;
    this.keptFrom[c] = keptFrom;
    this.keptEnd[c] = keptEnd;
    this.keptRuns.push(keptRuns);
    this.notes.push(note);
    this.summaries.push(summary);
    this.count = c + 1;
  }

  /** Appends the range [a, z] to `ranges` (a bound function: eachRun calls it per run). */
  private readonly pair = (a: number, z: number): void => {
    if (this.rangeLength + 2 > this.ranges.length) {
      const r = new Int32Array(this.ranges.length * 2);
      r.set(this.ranges);
      this.ranges = r;
    }
    this.ranges[this.rangeLength++] = a;
    this.ranges[this.rangeLength++] = z;
  };

  private grow(capacity: number): void {
    const g = <T extends Uint32Array | Uint8Array | Uint16Array | Float64Array>(a: T, n: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a.subarray(0, Math.min(a.length, n)));
      return b;
    };
    this.at = g(this.at, capacity);
    this.step = g(this.step, capacity);
    this.path = g(this.path, capacity);
    this.strategy = g(this.strategy, capacity);
    this.before = g(this.before, capacity);
    this.after = g(this.after, capacity);
    this.droppedAt = g(this.droppedAt, capacity + 1);
    this.maskedAt = g(this.maskedAt, capacity);
    this.keptFrom = g(this.keptFrom, capacity);
    this.keptEnd = g(this.keptEnd, capacity);
  }

  /** A copy of the first `count` compressions, to write on without changing this log (resume.ts). */
  slice(count: number): CompressionLog {
    const c = new CompressionLog();
    const n = Math.min(count, this.count);
    c.grow(Math.max(INITIAL, n));
    c.at.set(this.at.subarray(0, n));
    c.step.set(this.step.subarray(0, n));
    c.path.set(this.path.subarray(0, n));
    c.strategy.set(this.strategy.subarray(0, n));
    c.before.set(this.before.subarray(0, n));
    c.after.set(this.after.subarray(0, n));
    c.droppedAt.set(this.droppedAt.subarray(0, n + 1));
    c.maskedAt.set(this.maskedAt.subarray(0, n));
    c.keptFrom.set(this.keptFrom.subarray(0, n));
    c.keptEnd.set(this.keptEnd.subarray(0, n));
    c.keptRuns = this.keptRuns.slice(0, n);
    c.notes = this.notes.slice(0, n);
    c.summaries = this.summaries.slice(0, n);
    for (const name of this.strategies) c.strategyId(name);
    const pairs = this.droppedAt[n]!;
    c.ranges = new Int32Array(Math.max(INITIAL * 4, pairs * 4));
    c.ranges.set(this.ranges.subarray(0, pairs * 2));
    c.rangeLength = pairs * 2;
    c.count = n;
    return c;
  }

  pathOf(c: number): CompressionPath {
    return COMPRESSION_PATHS[this.path[c]!]!;
  }

  strategyOf(c: number): string {
    return this.strategies[this.strategy[c]!]!;
  }

  /** Pairs [from, to) of `ranges` as fresh tuples. */
  private rangesOf(from: number, to: number): MessageRange[] {
    const out: MessageRange[] = new Array<MessageRange>(to - from);
    for (let q = from; q < to; q++) out[q - from] = [this.ranges[2 * q]!, this.ranges[2 * q + 1]!];
    return out;
  }

  dropped(c: number): MessageRange[] {
    return this.rangesOf(this.droppedAt[c]!, this.maskedAt[c]!);
  }

  /** The masked ranges; none (undefined) when the compression masked nothing. */
  masked(c: number): MessageRange[] | undefined {
    const from = this.maskedAt[c]!;
    const to = this.droppedAt[c + 1]!;
    return to > from ? this.rangesOf(from, to) : undefined;
  }

  /** The kept ranges as compress.ts worked them out (its former windowRanges). */
  kept(c: number): MessageRange[] {
    const out = this.keptRuns[c]!.slice() as MessageRange[];
    const from = this.keptFrom[c]!;
    const end = this.keptEnd[c]!;
    if (from < end) {
      const last = out[out.length - 1];
      if (last && last[1] + 1 === from) out[out.length - 1] = [last[0], end - 1];
      else out.push([from, end - 1]);
    }
    return out;
  }

  /** Compression `c` as the event object compress.ts made, key by key (JSON keeps the order keys were added). */
  event(c: number): Compression {
    const step = this.step[c]!;
    const path = this.pathOf(c);
    const strategy = this.strategyOf(c);
    const tokensBefore = this.before[c]!;
    const tokensAfter = this.after[c]!;
    const dropped = this.dropped(c);
    const kept = this.kept(c);
    const masked = this.masked(c);
    const note = this.notes[c]!;
    const summary = this.summaries[c]!;
    if (!summary) {
      return masked
        ? { kind: 'compression', step, path, strategy, tokensBefore, tokensAfter, dropped, kept, masked, note }
        : { kind: 'compression', step, path, strategy, tokensBefore, tokensAfter, dropped, kept, note };
    }
    const e: { -readonly [K in keyof Compression]: Compression[K] } = {
      kind: 'compression',
      step,
      path,
      strategy,
      tokensBefore,
      tokensAfter,
      dropped,
      kept,
    };
    if (masked) e.masked = masked;
    // The summary's text is written only if something reads it (summary-text.ts), in its place before the note.
    attachSummary(e, summary);
    e.note = note;
    return e;
  }
}

/**
 * The events in the order they were recorded: the first `count` other events with the first
 * `compressions` compressions put back where they were recorded (`at`).
 */
export function eventsOf(others: readonly ReplayEvent[], otherCount: number, log: CompressionLog, compressions: number): ReplayEvent[] {
  const out: ReplayEvent[] = [];
  let o = 0;
  for (let c = 0; c < compressions; c++) {
    const at = Math.min(log.at[c]!, otherCount);
    while (o < at) out.push(others[o++]!);
    out.push(log.event(c));
  }
  while (o < otherCount) out.push(others[o++]!);
  return out;
}

/** What a result's events are made from: the first `count` rows of `log`, the first `otherCount` of `others`. */
export interface EventColumns {
  readonly log: CompressionLog;
  readonly count: number;
  readonly others: readonly ReplayEvent[];
  readonly otherCount: number;
}

/** The columns behind results' events (for the chart view, compare, step detail). */
const logs = new WeakMap<object, EventColumns>();

/**
 * Gives `result` an `events` getter that makes the events on first read and then is a plain
 * property (as steps.reasons), and remembers the columns for `compressionsOf`.
 */
export function withLazyEvents<R extends { events: readonly ReplayEvent[] }>(
  result: R,
  others: readonly ReplayEvent[],
  log: CompressionLog,
): R {
  const otherCount = others.length;
  const count = log.count;
  logs.set(result, { log, count, others, otherCount });
  Object.defineProperty(result, 'events', {
    enumerable: true,
    configurable: true,
    get(this: R): readonly ReplayEvent[] {
      const all = eventsOf(others, otherCount, log, count);
      Object.defineProperty(this, 'events', { value: all, enumerable: true, configurable: true, writable: false });
      return all;
    },
  });
  return result;
}

/** The event columns of a result `replay` made, or undefined (a result made elsewhere: read its events). */
export function compressionsOf(result: object): EventColumns | undefined {
  return logs.get(result);
}

/** The events that are not compressions (a result without columns: all its events, compressions among them). */
export function otherEvents(result: { readonly events: readonly ReplayEvent[] }): readonly ReplayEvent[] {
  const cols = logs.get(result);
  return cols ? cols.others.slice(0, cols.otherCount) : result.events;
}
