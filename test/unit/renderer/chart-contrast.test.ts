/**
 * Every mark and line of the chart stands out from the background it is drawn on, in both colour
 * schemes: a contrast ratio of at least 3:1 (WCAG 2.x, success criterion 1.4.11 "non-text
 * contrast"). The ratio is computed here from the definitions, not taken from the code under test:
 * - an sRGB channel c (0–255) becomes c' = c/255, linearised as c'/12.92 when c' ≤ 0.04045,
 *   else ((c' + 0.055) / 1.055)^2.4;
 * - relative luminance L = 0.2126 R + 0.7152 G + 0.0722 B of the linear channels;
 * - contrast ratio (L1 + 0.05) / (L2 + 0.05), L1 the lighter of the two.
 * Checks of the formula: white on black is (1 + 0.05) / (0 + 0.05) = 21; a colour on itself is 1.
 * That the backgrounds are the ones styles.css paints: test/unit/app/theme-background.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PALETTE, THEME_BACKGROUND, type Theme } from '../../../src/renderer/src/colors';
import { legendItems, markerStrokes } from '../../../src/renderer/src/components/chart-draw';

function channel(c: number): number {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}
function luminance(hex: string): number {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  const [r, g, b] = [m[1]!, m[2]!, m[3]!].map((h) => channel(parseInt(h, 16)));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const THEMES: readonly Theme[] = ['dark', 'light'];

/** Every colour the chart draws a mark or line with, by name. */
function marks(theme: Theme): [string, string][] {
  const p = PALETTE[theme];
  return [
    ...Object.entries(p.region).map(([k, v]): [string, string] => [`region ${k}`, v]),
    ...Object.entries(p.line).map(([k, v]): [string, string] => [`line ${k}`, v]),
    ...Object.entries(p.marker).map(([k, v]): [string, string] => [`marker ${k}`, v]),
    // `ok` draws nothing (transparent).
    ...Object.entries(p.status)
      .filter(([k]) => k !== 'ok')
      .map(([k, v]): [string, string] => [`status ${k}`, v]),
  ];
}

describe('the contrast formula', () => {
  it('gives 21:1 for white on black and 1:1 for a colour on itself', () => {
    expect(contrast('#ffffff', '#000000')).toBeCloseTo(21, 6);
    expect(contrast('#339af0', '#339af0')).toBe(1);
    // Mid grey #777777: channel 119/255 = 0.4667 → ((0.4667 + 0.055) / 1.055)^2.4 = 0.1845; on white (1.05) / (0.2345) = 4.48.
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });
});

describe('chart colours against their background', () => {
  it("the backgrounds are the pages' (styles.css --bg; test/unit/app/theme-background.test.ts reads them there)", () => {
    expect(THEME_BACKGROUND).toEqual({ dark: '#101318', light: '#f8f9fb' });
  });

  for (const theme of THEMES) {
    it(`${theme}: every mark and line is at least 3:1 against ${THEME_BACKGROUND[theme]}`, () => {
      const low = marks(theme)
        .map(([name, color]) => ({ name, color, ratio: Math.round(contrast(color, THEME_BACKGROUND[theme]) * 100) / 100 }))
        .filter((m) => m.ratio < 3);
      expect(low).toEqual([]);
    });

    it(`${theme}: the legend and the marker strokes use the marks' own colours`, () => {
      const p = PALETTE[theme];
      const legend = Object.fromEntries(legendItems(p).map((l) => [l.label, l.color]));
      expect(legend['reported prompt']).toBe(p.line.reported);
      expect(legend['agent compacted']).toBe(p.marker['source-compaction']);
      expect(legend['window']).toBe(p.line.window);
      expect(legend['history']).toBe(p.region.history);
      expect(Object.fromEntries(markerStrokes(p).map((m) => [m.key, m.color]))).toEqual({
        source: p.marker['source-compaction'],
        compression: p.marker.compression,
        compare: p.marker.compareCompression,
        ghost: p.marker.compression,
      });
      expect(legend['request before compression (ghost)']).toBe(p.marker.compression);
    });
  }
});
