/** Cooperative cancellation: a replay asked to stop ends within STOP_CHECK_EVERY calls, with ReplayCancelled. */
import { describe, expect, it } from 'vitest';
import { replay, ReplayCancelled, STOP_CHECK_EVERY } from '../../../src/core/replay/index';
import { session } from '../../helpers/session';
import { chat, policy } from '../../helpers/replay';

describe('shouldStop', () => {
  const long = session(chat(4 * STOP_CHECK_EVERY + 10, 40));

  it('ends a long replay within STOP_CHECK_EVERY calls of the flag being set', async () => {
    let asked = 0;
    const stopAfter = 2;
    const run = replay(long, policy('s2', { tokenizer: 'chars4' }), { shouldStop: () => ++asked > stopAfter });
    const e = await run.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ReplayCancelled);
    // Asked until it answered true, then never again: stopped at the next check, not at the end.
    expect(asked).toBe(stopAfter + 1);
    expect((e as ReplayCancelled).step).toBe((stopAfter + 1) * STOP_CHECK_EVERY);
    expect((e as ReplayCancelled).step).toBeLessThan(long.messages.length / 2);
  });

  it('changes nothing when it never answers true', async () => {
    const a = await replay(long, policy('s2', { tokenizer: 'chars4' }));
    const b = await replay(long, policy('s2', { tokenizer: 'chars4' }), { shouldStop: () => false });
    expect(Array.from(b.steps.total)).toEqual(Array.from(a.steps.total));
  });
});
