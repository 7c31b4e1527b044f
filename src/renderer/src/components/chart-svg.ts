/**
 * The region chart as a standalone SVG file: the same shapes the canvas draws (chart-draw.ts
 * `chartShapes`, `stepLinePath`, `yTicks`, `markerPaths`) — one path per region series, the
 * window / limit / trigger / compare lines, reported dots, turn ticks, markers, both axes and the
 * legend — under a title. Pure (no DOM), so it is unit-tested; every text is escaped, because a
 * session title comes from a transcript.
 */
import type { ChartView } from '../../../shared/api';
import type { StepStatus } from '../../../core/replay/types';
import { PALETTE, PROMPT_REGIONS, type Palette } from '../colors';
import { fmtInt } from '../format';
import { yMax } from '../model/chart-geometry';
import {
  chartShapes,
  legendItems,
  markerPaths,
  markerStrokes,
  stepLinePath,
  turnTickPath,
  xOfBucket,
  yTicks,
  type Frame,
  type LegendItem,
  type Rect,
} from './chart-draw';

export interface SvgColors {
  readonly background: string;
  readonly text: string;
  readonly muted: string;
  readonly grid: string;
}

export interface SvgOptions {
  readonly title: string;
  readonly subtitle?: string;
  /** B's request per bucket (the compare line) and B's compression calls. */
  readonly compare?: readonly (number | null)[];
  readonly compareSteps?: readonly number[];
  readonly colors: SvgColors;
  /** The theme's chart colours (colors.ts PALETTE), for marks and legend alike; the dark scheme's by default. */
  readonly palette?: Palette;
  /** Total width in px; the plot is the width less the axis margins. */
  readonly width: number;
  readonly plotHeight?: number;
}

/** Text for XML: the five characters with a meaning there become entities; controls are dropped. */
export function escapeXml(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)
  );
}

const HEADER = 46;
const MARGIN = { left: 52, right: 14, top: 10, bottom: 30 };
const LEGEND_ROW = 18;

const rectsPath = (rects: readonly Rect[]): string => rects.map((r) => `M${r.x} ${r.y}h${r.w}v${r.h}h${-r.w}z`).join('');
const attr = (v: string | number): string => escapeXml(String(v));

/** Legend items laid out in rows that fit `width` (text width estimated at 6 px per character). */
function legendRows(width: number, items: readonly LegendItem[]): { x: number; row: number; item: LegendItem }[] {
  const out: { x: number; row: number; item: LegendItem }[] = [];
  let x = MARGIN.left;
  let row = 0;
  for (const item of items) {
    const w = 22 + item.label.length * 6 + 14;
    if (x + w > width - MARGIN.right && x > MARGIN.left) {
      row++;
      x = MARGIN.left;
    }
    out.push({ x, row, item });
    x += w;
  }
  return out;
}

function legendMark(item: LegendItem, x: number, y: number, outline: string): string {
  const c = attr(item.color);
  switch (item.mark) {
    case 'fill':
      return `<rect x="${x}" y="${y - 5}" width="10" height="10" rx="2" fill="${c}"/>`;
    case 'hatched':
      return `<rect x="${x}" y="${y - 5}" width="10" height="10" fill="url(#reserve-hatch)" stroke="${c}"/>`;
    case 'dot':
      // The reported dot in the mark's own colour (the palette keeps it apart from the background), outlined as well.
      return `<rect class="legend-swatch" data-mark="dot" x="${x + 2.5}" y="${y - 2.5}" width="5" height="5" fill="${c}" stroke="${attr(outline)}" stroke-width="0.75"/>`;
    default:
      return `<path d="M${x} ${y}h14" stroke="${c}" stroke-width="2"${item.mark === 'dashed' ? ' stroke-dasharray="4 2"' : item.mark === 'dotted' ? ' stroke-dasharray="1.5 2"' : ''}/>`;
  }
}

