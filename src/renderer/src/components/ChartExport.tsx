/**
 * PNG and SVG of the region chart. The PNG is the chart's own canvas (already at the device pixel
 * ratio) on the page's background with the marker paths drawn over it, since on screen they are a
 * separate SVG layer. The SVG is built from the same ChartView and geometry (chart-svg.ts), with
 * axes and the legend, so it reads on its own.
 */
import type { RefObject } from 'react';
import { exportFileName } from '../../../core/export/file-name';
import { useAppStoreApi } from '../context';
import { downloadBlob } from '../download';
import { fmtInt } from '../format';
import { PALETTE } from '../colors';
import { markerPaths, markerStrokes, type Frame } from './chart-draw';
import { themeNow } from '../theme';
import { chartSvg } from './chart-svg';

interface Props {
  readonly canvas: RefObject<HTMLCanvasElement | null>;
  readonly frame: Frame;
  readonly compare?: readonly (number | null)[];
}

function cssVar(el: Element, name: string, fallback: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || fallback;
}

export function ChartExport({ canvas, frame, compare }: Props) {
  const store = useAppStoreApi();
  const names = (extension: string): { file: string; title: string } | null => {
    const { chart, detail, currentId } = store.getState();
    if (!chart) return null;
    const title = detail?.summary.title ?? currentId ?? 'session';
    return { file: exportFileName({ title, policy: chart.policy, format: 'chart', extension }), title };
  };

  const png = (): void => {
    const c = canvas.current;
    const { chart, comparison } = store.getState();
    const n = names('png');
    if (!c || !chart || !n) return;
    const dpr = c.width / frame.width;
    const out = document.createElement('canvas');
    out.width = c.width;
    out.height = c.height;
    const ctx = out.getContext('2d');
    if (!ctx) return;
    ctx.fillStyle = cssVar(c, '--bg', '#101318');
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.drawImage(c, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const paths = markerPaths(chart, frame, comparison?.compressions.b ?? []);
    for (const m of markerStrokes(PALETTE[themeNow()])) {
      if (!paths[m.key]) continue;
      ctx.strokeStyle = m.color;
      ctx.lineWidth = m.width;
      ctx.setLineDash([...m.dash]);
      ctx.stroke(new Path2D(paths[m.key]));
    }
    out.toBlob((blob) => blob && downloadBlob(n.file, blob), 'image/png');
  };

  const svg = (): void => {
    const c = canvas.current;
    const { chart, comparison } = store.getState();
    const n = names('svg');
    if (!c || !chart || !n) return;
    const compressions = chart.markers.filter((m) => m.kind === 'compression').length;
    const text = chartSvg(chart, {
      title: n.title,
      subtitle: `${chart.policy} · ${fmtInt(chart.stepCount)} calls · ${fmtInt(compressions)} compression${compressions === 1 ? '' : 's'}${comparison ? ` · compared with ${comparison.b.policy}` : ''}`,
      ...(compare ? { compare } : {}),
      compareSteps: comparison?.compressions.b ?? [],
      colors: {
        background: cssVar(c, '--bg', '#101318'),
        text: cssVar(c, '--text', '#d8dee9'),
        muted: cssVar(c, '--muted', '#8a94a6'),
        grid: cssVar(c, '--line', '#262c36'),
      },
      palette: PALETTE[themeNow()],
      width: frame.width,
    });
    downloadBlob(n.file, new Blob([text], { type: 'image/svg+xml' }));
  };

  // Clicks here must not select a call on the chart underneath.
  return (
    <div className="chart-export" onClick={(e) => e.stopPropagation()} onMouseMove={(e) => e.stopPropagation()}>
      <button data-testid="export-chart-png" title="The chart as a PNG at this screen's pixel density" onClick={png}>
        PNG
      </button>
      <button data-testid="export-chart-svg" title="The chart as an SVG with axes and legend" onClick={svg}>
        SVG
      </button>
    </div>
  );
}
