/**
 * A chart view's markers as columns on the wire (getChartView answers a ChartViewWire), turned
 * back into ChartMarker objects by the window. A replay compressing at every few calls has
 * thousands of markers: as objects each repeated its key names and its kind, path and strategy
 * words — 245 KB of openhands-summary's 391 KB chart view at 10,000 calls (1,992 compressions),
 * copied from the replay worker to the host, written as JSON, sent and parsed again at every
 * slider move — and a policy over its trigger repeats one warning's words around new numbers at
 * every run of calls (letta at 0.4: 690 reasons of ~150 characters). As columns a marker is a few
 * numbers, each distinct word and each label's shape is sent once, and a label's numbers as
 * written: openhands-summary 391 → 221 KB, letta 360 → 220 KB. Exact both ways (a property test
 * checks it through JSON). Pure: no DOM, no Node.
 */
import type { ChartMarker, ChartView, CompressionMarker, SourceCompactionMarker, StatusMarker } from '../core/view/replay-view';

/** One row per marker, in the view's order; words by index into `texts`. */
export interface MarkerColumns {
  /** Every distinct kind and strategy word the rows name. */
  readonly texts: readonly string[];
  readonly kind: readonly number[];
  readonly step: readonly number[];
  /** The run's last call; null for a single call. */
  readonly until: readonly (number | null)[];
  /**
   * Every distinct label shape: a label's text cut around its numbers (runs of digits, commas and
   * periods), the pieces between them. A label is a compression's path, a source compaction's
   * trigger or a status marker's reason: a policy over its trigger warns at a run of calls after
   * each compression, each reason the same words around other numbers (letta: 690 of ~150 characters).
   */
  readonly labels: readonly (readonly string[])[];
  /** The row's label shape (index into `labels`). */
  readonly label: readonly number[];
  /** Every row's label numbers as written, row after row (a shape of k pieces takes k − 1). */
  readonly numbers: readonly string[];
  /** A compression's strategy (index into `texts`); null for the other kinds. */
  readonly strategy: readonly (number | null)[];
  /** Tokens before and after (a run's first and last compression); null where the marker has none. */
  readonly before: readonly (number | null)[];
  readonly after: readonly (number | null)[];
  readonly lastBefore: readonly (number | null)[];
  readonly lastAfter: readonly (number | null)[];
}

/** A number as a label writes it (the pieces of a label's shape are what lies between). */
const NUMBER = /\d[\d,.]*/g;

/** A ChartView as getChartView sends it: the markers as columns. */
export type ChartViewWire = Omit<ChartView, 'markers'> & { readonly markers: MarkerColumns };

export function encodeMarkers(markers: readonly ChartMarker[]): MarkerColumns {
  const texts: string[] = [];
  const index = new Map<string, number>();
  const text = (t: string): number => {
    let i = index.get(t);
    if (i === undefined) {
      index.set(t, (i = texts.length));
      texts.push(t);
    }
    return i;
  };
  const labels: string[][] = [];
  const labelIndex = new Map<string, number>();
  const numbers: string[] = [];
  /** The label's shape index; its numbers appended to `numbers`. */
  const labelOf = (t: string): number => {
    const pieces = t.split(NUMBER);
    const runs = t.match(NUMBER);
    if (runs) for (const r of runs) numbers.push(r);
    // The pieces as JSON: a key no two shapes share (a piece may hold any character).
    const key = JSON.stringify(pieces);
    let i = labelIndex.get(key);
    if (i === undefined) {
      labelIndex.set(key, (i = labels.length));
      labels.push(pieces);
    }
    return i;
  };
  const n = markers.length;
  const kind = new Array<number>(n);
  const step = new Array<number>(n);
  const until = new Array<number | null>(n);
  const label = new Array<number>(n);
  const strategy = new Array<number | null>(n);
  const before = new Array<number | null>(n);
  const after = new Array<number | null>(n);
  const lastBefore = new Array<number | null>(n);
  const lastAfter = new Array<number | null>(n);
  for (let i = 0; i < n; i++) {
    const m = markers[i]!;
    kind[i] = text(m.kind);
    step[i] = m.step;
    until[i] = m.until ?? null;
    strategy[i] = null;
    before[i] = after[i] = lastBefore[i] = lastAfter[i] = null;
    if (m.kind === 'compression') {
      label[i] = labelOf(m.path);
      strategy[i] = text(m.strategy);
      before[i] = m.tokensBefore;
      after[i] = m.tokensAfter;
      lastBefore[i] = m.lastTokensBefore ?? null;
      lastAfter[i] = m.lastTokensAfter ?? null;
    } else if (m.kind === 'source-compaction') {
      label[i] = labelOf(m.trigger);
      before[i] = m.tokensBefore ?? null;
      after[i] = m.tokensAfter ?? null;
    } else label[i] = labelOf(m.reason);
  }
  return { texts, kind, step, until, labels, label, numbers, strategy, before, after, lastBefore, lastAfter };
}

/** The markers `encodeMarkers` was given, field for field (absent optional fields stay absent). */
export function decodeMarkers(c: MarkerColumns): ChartMarker[] {
  const out = new Array<ChartMarker>(c.step.length);
  let at = 0;
  for (let i = 0; i < out.length; i++) {
    const kind = c.texts[c.kind[i]!]!;
    const step = c.step[i]!;
    const until = c.until[i] ?? undefined;
    const pieces = c.labels[c.label[i]!]!;
    let label = pieces[0]!;
    for (let k = 1; k < pieces.length; k++) label += c.numbers[at++]! + pieces[k]!;
    const span = until === undefined ? { step } : { step, until };
    if (kind === 'compression') {
      const m: CompressionMarker = {
        ...span,
        kind,
        path: label as CompressionMarker['path'],
        strategy: c.texts[c.strategy[i]!]!,
        tokensBefore: c.before[i]!,
        tokensAfter: c.after[i]!,
      };
      const lastBefore = c.lastBefore[i] ?? undefined;
      const lastAfter = c.lastAfter[i] ?? undefined;
      out[i] =
        lastBefore === undefined && lastAfter === undefined
          ? m
          : {
              ...m,
              ...(lastBefore !== undefined ? { lastTokensBefore: lastBefore } : {}),
              ...(lastAfter !== undefined ? { lastTokensAfter: lastAfter } : {}),
            };
    } else if (kind === 'source-compaction') {
      const before = c.before[i] ?? undefined;
      const after = c.after[i] ?? undefined;
      const m: SourceCompactionMarker = {
        ...span,
        kind,
        trigger: label,
        ...(before !== undefined ? { tokensBefore: before } : {}),
        ...(after !== undefined ? { tokensAfter: after } : {}),
      };
      out[i] = m;
    } else {
      const m: StatusMarker = { ...span, kind: kind as StatusMarker['kind'], reason: label };
      out[i] = m;
    }
  }
  return out;
}

export function chartViewToWire(view: ChartView): ChartViewWire {
  return { ...view, markers: encodeMarkers(view.markers) };
}

export function chartViewFromWire(wire: ChartViewWire): ChartView {
  return { ...wire, markers: decodeMarkers(wire.markers) };
}
