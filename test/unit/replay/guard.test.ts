/** S1's turn_preflight as a pure decision (the replay records it as a guard event). */
import { describe, expect, it } from 'vitest';
import { turnPreflight } from '../../../src/core/replay/guard';

const base = { schemaTokens: 500, limit: 10_000, model: 'small', fallbackModels: [] as string[], buffer: 8_192 };

describe('turn_preflight', () => {
  it('ok when only the tool schemas push the projection over the limit', () => {
    expect(turnPreflight({ ...base, projected: 10_400 })).toEqual({
      decision: 'ok',
      reason: 'only the tool schemas overflow: allowed (S1 special case)',
    });
  });
  it('skips to the first fallback model whose limit the projection fits', () => {
    // gpt-3.5-turbo: 16,385 − 8,192 − floor(16,385 / 4) = 4,097 — too small; gpt-4o: 128,000 − 8,192 − 32,000 = 87,808.
    const g = turnPreflight({ ...base, projected: 20_000, fallbackModels: ['gpt-3.5-turbo', 'gpt-4o', 'o3'] });
    expect(g).toMatchObject({
      decision: 'skip',
      fallback: 'gpt-4o',
      limit: 87_808,
      reason: 'projected 20,000 > limit 10,000 on small: skip to gpt-4o',
    });
    expect(g.decision === 'skip' && g.model?.id).toBe('gpt-4o');
  });
  it('forces the final turn when no fallback fits', () => {
    expect(turnPreflight({ ...base, projected: 200_000, fallbackModels: ['gpt-4o'] })).toEqual({
      decision: 'final',
      reason: 'still over limit after shrink: projected 200,000 > limit 10,000; final turn, tools restricted to final_report',
    });
  });
});
