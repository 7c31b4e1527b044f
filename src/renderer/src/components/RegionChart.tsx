/**
 * The region chart: the host's ChartView drawn on a canvas (one column per pixel), with the
 * markers — compressions by path, source compactions, the compared policy's compressions — as one
 * SVG layer (a path per kind, never an element per marker) whose count is on `data-markers`. Hover
 * shows the bucket's fullest call; click selects a call; the cursor follows the selection.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useAppStore } from '../context';
import { PALETTE, PROMPT_REGIONS, REGION_LABEL, type Theme } from '../colors';
import { bucketFlag, bucketRange, markersInBucket, stepForBucket, yMax } from '../model/chart-geometry';
import { fmtInt } from '../format';
import { bucketReason } from '../model/hover';
import { markerLabel } from '../model/marker-label';
import { drawChart, legendItems, markerStrokes, markerPaths, markerX, plotWidth, reduceToBuckets, type Frame } from './chart-draw';
import { ChartExport } from './ChartExport';
import { themeNow, useTheme } from '../theme';
import { NEEDLE_COLOR } from './NeedleNotes';

const MARGIN = { left: 44, right: 8, top: 10, bottom: 8 };

function cssVar(el: Element, name: string, fallback: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || fallback;
}

/**
 * The theme's text and grid colours for the canvas, read once per colour scheme: reading them
 * at every draw made the browser recompute the styles of the DOM React had just changed
 * (getComputedStyle), ~2 ms of each new chart before its frame. The theme changes them only
 * with the scheme (styles.css, prefers-color-scheme), which matchMedia tells without styles.
 */
let ink: { readonly light: boolean; readonly text: string; readonly grid: string } | null = null;
function inkOf(el: Element): { readonly text: string; readonly grid: string } {
  const light = themeNow() === 'light';
  if (ink?.light !== light) ink = { light, text: cssVar(el, '--muted', '#8a94a6'), grid: cssVar(el, '--line', '#262c36') };
  return ink;
}

