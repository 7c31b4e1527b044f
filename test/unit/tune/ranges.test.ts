/**
 * The tuner's first ranges come from the session and the setting, and a range that cannot work
 * is refused before any replay (src/core/tune/ranges.ts).
 */
import { describe, expect, it } from 'vitest';
import { defaultRange, preferredSweepKey, rangeProblem } from '../../../src/core/tune/ranges';
import type { ConfigField } from '../../../src/shared/api';

const field = (key: string, kind: ConfigField['kind'], extra: Partial<ConfigField> = {}): ConfigField => ({
  key,
  label: key,
  group: 'g',
  kind,
  unit: null,
  min: kind === 'ratio' ? 0 : 1,
  max: kind === 'ratio' ? 1 : null,
  step: null,
  options: null,
  value: null,
  policyValue: null,
  overridden: false,
  applies: true,
  why: null,
  description: '',
  ...extra,
});

// The sample under claude-code: the largest reported prompt ~180,936, the first call 17,888, a 200,000-token model.
const ctx = { largestRequest: 180_936, smallestRequest: 17_888, modelWindow: 200_000 };

describe('tuner ranges', () => {
  it('sweeps a window from the largest request to the model’s window, never from 1', () => {
    // An unset window (value null) used to give "1 to 2". Span 200,000 − 180,936 = 19,064 → a tenth
    // is 1,906 → the plain step 2,000; from = ceil(180,936 / 2,000) × 2,000 = 182,000.
    expect(defaultRange(field('window', 'integer'), ctx)).toEqual({ key: 'window', from: 182_000, to: 200_000, step: 2_000 });
  });
  it('sweeps a trigger share from 0.5 to 0.95', () => {
    expect(defaultRange(field('trigger', 'ratio', { value: 0.8 }), ctx)).toEqual({ key: 'trigger', from: 0.5, to: 0.95, step: 0.05 });
  });
  it('sweeps first what the policy’s trigger acts on: claude-code’s auto-compact share', () => {
    const fields = [
      field('window', 'integer'),
      field('trigger', 'ratio', { applies: false, why: 'the auto-compact formula decides the trigger' }),
      field('autoCompact.pct', 'ratio', { value: 1 }),
      field('target', 'ratio'),
    ];
    expect(preferredSweepKey(fields)).toBe('autoCompact.pct');
    expect(preferredSweepKey([field('window', 'integer'), field('trigger', 'ratio')])).toBe('trigger');
    expect(
      preferredSweepKey([
        field('slidingWindow', 'integer'),
        field('triggerMessages', 'integer', { value: 120 }),
        field('trigger', 'ratio'),
      ]),
    ).toBe('triggerMessages');
  });
  it('refuses a window no call fits, or larger than the model’s', () => {
    const w = field('window', 'integer');
    expect(rangeProblem(w, 1, 2, ctx)).toMatch(/window 1 is below the first call's request \(17,888 tokens\)/);
    expect(rangeProblem(w, 100_000, 400_000, ctx)).toMatch(/above the model's window \(200,000 tokens\)/);
    expect(rangeProblem(w, 182_000, 200_000, ctx)).toBeNull();
  });
  it('refuses a share of 0 and a range upside down', () => {
    const t = field('trigger', 'ratio');
    expect(rangeProblem(t, 0, 0.5, ctx)).toMatch(/share above 0/);
    expect(rangeProblem(t, 0.9, 0.5, ctx)).toMatch(/must be at least/);
    expect(rangeProblem(t, 0.5, 1.2, ctx)).toMatch(/at most 1/);
  });
});
