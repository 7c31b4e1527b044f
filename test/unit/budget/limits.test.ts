import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BUFFER,
  DEFAULT_WINDOW,
  guardLimit,
  historyBudget,
  resolveLimits,
  windowFromMaxOutput,
} from '../../../src/core/budget/limits';
import {
  backpressureDelayMs,
  capacityStatus,
  checkBudget,
  exceededDimension,
  S4_BUDGET,
  tokenCost,
  ZERO_USAGE,
} from '../../../src/core/budget/layers';
import { callCost, lookupModel, MODELS } from '../../../src/core/catalog';

describe('limits (S0, S1)', () => {
  it('S1 worked example: 128,000 - 8,192 - 16,384 = 103,424', () => {
    expect(guardLimit(128_000, 8_192, 16_384)).toBe(103_424);
    expect(resolveLimits({ window: 128_000, buffer: 8_192, maxOutput: 16_384 }).limit).toBe(103_424);
  });

  it('maxOutput defaults to floor(window / 4) and the buffer to 8,192 (S1)', () => {
    const r = resolveLimits({ window: 100_003 });
    expect(r.maxOutput).toBe(25_000);
    expect(r.buffer).toBe(DEFAULT_BUFFER);
    expect(r.limit).toBe(100_003 - 8_192 - 25_000);
  });

  it('ContextWindow = MaxTokens × 4 when only MaxTokens is known (S0)', () => {
    expect(windowFromMaxOutput(8_192)).toBe(32_768);
    const r = resolveLimits({ maxOutput: 8_192 });
    expect(r.window).toBe(32_768);
    expect(r.windowSource).toBe('maxOutput×4');
  });

  it('resolves the window request > model > provider > default 131,072 (S1)', () => {
    expect(resolveLimits({ window: 50_000, model: 'gpt-4o' }).window).toBe(50_000);
    expect(resolveLimits({ model: 'gpt-4o-2024-08-06' })).toMatchObject({ window: 128_000, windowSource: 'model' });
    expect(resolveLimits({ provider: 'anthropic' })).toMatchObject({ window: 200_000, windowSource: 'provider' });
    expect(resolveLimits({})).toMatchObject({ window: DEFAULT_WINDOW, windowSource: 'default' });
  });

  it('an unknown model falls back to the defaults with a visible warning', () => {
    const r = resolveLimits({ model: 'mystery-model-9' });
    expect(r.window).toBe(131_072);
    expect(r.warnings.join(' ')).toMatch(/unknown model "mystery-model-9"/);
  });

  it('history_budget = window - system - summary - tools - maxOutput (S0)', () => {
    expect(historyBudget(128_000, 2_000, 1_000, 2_000, 16_384)).toBe(106_616);
    expect(resolveLimits({ window: 128_000, maxOutput: 16_384 }).historyBudget(2_000, 1_000, 2_000)).toBe(106_616);
  });

  it('regions are never negative and sum to the window (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 4_096, max: 2_000_000 }),
        fc.nat({ max: 50_000 }),
        fc.nat({ max: 50_000 }),
        fc.nat({ max: 50_000 }),
        fc.nat({ max: 2_000_000 }),
        (window, system, summary, tools, history) => {
          const r = resolveLimits({ window });
          // Stack as the chart does: fixed regions first, history clipped to what is left, then output, buffer, free.
          let left = window;
          const take = (n: number): number => {
            const t = Math.max(0, Math.min(n, left));
            left -= t;
            return t;
          };
          const regions = [take(system), take(summary), take(tools), take(history), take(r.maxOutput), take(r.buffer)];
          const free = left;
          for (const x of [...regions, free]) expect(x).toBeGreaterThanOrEqual(0);
          expect(regions.reduce((a, b) => a + b, 0) + free).toBe(window);
        },
      ),
    );
  });
});

