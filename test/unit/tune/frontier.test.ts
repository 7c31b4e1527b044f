/** The tuner's frontier and proposal on hand-made outcomes (arithmetic in the comments). */
import { describe, expect, it } from 'vitest';
import { costBasisOf, outcomeOf, paretoFrontier, propose, tuneResult, parseSweep, type TuneOutcome } from '../../../src/core/tune/index';

const o = (index: number, cost: number, lostFacts = 0, extra: Partial<TuneOutcome> = {}): TuneOutcome => ({
  index,
  cost,
  billedInputTokens: cost * 1_000_000,
  lostFacts,
  lostNeedles: 0,
  forcedFinals: 0,
  aborts: 0,
  compressions: 1,
  peak: 1000,
  ...extra,
});

describe('paretoFrontier over (cost, lost references, forced finals + aborts)', () => {
  it('keeps the settings nothing beats, cheapest first', () => {
    const outcomes = [
      o(0, 1.0, 0), // on: the only one with nothing lost
      o(1, 0.5, 3), // on: cheapest
      o(2, 0.7, 3), // off: #1 is cheaper with as few losses
      o(3, 0.6, 1), // on: dearer than #1 but loses 2 fewer
      o(4, 0.8, 1), // off: #3 is cheaper with as few losses
      o(5, 0.55, 0, { forcedFinals: 1 }), // on: no loss and cheap, though the run ended early (no other point has 0 lost under $0.6)
      o(6, 1.2, 0, { aborts: 1 }), // off: #0 is cheaper, loses as little and never aborts
    ];
    expect(paretoFrontier(outcomes)).toEqual([1, 5, 3, 0]);
  });

  it('keeps ties (none dominates another) and leaves out failed replays', () => {
    expect(paretoFrontier([o(0, 1, 0), o(1, 1, 0), o(2, 0.1, 0, { error: 'boom' })])).toEqual([0, 1]);
  });

  it('compares billed input tokens when no setting costs money (a model without prices)', () => {
    const free = [o(0, 0, 0, { billedInputTokens: 900 }), o(1, 0, 0, { billedInputTokens: 500 }), o(2, 0, 2, { billedInputTokens: 400 })];
    expect(costBasisOf(free)).toBe('tokens');
    // 500 tokens with nothing lost beats 900 with nothing lost; 400 loses 2 but is cheaper: both on.
    expect(paretoFrontier(free)).toEqual([2, 1]);
  });
});

describe('propose', () => {
  it('picks the cheapest setting with no lost fact, no lost needle, no forced final, no abort', () => {
    const outcomes = [
      o(0, 0.3, 2), // loses facts
      o(1, 0.4, 0, { lostNeedles: 1 }), // loses a needle
      o(2, 0.45, 0, { forcedFinals: 1 }), // forces a final turn
      o(3, 0.5, 0, { aborts: 1 }), // aborts
      o(4, 0.9, 0), // qualifies
      o(5, 0.7, 0), // qualifies, cheapest of the two: $0.70 < $0.90
    ];
    const p = propose(outcomes);
    expect(p.proposal).toBe(5);
    expect(p.nearMiss).toBeNull();
    expect(p.verdict).toMatch(
      /cheapest of 2 setting\(s\) that lose no referenced fact or needle and never force a final turn or abort: \$0\.7000/,
    );
  });

  it('breaks a cost tie by billed input tokens, then compressions, then grid order', () => {
    expect(propose([o(0, 0.5, 0, { billedInputTokens: 2 }), o(1, 0.5, 0, { billedInputTokens: 1 })]).proposal).toBe(1);
    expect(propose([o(0, 0.5, 0, { compressions: 3 }), o(1, 0.5, 0, { compressions: 2 })]).proposal).toBe(1);
    expect(propose([o(0, 0.5, 0), o(1, 0.5, 0)]).proposal).toBe(0);
  });

  it('says so when nothing qualifies, and names the best near-miss: fewest early ends, then lost needles, then lost facts, then cost', () => {
    const outcomes = [
      o(0, 0.2, 0, { forcedFinals: 1 }), // ends early: worst, however cheap
      o(1, 0.9, 5), // 5 lost facts, no needle
      o(2, 0.3, 1, { lostNeedles: 1 }), // a lost needle ranks before any number of lost facts
      o(3, 0.8, 5), // 5 lost facts, cheaper than #1: the near-miss
    ];
    const p = propose(outcomes);
    expect(p.proposal).toBeNull();
    expect(p.nearMiss).toBe(3);
    expect(p.verdict).toBe('no setting qualifies; the best near-miss still has 5 lost fact(s) ($0.8000)');
  });

  it('says every replay failed when none ran', () => {
    const p = propose([o(0, 0, 0, { error: 'pipeline: strategy "custom:x" was not provided' })]);
    expect(p).toMatchObject({ proposal: null, nearMiss: null });
    expect(p.verdict).toMatch(/every replay failed \(pipeline: strategy "custom:x"/);
  });
});

describe('outcomeOf and tuneResult', () => {
  it('counts lost facts apart from needles, and a needle once however often it left', () => {
    const r = {
      totals: {
        billedInputTokens: 10,
        cachedInputTokens: 0,
        outputTokens: 1,
        cost: 0.01,
        compressions: 2,
        tokensRemoved: 5,
        peak: 9,
        forcedFinals: 0,
        aborts: 0,
        overflows: 0,
      },
      retention: {
        lost: [
          { key: 'src/a.ts', kind: 'path' as const, lostAt: 1, neededAt: 3 },
          { key: 'ORD-1', kind: 'needle' as const, lostAt: 1, neededAt: 4 },
        ],
        needles: [
          { key: 'ORD-1', firstMessage: 0, leftAt: [1, 5] }, // left twice: one lost needle
          { key: 'kept', firstMessage: 2, leftAt: [] },
        ],
      },
    };
    expect(outcomeOf(7, r)).toMatchObject({ index: 7, lostFacts: 1, lostNeedles: 1, compressions: 2, cost: 0.01 });
  });

  it('gives each point its swept values back from its grid position', () => {
    const sweeps = [parseSweep('trigger=0.6,0.8'), parseSweep('slidingWindow=10:30:10')];
    // Grid index 4 = trigger #1 (0.8), slidingWindow #1 (20): 4 = 1 × 3 + 1.
    const outcomes = Array.from({ length: 6 }, (_, i) => o(i, 1 - i * 0.1, i < 4 ? 1 : 0));
    const r = tuneResult(
      { policy: 's2', sweeps, baseOverrides: { window: 64_000 }, needles: [], calls: 10, elapsedMs: 5, threads: 2 },
      outcomes,
    );
    expect(r.points[4]!.settings).toEqual({ trigger: 0.8, slidingWindow: 20 });
    // #5 ($0.50, nothing lost) is the cheapest of all and loses nothing: the only frontier point and the proposal.
    expect(r.frontier).toEqual([5]);
    expect(r.proposal).toBe(5);
    expect(r.points.filter((p) => p.onFrontier).map((p) => p.index)).toEqual([5]);
  });
});
