/** The library's totals line (src/renderer/src/model/library-totals.ts): a repeated call counted once. */
import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../src/shared/api';
import { libraryTotals } from '../../../src/renderer/src/model/library-totals';

const row = (over: Partial<SessionSummary>): SessionSummary =>
  ({ steps: 0, promptTokens: 0, outputTokens: 0, cost: null, ...over }) as SessionSummary;

describe('libraryTotals', () => {
  it('takes out what a session repeats and counts the repeats as skipped', () => {
    const t = libraryTotals([
      row({ steps: 3, promptTokens: 3_000, outputTokens: 300, cost: 0.03 }),
      // Repeats 2 of the first session's calls (2,000 prompt, 200 output, $0.02) and adds 4 of its own.
      row({
        steps: 6,
        promptTokens: 9_000,
        outputTokens: 900,
        cost: 0.09,
        repeated: { calls: 2, promptTokens: 2_000, outputTokens: 200, cost: 0.02 },
      }),
      // A session without a known cost adds its tokens, not a cost.
      row({ steps: 1, promptTokens: 500, outputTokens: 50, cost: null }),
    ]);
    // calls 3 + (6 − 2) + 1 = 8; prompt 3,000 + 7,000 + 500 = 10,500; output 300 + 700 + 50 = 1,050; cost 0.03 + 0.07 = 0.10.
    expect(t).toMatchObject({ calls: 8, promptTokens: 10_500, outputTokens: 1_050, repeatedCalls: 2 });
    expect(t.cost).toBeCloseTo(0.1, 12);
    expect(libraryTotals([row({ steps: 1 })]).cost).toBeNull();
  });
});
