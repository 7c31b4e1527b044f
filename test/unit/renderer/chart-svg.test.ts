/**
 * The chart's SVG export: well-formed XML (parsed strictly), a `<script>` in the title stays text,
 * one element per region series whatever the number of buckets, the lines, markers, axes and
 * legend present, and the same geometry the canvas draws.
 */
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { chartSvg, escapeXml } from '../../../src/renderer/src/components/chart-svg';
import { chartShapes, LEGEND, type Frame } from '../../../src/renderer/src/components/chart-draw';
import { PROMPT_REGIONS } from '../../../src/renderer/src/colors';
import type { ChartView } from '../../../src/shared/api';
import { chartView } from './fake-client';

const COLORS = { background: '#101318', text: '#d8dee9', muted: '#8a94a6', grid: '#262c36' };

function parse(xml: string): Document {
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: { warning: () => {}, error: (m: string) => errors.push(m), fatalError: (m: string) => errors.push(m) },
  }).parseFromString(xml, 'image/svg+xml');
  if (errors.length) throw new Error(`not well-formed: ${errors.join('; ')}`);
  return doc as unknown as Document;
}

/** A view where every region, the reserve, a warn status, reported usage and two compressions show. */
function fullView(n: number): ChartView {
  const v = chartView('k', n, [1, n - 1]);
  const fill = (x: number): number[] => new Array<number>(n).fill(x);
  return {
    ...v,
    regions: {
      system: fill(50),
      unlogged: fill(10),
      summary: fill(20),
      history: fill(300),
      tools: fill(40),
      output: fill(100),
      buffer: fill(50),
      free: fill(430),
    },
    window: { min: fill(1000), max: fill(1000) },
    total: { min: fill(420), max: fill(420) },
    limit: { min: fill(850), max: fill(850) },
    trigger: { min: fill(700), max: fill(700) },
    reported: { min: fill(430), max: fill(430) },
    status: v.status.map((s, i) => (i === 2 ? 'warn' : s)),
    markers: [...v.markers, { step: 3, kind: 'source-compaction', trigger: 'auto' }],
  };
}

const elements = (doc: Document, tag: string): Element[] => Array.from(doc.getElementsByTagName(tag));

describe('chart SVG export', () => {
  it('is well-formed XML with a <script> title kept as text', () => {
    const title = '<script>alert(1)</script> & "quotes" \'too\'';
    const xml = chartSvg(fullView(8), { title, subtitle: 'p1 · <b>8</b> calls', colors: COLORS, width: 600 });
    const doc = parse(xml);
    expect(elements(doc, 'script')).toHaveLength(0);
    expect(elements(doc, 'b')).toHaveLength(0);
    expect(xml).not.toContain('<script>');
    expect(doc.getElementsByTagName('title')[0]!.textContent).toBe(title);
    expect(elements(doc, 'text').some((t) => t.textContent === title)).toBe(true);
    expect(escapeXml('a\u0000b<')).toBe('ab&lt;');
  });

  it('draws one element per region series, however many buckets', () => {
    for (const n of [3, 400]) {
      const doc = parse(chartSvg(fullView(n), { title: 't', colors: COLORS, width: 900 }));
      const regions = elements(doc, 'path').filter((p) => p.getAttribute('class') === 'region');
      expect(regions.map((p) => p.getAttribute('data-region'))).toEqual([...PROMPT_REGIONS, 'reserve']);
      // Each series holds one rectangle per bucket (every bucket has every region here).
      for (const p of regions) expect((p.getAttribute('d') ?? '').match(/M/g)).toHaveLength(n);
    }
  });

  it('has the limit, trigger and window lines, the markers, both axes and the legend', () => {
    const doc = parse(
      chartSvg(fullView(8), { title: 't', colors: COLORS, width: 600, compare: new Array<number | null>(8).fill(380), compareSteps: [4] }),
    );
    const paths = elements(doc, 'path');
    expect(paths.filter((p) => p.getAttribute('class') === 'line').map((p) => p.getAttribute('data-line'))).toEqual([
      'window',
      'limit',
      'trigger',
      'compare',
    ]);
    const markers = paths.filter((p) => p.getAttribute('class') === 'marker');
    // The ghost: a compression's request before it, drawn above the bar sent after (the view's tokensBefore exceeds its bucket's total).
    expect(markers.map((p) => p.getAttribute('data-marker')).sort()).toEqual(['compare', 'compression', 'ghost', 'source']);
    expect((markers.find((p) => p.getAttribute('data-marker') === 'compression')!.getAttribute('d') ?? '').match(/M/g)).toHaveLength(2);
    expect(paths.some((p) => p.getAttribute('data-status') === 'warn')).toBe(true);
    const texts = elements(doc, 'text').map((t) => t.textContent ?? '');
    expect(texts).toEqual(expect.arrayContaining(['0', 'call 0', 'call 7', 'tokens']));
    for (const l of LEGEND) expect(texts).toContain(l.label);
  });

  it('uses the canvas geometry: the history rectangles are the ones chartShapes gives', () => {
    const view = fullView(5);
    const xml = chartSvg(view, { title: 't', colors: COLORS, width: 500 });
    const history = parse(xml).getElementsByTagName('path');
    const d = Array.from(history)
      .find((p) => p.getAttribute('data-region') === 'history')!
      .getAttribute('d')!;
    // The SVG's plot frame: 500 wide, 260 high, margins 52 / 14 / 10 / 30, scale from yMax.
    const first = /^M([\d.]+) ([\d.]+)h([\d.]+)v([\d.]+)/.exec(d)!;
    const f: Frame = { width: 500, height: 260, left: 52, right: 14, top: 10, bottom: 30, yMax: 1000 * 1.06 };
    const r = chartShapes(view, f).regions.history[0]!;
    expect(Number(first[1])).toBeCloseTo(r.x);
    expect(Number(first[2])).toBeCloseTo(r.y);
    expect(Number(first[3])).toBeCloseTo(r.w);
    expect(Number(first[4])).toBeCloseTo(r.h);
  });
});
