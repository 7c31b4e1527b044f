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
/** Labels as the replay writes them — words around numbers with commas and periods — and any text at all. */
const label = fc.oneof(
  fc.string(),
  fc
    .array(
      fc.oneof(
        fc.constantFrom('context window at ', '% capacity (', '/', ' tokens): over the trigger ', ', ', '.', ' ', ''),
        fc.nat(3_000_000).map((x) => x.toLocaleString('en-US')),
        fc.double({ noNaN: true, min: 0, max: 1e6 }).map(String),
      ),
      { maxLength: 9 },
    )
    .map((xs) => xs.join('')),
);
const span = fc.record({ step: int, until: int }, { requiredKeys: ['step'] });
// Plain objects (fast-check may make null-prototype records; the strict comparison would see the prototype).
const marker: fc.Arbitrary<ChartMarker> = fc
  .oneof(
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
    fc.record(
      { step: int, until: int, kind: fc.constant('source-compaction' as const), trigger: label, tokensBefore: int, tokensAfter: int },
      { requiredKeys: ['step', 'kind', 'trigger'] },
    ),
    fc
      .tuple(span, fc.constantFrom('warn' as const, 'skip' as const, 'final' as const, 'abort' as const), label)
      .map(([s, kind, reason]) => ({ ...s, kind, reason })),
  )
  .map((m) => ({ ...m }));

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

  it('send each word once, each reason shape once, and no key names per marker: a chart view of 2,000 compressions is under half the size', () => {
    const steps = Array.from({ length: 2_000 }, (_, i) => 5 * i + 3);
    const view = chartView('k', 10_000, steps);
    const wire = chartViewToWire(view);
    expect(wire.markers.texts).toEqual(['compression', 'summarize']);
    expect(wire.markers.labels).toEqual([['proactive']]);
    expect(JSON.stringify(wire.markers).length).toBeLessThan(JSON.stringify(view.markers).length / 2);
    expect(chartViewFromWire(JSON.parse(JSON.stringify(wire)))).toStrictEqual(view);
    // Warnings of one shape at other numbers: one shape, the numbers as written.
    const warn = (step: number, used: number): ChartMarker => ({
      step,
      kind: 'warn',
      reason: `context window at ${Math.floor(used / 2_000)}% capacity (${used.toLocaleString('en-US')}/200,000 tokens): over the trigger 80,000`,
    });
    const warnings = [warn(10, 80_631), warn(20, 91_002), warn(30, 123_456)];
    const cols = encodeMarkers(warnings);
    expect(cols.labels).toEqual([['context window at ', '% capacity (', '/', ' tokens): over the trigger ', '']]);
    expect(cols.numbers).toEqual([
      '40',
      '80,631',
      '200,000',
      '80,000',
      '45',
      '91,002',
      '200,000',
      '80,000',
      '61',
      '123,456',
      '200,000',
      '80,000',
    ]);
    expect(decodeMarkers(cols)).toStrictEqual(warnings);
  });
});
