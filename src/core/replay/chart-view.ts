/**
 * A replay reduced to the resolution of the screen (docs/architecture.md, "The host answers at the
 * resolution the screen needs"): `buckets` pixel columns, each the min / max of every series over
 * its calls and the region stack of its fullest call, so a 30,000-call replay ships a few hundred
 * numbers per series instead of 30,000. Markers — compressions, source compactions, every call
 * whose status is not ok / compress — are never downsampled: each is kept with its exact call.
 *
 * One pass over the typed arrays; no object per call.
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */
import type { BucketSeries, ChartMarker, ChartView, CompressionMarker, StatusMarker } from '../view/replay-view';
import { compressionsOf } from './compressions';
import { reasonTemplates, reasonText } from './steps';
import { REGIONS, STEP_STATUSES, type CompressionPath, type Region, type ReplayEvent, type ReplayResult, type StepStatus } from './types';

/** The fields of `config.resolved` the chart reads (see core/replay/index.ts). */
interface ResolvedLimits {
  readonly window?: number;
  readonly warnings?: readonly string[];
}

export function resolvedOf(config: Readonly<Record<string, unknown>>): ResolvedLimits {
  const r = config['resolved'];
  return r && typeof r === 'object' ? (r as ResolvedLimits) : {};
}

/** Bucket b covers calls [start[b], start[b + 1]); with fewer calls than buckets, one call each. */
export function bucketStarts(stepCount: number, buckets: number): number[] {
  const b = Math.min(Math.max(1, Math.floor(buckets)), stepCount);
  const out = new Array<number>(b);
  for (let i = 0; i < b; i++) out[i] = Math.floor((i * stepCount) / b);
  return out;
}

/** Min / max of `values` over each bucket; NaN (no value) is skipped, a bucket with none is null. */
function reduceSeries(values: ArrayLike<number>, starts: readonly number[], end: number): BucketSeries {
  const min: (number | null)[] = new Array(starts.length);
  const max: (number | null)[] = new Array(starts.length);
  for (let b = 0; b < starts.length; b++) {
    const to = starts[b + 1] ?? end;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = starts[b]!; i < to; i++) {
      const v = values[i]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    // NaN never wins a comparison, so a bucket of NaN only keeps the sentinels.
    min[b] = lo === Infinity ? null : lo;
    max[b] = hi === -Infinity ? null : hi;
  }
  return { min, max };
}

