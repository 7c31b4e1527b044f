/**
 * The replay timeline's marker layer: one SVG path per row and colour, in a 1000-wide viewBox.
 * Markers that touch or overlap on the track are one rectangle: a session's ~2,000 compressions
 * in a 1000-unit track overlap almost all of them, and a rectangle per marker made the path text
 * (built, then parsed by the browser when React sets it) most of the timeline's cost on a new
 * chart. The union of the rectangles is what was painted before, so the picture is the same.
 */
import type { ChartMarker } from '../../../shared/api';
import { PALETTE, type Palette } from '../colors';

export const TIMELINE_WIDTH = 1000;
export const ROW_H = 11;

/** A marker kind's colour in a theme's palette (the chart's own). */
const kindColor = (p: Palette): Record<ChartMarker['kind'], string> => ({
  compression: p.marker.compression,
  'source-compaction': p.marker['source-compaction'],
  warn: p.status.warn,
  skip: p.status.skip,
  final: p.status.final,
  abort: p.status.abort,
  overflow: p.status.overflow,
});

/** Rows of the track, top to bottom; compressions get one row per path. */
export const TIMELINE_ROWS: readonly { readonly key: string; readonly label: string }[] = [
  { key: 'proactive', label: 'proactive' },
  { key: 'emergency', label: 'emergency' },
  { key: 'async', label: 'async' },
  { key: 'source', label: 'agent' },
  { key: 'guard', label: 'guard' },
];

/** The row a marker is drawn on (an index into TIMELINE_ROWS), or -1 for none. */
export function timelineRow(m: ChartMarker): number {
  switch (m.kind) {
    case 'compression':
      return m.path === 'proactive' ? 0 : m.path === 'emergency' ? 1 : m.path === 'async' || m.path === 'strategy' ? 2 : -1;
    case 'source-compaction':
      return 3;
    case 'warn':
    case 'skip':
    case 'final':
    case 'abort':
    case 'overflow':
      return 4;
    default:
      return -1;
  }
}

export interface TimelinePath {
  readonly d: string;
  readonly color: string;
  readonly key: string;
}

/** One row-and-colour's path being built: the rectangle still growing is [start, end). */
interface Run {
  readonly color: string;
  readonly y: number;
  d: string;
  start: number;
  end: number;
}

/** To 0.01 of a unit (a hundredth of a pixel or less): rounding, not toFixed, which cost ~1 µs a number on a new chart. */
const r2 = (v: number): number => Math.round(v * 100) / 100;

const close = (r: Run): void => {
  if (r.end <= r.start) return;
  const w = r2(r.end - r.start);
  r.d += `M${r2(r.start)} ${r.y}h${w}v${ROW_H - 2}h${-w}z`;
};

/**
 * The paths, rows top to bottom and, within a row, colours in the order first met. A marker
 * spans its calls (a run with `until` is one band from its first call to its last), at least
 * 0.6 units so a single call stays visible. Markers arrive sorted by call; out of order ones are
 * still drawn (they start a new rectangle rather than join the one before).
 */
export function timelinePaths(markers: readonly ChartMarker[], stepCount: number, palette: Palette = PALETTE.dark): TimelinePath[] {
  if (stepCount <= 0 || markers.length === 0) return [];
  const KIND_COLOR = kindColor(palette);
  const scale = TIMELINE_WIDTH / stepCount;
  const rows: Map<string, Run>[] = TIMELINE_ROWS.map(() => new Map());
  for (const m of markers) {
    const r = timelineRow(m);
    if (r < 0) continue;
    const color = KIND_COLOR[m.kind];
    let run = rows[r]!.get(color);
    if (!run) rows[r]!.set(color, (run = { color, y: r * ROW_H + 1, d: '', start: 0, end: 0 }));
    const x = m.step * scale;
    const end = x + Math.max(0.6, ((m.until ?? m.step) + 1 - m.step) * scale);
    if (x >= run.start && x <= run.end) {
      if (end > run.end) run.end = end;
      continue;
    }
    close(run);
    run.start = x;
    run.end = end;
  }
  const out: TimelinePath[] = [];
  rows.forEach((byColor, r) => {
    for (const run of byColor.values()) {
      close(run);
      out.push({ d: run.d, color: run.color, key: `${TIMELINE_ROWS[r]!.key}-${run.color}` });
    }
  });
  return out;
}