export function RegionChart() {
  const chart = useAppStore((s) => s.chart);
  const chartError = useAppStore((s) => s.chartError);
  const loading = useAppStore((s) => s.chartLoading);
  const selectedStep = useAppStore((s) => s.selectedStep);
  const selectStep = useAppStore((s) => s.selectStep);
  const setBuckets = useAppStore((s) => s.setBuckets);
  const comparison = useAppStore((s) => s.comparison);
  const theme = useTheme();
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [hover, setHover] = useState<{ b: number; x: number; y: number } | null>(null);

  // The chart's pixel width is the number of buckets the host reduces the replay to.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => {
      const r = el.getBoundingClientRect();
      setSize({ width: Math.floor(r.width), height: Math.floor(r.height) });
      setBuckets(Math.floor(r.width) - MARGIN.left - MARGIN.right);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [setBuckets]);

  const compareLine = useMemo(
    () =>
      chart && comparison && comparison.b.steps.total.length === chart.stepCount
        ? reduceToBuckets(chart, comparison.b.steps.total)
        : undefined,
    [chart, comparison],
  );
  const frame: Frame | null = useMemo(() => {
    if (!chart || size.width === 0) return null;
    const extra = compareLine ? compareLine.filter((v): v is number => v !== null) : [];
    return { width: size.width, height: size.height, ...MARGIN, yMax: yMax(chart, extra.length ? [Math.max(...extra)] : []) };
  }, [chart, size, compareLine]);

  useEffect(() => {
    const c = canvas.current;
    if (!c || !chart || !frame) return;
    const dpr = window.devicePixelRatio || 1;
    // Setting a canvas's size, even to the one it has, drops and reallocates its bitmap: only on a resize.
    const w = Math.floor(frame.width * dpr);
    const h = Math.floor(frame.height * dpr);
    if (c.width !== w) c.width = w;
    if (c.height !== h) c.height = h;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const { text, grid } = inkOf(c);
    drawChart(ctx, chart, frame, { ...(compareLine ? { compare: compareLine } : {}), text, grid, palette: PALETTE[theme] });
  }, [chart, frame, compareLine, theme]);

  // The marker layer follows the chart, not the selection: stepping redraws the cursor alone.
  const paths = useMemo(
    () => (chart && frame ? markerPaths(chart, frame, comparison?.compressions.b ?? []) : null),
    [chart, frame, comparison],
  );
  // Calls with stored probe results under this policy (ProbePanel.tsx): a small diamond each at the top.
  const probeRuns = useAppStore((s) => s.probeRuns);
  const policyId = useAppStore((s) => s.policyId);
  const probed = useMemo(
    () => [...new Set(probeRuns.filter((r) => r.policy === policyId && chart && r.step < chart.stepCount).map((r) => r.step))],
    [probeRuns, policyId, chart],
  );
  const probeD =
    chart && frame
      ? probed
          .map((st) => {
            const x = markerX(chart, frame, st);
            return `M${x} ${frame.top}l4 5l-4 5l-4 -5z`;
          })
          .join('')
      : '';
  const cursor = chart && frame && selectedStep !== null ? markerX(chart, frame, selectedStep) : null;

  if (!chart) {
    return (
      <section className="region-chart empty" data-testid="region-bars" ref={box}>
        {chartError ? `Replay unavailable: ${chartError}` : 'Replaying…'}
      </section>
    );
  }

  const bucketAt = (clientX: number): number | null => {
    const el = box.current;
    if (!el || !frame) return null;
    const x = clientX - el.getBoundingClientRect().left - frame.left;
    if (x < 0 || x > plotWidth(frame)) return null;
    const n = chart.bucketStart.length;
    return Math.min(n - 1, Math.floor((x / plotWidth(frame)) * n));
  };

  return (
    <section
      className="region-chart"
      data-testid="region-bars"
      data-key={chart.key}
      data-buckets={chart.bucketStart.length}
      data-steps={chart.stepCount}
      aria-label="Context window per LLM call"
      ref={box}
      onMouseMove={(e) => {
        const b = bucketAt(e.clientX);
        const r = box.current?.getBoundingClientRect();
        setHover(b === null || !r ? null : { b, x: e.clientX - r.left, y: e.clientY - r.top });
      }}
      onMouseLeave={() => setHover(null)}
      onClick={(e) => {
        const b = bucketAt(e.clientX);
        if (b !== null) selectStep(stepForBucket(chart, b, markersInBucket(chart, b)));
      }}
    >
      <canvas ref={canvas} style={{ width: size.width, height: size.height }} />
      {paths && frame ? (
        <svg
          className="chart-markers"
          width={size.width}
          height={size.height}
          data-testid="chart-markers"
          data-markers={paths.count}
          data-dense={paths.dense ? 'true' : 'false'}
        >
          {markerStrokes(PALETTE[theme]).map((m) =>
            paths[m.key] ? (
              <path
                key={m.key}
                d={paths[m.key]}
                stroke={m.color}
                strokeDasharray={m.dash.join(' ') || undefined}
                strokeWidth={m.width}
                {...(m.key === 'compare' ? { 'data-testid': 'compare-markers' } : {})}
              />
            ) : null,
          )}
          {probed.length > 0 ? (
            <path
              d={probeD}
              fill="#f59f00"
              stroke="none"
              data-testid="probe-markers"
              data-count={probed.length}
              data-steps={probed.join(' ')}
            />
          ) : null}
          {/* Needles: a mark at the top at each call where one left the window. */}
          {(chart.retention.needles ?? []).flatMap((t) =>
            t.leftAt.map((c) => {
              const x = markerX(chart, frame, c);
              return (
                <path
                  key={`${t.key}@${c}`}
                  className="needle-mark"
                  data-testid="needle-mark"
                  data-step={c}
                  d={`M${x - 5} ${frame.top}h10l-5 8z`}
                  fill={NEEDLE_COLOR}
                  stroke="none"
                >
                  <title>{`needle “${t.key}” left the window at call ${c}`}</title>
                </path>
              );
            }),
          )}
          {cursor !== null ? (
            <path
              d={`M${cursor} 0V${size.height}`}
              stroke={PALETTE[theme].line.cursor}
              strokeWidth={2}
              data-testid="chart-cursor"
              data-step={selectedStep ?? ''}
            />
          ) : null}
        </svg>
      ) : null}
      {loading ? <span className="chart-busy">replaying…</span> : null}
      {frame ? <ChartExport canvas={canvas} frame={frame} {...(compareLine ? { compare: compareLine } : {})} /> : null}
      {hover ? <HoverCard b={hover.b} x={hover.x} y={hover.y} width={size.width} theme={theme} /> : null}
    </section>
  );
}