/** One compression as the markers read it. */
interface CompressionRow {
  readonly step: number;
  readonly path: CompressionPath;
  readonly strategy: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/**
 * Compression markers: one per compression, except that compressions of one path and strategy on
 * consecutive calls (a masking policy masks at every call) are one marker whose `until` is the last
 * call of the run — every compressed call is still covered, at its exact call. Numbers only: the
 * renderer writes the line a person reads (the shared ChartMarker type says why). `at(c)` gives
 * compression c of `count` (from the columns, compressions.ts: no event object for a chart).
 */
function compressionMarkers(count: number, at: (c: number) => CompressionRow, out: ChartMarker[]): void {
  let first: CompressionRow | undefined;
  let last: CompressionRow | undefined;
  const flush = (): void => {
    if (!first || !last) return;
    const m: CompressionMarker =
      first === last
        ? {
            step: first.step,
            kind: 'compression',
            path: first.path,
            strategy: first.strategy,
            tokensBefore: first.tokensBefore,
            tokensAfter: first.tokensAfter,
          }
        : {
            step: first.step,
            kind: 'compression',
            path: first.path,
            strategy: first.strategy,
            tokensBefore: first.tokensBefore,
            tokensAfter: first.tokensAfter,
            until: last.step,
            lastTokensBefore: last.tokensBefore,
            lastTokensAfter: last.tokensAfter,
          };
    out.push(m);
  };
  for (let c = 0; c < count; c++) {
    const e = at(c);
    if (last && e.path === last.path && e.strategy === last.strategy && e.step === last.step + 1) {
      last = e;
      continue;
    }
    flush();
    first = last = e;
  }
  flush();
}

/** The compression markers of a result: from its columns when it has them, else from its events. */
function resultCompressionMarkers(r: ReplayResult, out: ChartMarker[]): void {
  const cols = compressionsOf(r);
  if (cols) {
    // Row by row from the columns: a run of consecutive calls is compared in numbers, no object per compression.
    const { log } = cols;
    const markerOf = (first: number, last: number): CompressionMarker => {
      const head = {
        step: log.step[first]!,
        kind: 'compression',
        path: log.pathOf(first),
        strategy: log.strategyOf(first),
        tokensBefore: log.before[first]!,
        tokensAfter: log.after[first]!,
      } as const;
      return first === last
        ? head
        : { ...head, until: log.step[last]!, lastTokensBefore: log.before[last]!, lastTokensAfter: log.after[last]! };
    };
    let first = -1;
    for (let c = 0; c < cols.count; c++) {
      if (first >= 0 && log.path[c] === log.path[c - 1] && log.strategy[c] === log.strategy[c - 1] && log.step[c] === log.step[c - 1]! + 1)
        continue;
      if (first >= 0) out.push(markerOf(first, c - 1));
      first = c;
    }
    if (first >= 0) out.push(markerOf(first, cols.count - 1));
    return;
  }
  const list = r.events.filter((e): e is Extract<ReplayEvent, { kind: 'compression' }> => e.kind === 'compression');
  compressionMarkers(list.length, (c) => list[c]!, out);
}

/** Statuses that are markers; `compress` calls are marked by their compression events instead. */
const MARKED: Partial<Record<StepStatus, StatusMarker['kind']>> = {
  warn: 'warn',
  skip: 'skip',
  final: 'final',
  abort: 'abort',
  overflow: 'overflow',
};

/** A reason up to its numbers: each run of digits, commas and periods written '#'. */
const numbersAsHash = (text: string): string => text.replace(/\d[\d,.]*/g, '#');

/**
 * Status markers, one per run of consecutive calls with the same status and the same reason up to
 * its numbers (`until` = the run's last call), so a soft budget that warns on every remaining call
 * — its reason naming the tokens used so far — is one exact marker, not 30,000. A run that ended
 * (final / abort) is one marker from the call that ended it. The reason is the first call's.
 *
 * "Up to its numbers": a reason's wording with each number replaced, once per distinct reason (a
 * deferred reason whose words know their template is not worded at all: steps.ts reasonTemplates). The
 * regex runs as native code from its first use; a JavaScript loop comparing two reasons character
 * by character (no allocation) measured slower here — the chart view runs cold in the worker, and
 * letta with a reason per call has ~1.4 M characters of reasons to walk.
 */
function statusMarkers(r: ReplayResult, out: ChartMarker[]): void {
  // Reasons read one by one (reasonText): a policy that compresses at every call keeps its
  // compression reasons as numbers, and `s.reasons` would word all of them for a few warnings.
  const s = r.steps;
  const templateOf = reasonTemplates(s, numbersAsHash);
  let i = 0;
  while (i < s.count) {
    const code = s.status[i]!;
    const kind = MARKED[STEP_STATUSES[code]!];
    if (!kind) {
      i++;
      continue;
    }
    const index = s.reasonIndex[i]!;
    const template = templateOf(index);
    let j = i + 1;
    // After a final / abort every call keeps that status (with its own reason): one run.
    const ended = kind === 'final' || kind === 'abort';
    while (j < s.count && s.status[j] === code && (ended || s.reasonIndex[j] === index || templateOf(s.reasonIndex[j]!) === template)) j++;
    const reason = reasonText(s, index);
    out.push(j - 1 > i ? { step: i, kind, reason, until: j - 1 } : { step: i, kind, reason });
    i = j;
  }
}

export interface ChartViewOptions {
  /** The host's key for this replay (detail requests reuse it). */
  readonly key: string;
  readonly buckets: number;
  /** Notes from outside the replay (counts still estimates, …), shown before the replay's own. */
  readonly warnings?: readonly string[];
}

export function chartView(r: ReplayResult, options: ChartViewOptions): ChartView {
  const s = r.steps;
  const n = s.count;
  const starts = bucketStarts(n, options.buckets);
  const B = starts.length;

  const peakStep = new Array<number>(B);
  const status = new Array<StepStatus>(B);
  for (let b = 0; b < B; b++) {
    const to = starts[b + 1] ?? n;
    let peak = starts[b]!;
    let worst = 0;
    for (let i = starts[b]!; i < to; i++) {
      if (s.total[i]! > s.total[peak]!) peak = i;
      // STEP_STATUSES is ordered by severity: the worst status has the largest code.
      if (s.status[i]! > worst) worst = s.status[i]!;
    }
    peakStep[b] = peak;
    status[b] = STEP_STATUSES[worst]!;
  }
  const regions = {} as Record<Region, number[]>;
  for (const k of REGIONS) {
    const src = s.regions[k];
    regions[k] = peakStep.map((p) => src[p]!);
  }

  // The window the calls are drawn against: the one the replay resolved (window sources in
  // core/budget/limits.ts). A fallback model's window after an S1 skip is not recorded per call.
  const resolvedWindow = resolvedOf(r.config).window;
  const windowPerCall = new Float64Array(n).fill(resolvedWindow ?? NaN);

  const turnStarts: number[] = [];
  for (let i = 0; i < n; i++) if (i === 0 || s.turn[i] !== s.turn[i - 1]) turnStarts.push(i);

  const markers: ChartMarker[] = [];
  const warnings: string[] = [...(options.warnings ?? []), ...(resolvedOf(r.config).warnings ?? [])];
  // The other events only (a result replay made keeps its compressions as columns: no event objects for a chart).
  const cols = compressionsOf(r);
  const others = cols ? cols.others.slice(0, cols.otherCount) : r.events;
  for (const e of others) {
    if (e.kind === 'source-compaction')
      markers.push(
        e.tokensBefore === undefined
          ? { step: e.step, kind: 'source-compaction', trigger: e.trigger }
          : e.tokensAfter === undefined
            ? { step: e.step, kind: 'source-compaction', trigger: e.trigger, tokensBefore: e.tokensBefore }
            : { step: e.step, kind: 'source-compaction', trigger: e.trigger, tokensBefore: e.tokensBefore, tokensAfter: e.tokensAfter },
      );
    else if (e.kind === 'summarizer-failure') warnings.push(`summarizer failed at call ${e.step}: ${e.error}`);
    // Warnings at call 0 are the replay's notes about its inputs (summarizer missing, counts made with another tokenizer).
    else if (e.kind === 'warning' && e.step === 0) warnings.push(e.text);
  }
  resultCompressionMarkers(r, markers);
  statusMarkers(r, markers);
  markers.sort((a, b) => a.step - b.step);

  return {
    key: options.key,
    policy: r.policy,
    config: r.config,
    stepCount: n,
    bucketStart: starts,
    peakStep,
    regions,
    total: reduceSeries(s.total, starts, n),
    limit: reduceSeries(s.limit, starts, n),
    trigger: reduceSeries(s.trigger, starts, n),
    reported: reduceSeries(s.reported, starts, n),
    window: reduceSeries(windowPerCall, starts, n),
    status,
    turnStarts,
    markers,
    totals: r.totals,
    retention: r.retention,
    ...(r.sourceCompactions ? { sourceCompactions: r.sourceCompactions } : {}),
    warnings: [...new Set(warnings)],
  };
}
