/**
 * A chart view's markers as columns on the wire (shared/marker-columns.ts): what the window turns
 * back is what the host had, marker for marker and field for field, through JSON as serve sends
 * it; and the columns are smaller than the objects they replace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChartMarker } from '../../../src/shared/api';
import { chartViewFromWire, chartViewToWire, decodeMarkers, encodeMarkers } from '../../../src/shared/marker-columns';
import { chartView } from './fake-client';

const int = fc.nat(2_000_000);
const span = fc.record({ step: int, until: int }, { requiredKeys: ['step'] });
// Plain objects (fast-check may make null-prototype records; the strict comparison would see the prototype).
const marker: fc.Arbitrary<ChartMarker> = fc.oneof(
  fc.record(
    {
      step: int,
      until: int,
      kind: fc.constant('compression' as const),
      path: fc.constantFrom('async' as const, 'proactive' as const, 'emergency' as const),
      strategy: fc.constantFrom('summarize', 'primers-recents', 'observation-masking', ''),
      tokensBefore: int,
      tokensAfter: int,
      lastTokensBefore: int,
      lastTokensAfter: int,
    },
    { requiredKeys: ['step', 'kind', 'path', 'strategy', 'tokensBefore', 'tokensAfter'] },
  ),
  fc.record({ step: int, until: int, kind: fc.constant('source-compaction' as const), trigger: fc.string(), tokensBefore: int, tokensAfter: int }, { requiredKeys: ['step', 'kind', 'trigger'] }),
  fc.tuple(span, fc.constantFrom('warn' as const, 'skip' as const, 'final' as const, 'abort' as const), fc.string()).map(([s, kind, reason]) => ({ ...s, kind, reason })),
).map((m) => ({ ...m }));

describe('marker columns', () => {
  it('turn back into the very markers, through JSON, absent fields absent (property)', () => {
    fc.assert(
      fc.property(fc.array(marker, { maxLength: 40 }), (markers) => {
        const back = decodeMarkers(JSON.parse(JSON.stringify(encodeMarkers(markers))));
        // toStrictEqual: a field absent in the marker must not come back as undefined.
        expect(back).toStrictEqual(markers);
      }),
      { numRuns: 500 },
    );
  });

  it('send each word once and no key names per marker: a chart view of 2,000 compressions is under half the size', () => {
    const steps = Array.from({ length: 2_000 }, (_, i) => 5 * i + 3);
    const view = chartView('k', 10_000, steps);
    const wire = chartViewToWire(view);
    expect(wire.markers.texts).toEqual(['compression', 'proactive', 'summarize']);
    expect(JSON.stringify(wire.markers).length).toBeLessThan(JSON.stringify(view.markers).length / 2);
    expect(chartViewFromWire(JSON.parse(JSON.stringify(wire)))).toStrictEqual(view);
  });
});
