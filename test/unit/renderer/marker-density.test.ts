/**
 * Compression markers on the chart: full-height lines while they are sparse; when they are dense
 * (fewer than DENSE_MARKER_GAP_PX pixels apart on average — s0 on a 30,000-call session makes
 * 1,800) they become ticks in a band at the top so the regions stay visible. Every marker counts.
 */
import { describe, expect, it } from 'vitest';
import { DENSE_MARKER_BAND_PX, markerPaths, type Frame } from '../../../src/renderer/src/components/chart-draw';
import { chartView } from './fake-client';

// Plot 600 px wide (700 − 60 − 40), 200 px tall from y = 10 to y = 210.
const frame: Frame = { width: 700, height: 240, left: 60, right: 40, top: 10, bottom: 30, yMax: 1000 };
/** The y where each `M x y V y2` segment of a path ends. */
const ends = (d: string): number[] => [...d.matchAll(/V(\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]));

describe('marker density', () => {
  it('draws sparse compressions as full-height lines', () => {
    // 600 calls, one bucket a call (1 px each); 10 compressions: 60 px apart.
    const view = chartView(
      'k',
      600,
      Array.from({ length: 10 }, (_, i) => i * 60),
    );
    const m = markerPaths(view, frame);
    expect(m.count).toBe(10);
    expect(m.dense).toBe(false);
    expect(ends(m.compression)).toEqual(new Array(10).fill(210));
  });

  it('draws dense compressions as ticks at the top, one stroke per pixel column, counting every marker', () => {
    // 600 calls on 600 px; a compression every 2nd call: 300 markers, 2 px apart (< 6).
    const steps = Array.from({ length: 300 }, (_, i) => i * 2);
    const view = chartView('k', 600, steps);
    const m = markerPaths(view, frame);
    expect(m.count).toBe(300);
    expect(m.dense).toBe(true);
    expect(ends(m.compression)).toEqual(new Array(300).fill(10 + DENSE_MARKER_BAND_PX));
    // Two markers in one bucket (the same column) are one stroke.
    const doubled = { ...view, markers: [...view.markers, { ...view.markers[0]! }] };
    expect(ends(markerPaths(doubled, frame).compression)).toHaveLength(300);
    expect(markerPaths(doubled, frame).count).toBe(301);
  });
});