function HoverCard({ b, x, y, width, theme }: { b: number; x: number; y: number; width: number; theme: Theme }) {
  const chart = useAppStore((s) => s.chart);
  if (!chart) return null;
  const [from, to] = bucketRange(chart, b);
  const peak = chart.peakStep[b] ?? from;
  const markers = markersInBucket(chart, b);
  const flag = bucketFlag(chart, b);
  const total = chart.total.max[b];
  const limit = chart.limit.max[b];
  const trigger = chart.trigger.max[b];
  const reported = chart.reported.max[b];
  const windowSize = chart.window.max[b];
  return (
    <div className="hover-card" data-testid="chart-hover" style={{ left: Math.min(x + 12, width - 300), top: Math.max(0, y - 40) }}>
      <strong>call #{peak}</strong>
      {from !== to ? (
        <span className="muted">
          {' '}
          (fullest of calls {from}–{to})
        </span>
      ) : null}
      <div>
        request {total === null || total === undefined ? '—' : fmtInt(total)} · status {chart.status[b]}
        {flag ? <span className="flag"> · {flag === 'over-window' ? 'ABOVE THE WINDOW' : 'ABOVE THE LIMIT'}</span> : null}
      </div>
      <div className="hover-reason" data-testid="chart-hover-reason">
        <bdi>{bucketReason(chart, b)}</bdi>
      </div>
      <div className="muted">
        limit {limit === null || limit === undefined ? '—' : fmtInt(limit)} · trigger{' '}
        {trigger === null || trigger === undefined ? 'none' : fmtInt(trigger)} · window{' '}
        {windowSize === null || windowSize === undefined ? '—' : fmtInt(windowSize)}
        {reported !== null && reported !== undefined ? ` · reported ${fmtInt(reported)}` : ''}
      </div>
      <table>
        <tbody>
          {PROMPT_REGIONS.map((r) => (
            <tr key={r}>
              <td>
                <i className="swatch" style={{ background: PALETTE[theme].region[r] }} /> {REGION_LABEL[r]}
              </td>
              <td>{fmtInt(chart.regions[r][b] ?? 0)}</td>
            </tr>
          ))}
          <tr>
            <td>
              <i className="swatch hatched" /> output reserve + buffer
            </td>
            <td>{fmtInt((chart.regions.output[b] ?? 0) + (chart.regions.buffer[b] ?? 0))}</td>
          </tr>
        </tbody>
      </table>
      {markers.slice(0, 4).map((m, i) => (
        <div key={i} className={`marker-line marker-${m.kind}`}>
          #{m.step} <bdi>{markerLabel(m)}</bdi>
        </div>
      ))}
      {markers.length > 4 ? <div className="muted">and {markers.length - 4} more</div> : null}
    </div>
  );
}

/** The legend, in stack order (bottom first), then the lines and markers (chart-draw.ts LEGEND). */
export function ChartLegend() {
  const theme = useTheme();
  return (
    <div className="chart-legend" data-testid="chart-legend">
      {legendItems(PALETTE[theme]).map((l) => (
        <span key={l.label}>
          {l.mark === 'fill' ? (
            <i className="swatch" style={{ background: l.color }} />
          ) : l.mark === 'hatched' ? (
            <i className="swatch hatched" style={{ borderColor: l.color }} />
          ) : l.mark === 'dot' ? (
            <i className="dot" style={{ background: l.color }} />
          ) : (
            <i className={`line${l.mark === 'line' ? '' : ` ${l.mark}`}`} style={{ borderColor: l.color }} />
          )}
          {l.label}
        </span>
      ))}
    </div>
  );
}