export function chartSvg(view: ChartView, o: SvgOptions): string {
  const n = view.bucketStart.length;
  const plotH = o.plotHeight ?? 260;
  // The same scale as the window's chart: the compared policy's largest request counts too.
  const compareTop = (o.compare ?? []).reduce<number>((m, v) => (v !== null && v > m ? v : m), 0);
  const f: Frame = { width: o.width, height: plotH, ...MARGIN, yMax: yMax(view, compareTop > 0 ? [compareTop] : []) };
  const p = o.palette ?? PALETTE.dark;
  const legend = legendRows(o.width, legendItems(p));
  const legendH = (Math.max(0, ...legend.map((l) => l.row)) + 1) * LEGEND_ROW + 8;
  const height = HEADER + plotH + legendH;
  const c = o.colors;
  const shapes = chartShapes(view, f);
  const markers = markerPaths(view, f, o.compareSteps ?? []);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${o.width}" height="${height}" viewBox="0 0 ${o.width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="10">`,
  );
  out.push(`<title>${escapeXml(o.title)}</title>`);
  out.push(
    `<defs><pattern id="reserve-hatch" width="6" height="6" patternUnits="userSpaceOnUse"><path d="M0 6L6 0" stroke="${attr(p.region.reserve)}" stroke-width="1"/></pattern></defs>`,
  );
  out.push(`<rect width="${o.width}" height="${height}" fill="${attr(c.background)}"/>`);
  out.push(`<text x="${MARGIN.left}" y="18" font-size="13" font-weight="600" fill="${attr(c.text)}">${escapeXml(o.title)}</text>`);
  if (o.subtitle) out.push(`<text x="${MARGIN.left}" y="35" font-size="11" fill="${attr(c.muted)}">${escapeXml(o.subtitle)}</text>`);

  out.push(`<g transform="translate(0 ${HEADER})">`);
  // Axes: gridlines with token labels, the plot's frame, call numbers along the bottom.
  const ticks = yTicks(f);
  out.push(
    `<path class="grid" d="${ticks.map((t) => `M${f.left} ${t.y}H${f.width - f.right}`).join('')}" stroke="${attr(c.grid)}" stroke-width="1"/>`,
  );
  out.push(
    `<g class="y-axis" fill="${attr(c.muted)}" text-anchor="end">${ticks.map((t) => `<text x="${f.left - 4}" y="${t.y + 3}">${escapeXml(t.label)}</text>`).join('')}</g>`,
  );
  out.push(
    `<text x="12" y="${f.top + (plotH - f.top - f.bottom) / 2}" fill="${attr(c.muted)}" text-anchor="middle" transform="rotate(-90 12 ${f.top + (plotH - f.top - f.bottom) / 2})">tokens</text>`,
  );
  for (const r of PROMPT_REGIONS)
    out.push(`<path class="region" data-region="${r}" fill="${attr(p.region[r])}" d="${rectsPath(shapes.regions[r])}"/>`);
  out.push(`<path class="region" data-region="reserve" fill="url(#reserve-hatch)" d="${rectsPath(shapes.reserve)}"/>`);
  for (const [st, rects] of Object.entries(shapes.status))
    out.push(`<path class="status" data-status="${attr(st)}" fill="${attr(p.status[st as StepStatus])}" d="${rectsPath(rects)}"/>`);
  if (shapes.flags.length) out.push(`<path class="flag" fill="${attr(p.line.limit)}" d="${rectsPath(shapes.flags)}"/>`);
  const line = (name: string, series: readonly (number | null)[], color: string, dash: string, width: number): void => {
    const d = stepLinePath(f, n, series);
    if (d)
      out.push(
        `<path class="line" data-line="${name}" d="${d}" fill="none" stroke="${attr(color)}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
      );
  };
  line('window', view.window.max, p.line.window, '', 1.25);
  line('limit', view.limit.max, p.line.limit, '5 3', 1.5);
  line('trigger', view.trigger.max, p.line.trigger, '2 3', 1.5);
  if (o.compare) line('compare', o.compare, p.line.compare, '', 1.5);
  if (shapes.reported.length) out.push(`<path class="reported" fill="${attr(p.line.reported)}" d="${rectsPath(shapes.reported)}"/>`);
  out.push(`<path class="turns" d="${turnTickPath(view, f)}" stroke="${attr(c.muted)}" stroke-width="1"/>`);
  for (const m of markerStrokes(p)) {
    const d = markers[m.key];
    if (d)
      out.push(
        `<path class="marker" data-marker="${m.key}" d="${d}" fill="none" stroke="${attr(m.color)}" stroke-width="${m.width}"${m.dash.length ? ` stroke-dasharray="${m.dash.join(' ')}"` : ''}/>`,
      );
  }
  const axisY = plotH - f.bottom;
  out.push(`<path class="x-axis" d="M${f.left} ${axisY + 0.5}H${f.width - f.right}" stroke="${attr(c.grid)}"/>`);
  const last = Math.max(0, view.stepCount - 1);
  out.push(
    `<g class="x-axis" fill="${attr(c.muted)}"><text x="${f.left}" y="${axisY + 17}">call 0</text><text x="${(f.left + f.width - f.right) / 2}" y="${axisY + 17}" text-anchor="middle">LLM call (${fmtInt(view.stepCount)} calls; ticks: turn starts)</text><text x="${xOfBucket(f, n, n)}" y="${axisY + 17}" text-anchor="end">call ${fmtInt(last)}</text></g>`,
  );
  out.push('</g>');

  out.push(`<g class="legend" transform="translate(0 ${HEADER + plotH + 4})" fill="${attr(c.muted)}" font-size="11">`);
  for (const l of legend) {
    const y = l.row * LEGEND_ROW + 9;
    out.push(
      `<g class="legend-item" data-label="${attr(l.item.label)}">`,
      legendMark(l.item, l.x, y, c.muted),
      `<text x="${l.x + 20}" y="${y + 4}">${escapeXml(l.item.label)}</text>`,
      '</g>',
    );
  }
  out.push('</g></svg>');
  return out.join('\n') + '\n';
}
