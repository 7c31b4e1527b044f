/**
 * What the provider counted is carried into every policy (src/core/replay/setup.ts
 * withUnloggedOverhead): a transcript that leaves the system prompt and tools out (15,000 tokens
 * here) still had them in every request, so every policy's estimator counts them as the
 * `unlogged` region — not only the calibrated tokenizer's — and switching policy changes only
 * what the policy changes.
 */
import { describe, expect, it } from 'vitest';
import { getPolicy } from '../../../src/core/policies/index';
import { compare } from '../../../src/core/replay/compare';
import { replay } from '../../../src/core/replay/index';
import { assistant, session, usage, user } from '../../helpers/session';

const HIDDEN = 15_000;
/** `n` tokens under chars4 (4 characters a token), in words a word-based estimator also reads. */
const words = (n: number, seed: number): string =>
  Array.from({ length: n }, (_, i) => `w${String((seed * 31 + i) % 997).padStart(3, '0')}`)
    .join('')
    .slice(0, n * 4);

/** 12 turns of a 400-token question and a 100-token answer; the provider reports 15,000 + what was sent. */
function hiddenOverhead() {
  const msgs = [];
  let sent = 0;
  for (let t = 0; t < 12; t++) {
    msgs.push(user(words(400, t)));
    sent += 400;
    msgs.push(assistant(words(100, 100 + t), { usage: usage(HIDDEN + sent) }));
    sent += 100;
  }
  return session(msgs);
}

describe('the unlogged overhead under every policy', () => {
  it('is counted by a policy that does not calibrate', async () => {
    // s2 counts with chars4: the line through (400k + 500·k…, 15,000 + …) has ratio 1 and overhead 15,000.
    const r = await replay(hiddenOverhead(), { ...getPolicy('s2')!.config, window: 200_000 });
    expect(r.steps.regions.unlogged[0]).toBe(HIDDEN);
    // Call #0 holds the first question (400) and the overhead: what the provider reported.
    expect(r.steps.total[0]).toBe(HIDDEN + 400);
  });

  it('makes no difference between two policies at calls where neither compressed', async () => {
    const s = hiddenOverhead();
    // claude-code on its own estimator (calibrated) and s2 on chars4: before this, s2 read 0 unlogged
    // and Compare showed ~15,000 tokens of "savings" at every call.
    const a = await replay(s, { ...getPolicy('claude-code')!.config, window: 200_000 });
    const b = await replay(s, { ...getPolicy('s2')!.config, window: 200_000 });
    const c = compare(a, b);
    expect(c.compressions.a).toEqual([]);
    expect(c.compressions.b).toEqual([]);
    for (let j = 0; j < c.steps; j++) expect(Math.abs(c.totalDelta[j]!), `call ${j}`).toBeLessThan(1);
  });

  it('is left out when the fitted offset is only the tokenizer’s framing', async () => {
    // 200 tokens over what was sent: under the 1,000-token floor for a system prompt and tools.
    const msgs = [
      user(words(400, 1)),
      assistant(words(100, 2), { usage: usage(600) }),
      user(words(400, 3)),
      assistant(words(100, 4), { usage: usage(1_100) }),
      user(words(400, 5)),
      assistant(words(100, 6), { usage: usage(1_600) }),
    ];
    const r = await replay(session(msgs), { ...getPolicy('s2')!.config, window: 200_000 });
    expect(r.steps.regions.unlogged[0]).toBe(0);
  });
});
