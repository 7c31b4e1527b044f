/** Sweep specs and the grid: parsed, checked against the config schema's fields, expanded in order, capped. */
import { describe, expect, it } from 'vitest';
import { configFields } from '../../../src/core/config-fields';
import { getPolicy } from '../../../src/core/policies/index';
import { checkSweeps, expandGrid, gridSize, GRID_CAP, parseSweep, SweepError } from '../../../src/core/tune/index';

const s2 = configFields(getPolicy('s2')!.config);
const check = (...specs: string[]): void => checkSweeps(specs.map(parseSweep), s2);

describe('parseSweep', () => {
  it('expands from:to:step with both ends, free of float drift', () => {
    // 0.5, 0.55, …, 0.9: (0.9 − 0.5) / 0.05 + 1 = 9 values; 0.5 + 3 × 0.05 is 0.65, not 0.6500000000000001.
    expect(parseSweep('trigger=0.5:0.9:0.05').values).toEqual([0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9]);
    // 2, 7, 12: 17 is past 14 and is not included.
    expect(parseSweep('slidingWindow=2:14:5').values).toEqual([2, 7, 12]);
    expect(parseSweep('recents=5:5:1').values).toEqual([5]);
  });

  it('takes a list of values, typed (numbers, booleans, words)', () => {
    expect(parseSweep('paths.async=true,false').values).toEqual([true, false]);
    expect(parseSweep('toolOutputMode=truncate,offload').values).toEqual(['truncate', 'offload']);
    expect(parseSweep('window=32000, 64000').values).toEqual([32_000, 64_000]);
  });

  it('refuses a bad spec with a message naming the key and what was expected', () => {
    expect(() => parseSweep('trigger')).toThrow(/--sweep "trigger": expected key=from:to:step or key=a,b,c/);
    expect(() => parseSweep('trigers=0.5:0.9:0.1')).toThrow(/unknown config key "trigers"/);
    expect(() => parseSweep('trigger=0.5:0.9')).toThrow(/trigger=0.5:0.9: expected from:to:step \(three numbers\), got 2 part/);
    expect(() => parseSweep('trigger=a:0.9:0.1')).toThrow(/trigger=a:0.9:0.1: from must be a number, got "a"/);
    expect(() => parseSweep('trigger=0.5:0.9:0')).toThrow(/step must be greater than 0, got 0/);
    expect(() => parseSweep('trigger=0.9:0.5:0.1')).toThrow(/"to" \(0.5\) must be at least "from" \(0.9\)/);
    expect(() => parseSweep('trigger=')).toThrow(/expected values after "="/);
    // 1 / 1e-5 + 1 = 100,001 values: refused before any is made.
    expect(() => parseSweep('trigger=0:1:0.00001')).toThrow(/100,001 values, more than the grid cap of 10,000/);
    expect(() => parseSweep('x')).toThrow(SweepError);
  });
});

describe('checkSweeps against the policy fields (the config schema)', () => {
  it('accepts values inside each field', () => {
    expect(() =>
      check('trigger=0.5:0.95:0.05', 'slidingWindow=5:40:5', 'toolOutputMode=truncate,offload', 'paths.guard=true,false'),
    ).not.toThrow();
  });

  it('refuses values the schema refuses, naming the key and the range', () => {
    // slidingWindow is a positive integer: 0 is out, 2.5 is not whole.
    expect(() => check('slidingWindow=0:4:1')).toThrow(/slidingWindow=0:4:1: slidingWindow: expected at least 1 messages, got 0/);
    expect(() => check('slidingWindow=2.5,3')).toThrow(/slidingWindow: expected a whole number, got 2.5/);
    // A ratio is above 0 and at most 1.
    expect(() => check('trigger=0.5:1.2:0.1')).toThrow(/trigger: expected at most 1 ratio, got 1.1/);
    expect(() => check('trigger=0,0.5')).toThrow(/trigger: expected a ratio above 0 and at most 1, got 0/);
    expect(() => check('toolOutputMode=truncate,zip')).toThrow(
      /toolOutputMode: expected one of auto, full-chunked, read-grep, truncate, head-tail, offload, got "zip"/,
    );
    expect(() => check('paths.guard=yes')).toThrow(/paths.guard: expected true or false, got "yes"/);
    expect(() => check('pipeline=summarize,drop-oldest')).toThrow(/pipeline: cannot be swept \(a list setting\)/);
    expect(() => check('trigger=0.5,0.6', 'trigger=0.7')).toThrow(/"trigger" is swept twice/);
    expect(() => checkSweeps([], s2)).toThrow(/give at least one sweep/);
  });

  it('refuses a setting the policy ignores, saying why, unless a swept switch may turn it on', () => {
    // S2's pipeline is sliding-window: primers (primers-recents) do nothing.
    expect(() => check('primers=1:5:1')).toThrow(
      /primers does nothing under this policy \(the pipeline has no primers-recents\); every value would replay the same/,
    );
    // asyncRatio is ignored while paths.async is off, but a sweep of paths.async may switch it on.
    expect(() => check('asyncRatio=0.5,0.7')).toThrow(/asyncRatio does nothing/);
    expect(() => check('asyncRatio=0.5,0.7', 'paths.async=true,false')).not.toThrow();
  });
});

describe('expandGrid', () => {
  it('is the product of the sweeps, the last varying fastest, on top of the base overrides', () => {
    const sweeps = [parseSweep('trigger=0.6,0.8'), parseSweep('slidingWindow=10:30:10')];
    expect(gridSize(sweeps)).toBe(6); // 2 × 3
    expect(expandGrid(sweeps, { window: 64_000 })).toEqual([
      { window: 64_000, trigger: 0.6, slidingWindow: 10 },
      { window: 64_000, trigger: 0.6, slidingWindow: 20 },
      { window: 64_000, trigger: 0.6, slidingWindow: 30 },
      { window: 64_000, trigger: 0.8, slidingWindow: 10 },
      { window: 64_000, trigger: 0.8, slidingWindow: 20 },
      { window: 64_000, trigger: 0.8, slidingWindow: 30 },
    ]);
  });

  it('a swept key wins over the same base override', () => {
    expect(expandGrid([parseSweep('trigger=0.7')], { trigger: 0.5 })).toEqual([{ trigger: 0.7 }]);
  });

  it('refuses a grid past the cap, naming its product', () => {
    // 101 × 100 = 10,100 settings > 10,000; each sweep alone is under the cap.
    const sweeps = [parseSweep('trigger=0.5:0.6:0.001'), parseSweep('slidingWindow=1:100:1')];
    expect(gridSize(sweeps)).toBe(10_100);
    expect(() => expandGrid(sweeps)).toThrow(
      /the grid has 10,100 settings \(101 trigger × 100 slidingWindow\), more than the grid cap of 10,000/,
    );
    expect(GRID_CAP).toBe(10_000);
  });
});