describe('budgets (S3, S4)', () => {
  it('S4 defaults: 200 turns, 1,000,000 tokens, 200 tool calls, $2.00, 30 minutes', () => {
    expect(S4_BUDGET).toEqual({ turns: 200, tokens: 1_000_000, toolCalls: 200, cost: 2, minutes: 30 });
    expect(exceededDimension(S4_BUDGET, { ...ZERO_USAGE, toolCalls: 200 })).toBe('toolCalls');
    expect(exceededDimension(S4_BUDGET, { ...ZERO_USAGE, tokens: 999_999 })).toBeUndefined();
  });

  it('hard mode rejects, soft mode warns and goes on, approval mode asks (S3)', () => {
    const layer = (mode: 'hard' | 'soft' | 'approval') => [
      { name: 'task' as const, limits: { ...S4_BUDGET, tokens: 10_000 }, mode, warningThreshold: 0.8 },
    ];
    const used = { ...ZERO_USAGE, tokens: 9_000 };
    expect(checkBudget(layer('hard'), used, { tokens: 2_000 })).toMatchObject({
      canProceed: false,
      requireApproval: false,
      exceeded: { layer: 'task', dimension: 'tokens' },
    });
    expect(checkBudget(layer('soft'), used, { tokens: 2_000 })).toMatchObject({ canProceed: true, requireApproval: false });
    expect(checkBudget(layer('approval'), used, { tokens: 2_000 })).toMatchObject({ canProceed: true, requireApproval: true });
    const warnOnly = checkBudget(layer('hard'), used, { tokens: 500 });
    expect(warnOnly.canProceed).toBe(true);
    expect(warnOnly.warnings.join()).toMatch(/task tokens budget at 90%/);
  });

  it('checks every layer: session, task and agent', () => {
    const layers = [
      { name: 'session' as const, limits: { ...S4_BUDGET, tokens: 100_000 }, mode: 'hard' as const, warningThreshold: 0.8 },
      { name: 'agent' as const, limits: { ...S4_BUDGET, tokens: 5_000 }, mode: 'hard' as const, warningThreshold: 0.8 },
    ];
    const r = checkBudget(layers, { ...ZERO_USAGE, tokens: 4_000 }, { tokens: 2_000 });
    expect(r.exceeded).toMatchObject({ layer: 'agent', dimension: 'tokens', used: 6_000, max: 5_000 });
  });

  it('backpressure delays at 80/85/90/95% (S3)', () => {
    expect([0.79, 0.8, 0.85, 0.9, 0.95, 1.2].map(backpressureDelayMs)).toEqual([0, 50, 300, 750, 1500, 1500]);
  });

  it('S2 status line', () => {
    expect(capacityStatus(35_200, 40_000, 'compaction applied', 0.87)).toBe(
      'context window at 87% capacity (35,200/40,000 tokens), compaction applied',
    );
    expect(capacityStatus(34_999, 40_000, 'compaction applied')).toBe(
      'context window at 87% capacity (34,999/40,000 tokens), compaction applied',
    );
    expect(capacityStatus(36_000, 40_000)).toBe('context window at 90% capacity (36,000/40,000 tokens)');
  });

  it('S3 cost arithmetic: 50 rounds × 500 tokens at $2.50/M = $0.0625', () => {
    expect(tokenCost(50 * 500, 2.5)).toBeCloseTo(0.0625, 10);
    const gpt4o = lookupModel('gpt-4o');
    expect(gpt4o && callCost(gpt4o, 25_000, 0, 0)).toBeCloseTo(0.0625, 10);
  });

  it('every catalog row has a window, prices, a source and a date', () => {
    for (const m of MODELS) {
      expect(m.window).toBeGreaterThan(0);
      expect(m.maxOutput).toBeGreaterThan(0);
      expect(m.input).toBeGreaterThanOrEqual(0);
      expect(m.source.length).toBeGreaterThan(5);
      expect(m.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(lookupModel('anthropic/claude-sonnet-4-5-20250929')?.id).toBe('claude-sonnet-4-5');
    expect(lookupModel('gpt-4o-mini-2024-07-18')?.id).toBe('gpt-4o-mini');
  });
});
