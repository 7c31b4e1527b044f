/**
 * A request above the model's window is a failure (docs/user-guide.md, statuses): the provider
 * would reject it, whatever the policy's own limit says. It is its own status, counted in the
 * totals and compared like the other totals.
 */
import { describe, expect, it } from 'vitest';
import { getPolicy } from '../../../src/core/policies/index';
import { compare } from '../../../src/core/replay/compare';
import { replay } from '../../../src/core/replay/index';
import { STEP_STATUSES } from '../../../src/core/replay/types';
import { assistant, session, user } from '../../helpers/session';

/** `tokens` tokens under chars4 (4 characters a token). */
const words = (tokens: number): string => 'abcd'.repeat(tokens);

// chars4: call #0 holds 300 + the reply's own 0 → 300 tokens; call #1 holds 300 + 10 + 1,500 = 1,810.
const s = session([user(words(300)), assistant(words(10)), user(words(1_500)), assistant(words(10))]);
const status = (r: Awaited<ReturnType<typeof replay>>, j: number): string => STEP_STATUSES[r.steps.status[j]!]!;

describe('overflow', () => {
  it('marks a call whose request is above the window and counts it', async () => {
    const policy = getPolicy('s2')!;
    // S2, window 1,000: trigger 0.85 × 1,000 = 850. Call #1 (1,810) compresses, but its sliding window
    // of 20 messages keeps all four: still 1,810 > 1,000, so the provider would reject it.
    const r = await replay(s, { ...policy.config, window: 1_000 });
    expect(status(r, 0)).toBe('ok');
    expect(status(r, 1)).toBe('overflow');
    expect(r.totals.overflows).toBe(1);
    expect(r.steps.reasons[r.steps.reasonIndex[1]!]).toMatch(/^request 1,810 > window 1,000: the provider would reject this call/);
  });

  it('is not an overflow when the request fits the window', async () => {
    const r = await replay(s, { ...getPolicy('s2')!.config, window: 10_000 });
    expect(r.totals.overflows).toBe(0);
    expect([status(r, 0), status(r, 1)]).not.toContain('overflow');
  });

  it('is compared like the other totals', async () => {
    const a = await replay(s, { ...getPolicy('s2')!.config, window: 10_000 });
    const b = await replay(s, { ...getPolicy('s2')!.config, window: 1_000 });
    expect(compare(a, b).totals.overflows).toMatchObject({ a: 0, b: 1, delta: 1 });
  });
});
