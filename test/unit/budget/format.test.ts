import { describe, expect, it } from 'vitest';
import { fmt, fmtMax } from '../../../src/core/budget/layers';

// The budget figures are grouped by hand (layers.ts) for speed; they must read exactly as ICU's en-US.
const icuInt = (n: number): string => Math.round(n).toLocaleString('en-US');
const icuMinutes = (n: number): string => `${(Math.round(n * 10) / 10).toLocaleString('en-US')} min`;

const samples = [
  0,
  -0,
  0.4,
  0.5,
  1,
  9,
  12,
  99.5,
  999,
  999.6,
  1_000,
  1_234,
  12_345,
  123_456,
  999_999.5,
  1_000_000,
  1_234_567,
  300_000,
  2 ** 40,
  2 ** 53 + 2,
  1e21,
  -1,
  -1_234.5,
  -0.3,
  Infinity,
  NaN,
];
// A deterministic spread of magnitudes and fractions.
for (let e = 0; e < 16; e++) for (const f of [1, 1.05, 3.33, 5.5, 7.77, 9.99]) samples.push(f * 10 ** e);

describe('budget figures grouped by hand', () => {
  it.each(['tokens', 'turns', 'toolCalls'] as const)('%s read as toLocaleString en-US', (d) => {
    for (const n of samples) {
      expect(fmt(n, d)).toBe(icuInt(n));
      expect(fmtMax(n, d)).toBe(icuInt(n));
    }
  });
  it('minutes read as toLocaleString en-US to a tenth', () => {
    for (const n of [...samples, 0.04, 0.05, 0.15, 12.34, 29.96, 1234.56, -0.01]) expect(fmt(n, 'minutes')).toBe(icuMinutes(n));
  });
  it('spells the S3 budget reason figures', () => {
    expect(fmt(255_000, 'tokens')).toBe('255,000');
    expect(fmtMax(300_000, 'tokens')).toBe('300,000');
    expect(fmt(30.04, 'minutes')).toBe('30 min');
  });
});
