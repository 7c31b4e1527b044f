/** A user's own strategy (S2's Custom(fn)): used by `custom:<name>` in the pipeline, its result checked. */
import { describe, expect, it } from 'vitest';
import type { ReplayConfigInput } from '../../../src/core/config';
import type { Message } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import type { Strategy } from '../../../src/core/strategies/index';
import { assistant, call, session, toolResult, user } from '../../helpers/session';

const words = (tokens: number): string => 'ab '.repeat(tokens * 2).slice(0, tokens * 4);
/** Turns of [user 100, call, result 100, answer 100]; turn starts every 4 messages. */
function turns(n: number): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < n; t++)
    out.push(user(words(100)), assistant([call(`c${t}`)]), toolResult(`c${t}`, words(100)), assistant(words(100)));
  return out;
}
const base: ReplayConfigInput = {
  tokenizer: 'chars4',
  window: 3_000,
  maxOutput: 200,
  buffer: 0,
  summarizer: 'none',
  trigger: 0.8,
  target: 0.4,
  pipeline: ['custom:last-turn'],
};

/** Keeps only the turn in progress. */
const lastTurn: Strategy = (h, _budget, ctx) => {
  const from = ctx.turnStarts.filter((s) => s < h.end).pop() ?? h.from;
  return { kept: { from: Math.max(from, h.from), keepBefore: [] }, dropped: [], masked: [], note: 'kept the current turn' };
};

describe('custom strategies', () => {
  it('run in the pipeline; the dropped ranges are derived from what they keep', async () => {
    const r = await replay(session(turns(10)), base, { strategies: { 'last-turn': lastTurn } });
    const e = r.events.find((x) => x.kind === 'compression');
    // A turn costs 100 + 3 (call) + 101 (result) + 100 = 304 tokens. 80% of 3,000 = 2,400: the call at
    // message 31 sees 2,332, the call at message 33 sees 8 × 304 + 100 = 2,532 (step 16).
    expect(e).toMatchObject({
      step: 16,
      tokensBefore: 2_532,
      tokensAfter: 100,
      strategy: 'custom:last-turn',
      note: 'kept the current turn',
      dropped: [[0, 31]],
    });
  });

  it('a missing strategy is a clear error', async () => {
    await expect(replay(session(turns(3)), base)).rejects.toThrow(/strategy "custom:last-turn" was not provided \(known: none\)/);
  });

  it('a result that would split a turn or orphan a tool call is refused with the reason', async () => {
    const splitsTurn: Strategy = (h) => ({ kept: { from: h.end - 2, keepBefore: [] }, dropped: [], masked: [], note: '' });
    await expect(replay(session(turns(10)), base, { strategies: { 'last-turn': splitsTurn } })).rejects.toThrow(
      /strategy custom:last-turn: kept.from \d+ is not a turn boundary/,
    );
    const orphans: Strategy = (h, _b, ctx) => {
      const from = ctx.turnStarts.filter((s) => s < h.end).pop()!;
      // Keeps the previous turn's call (message from − 3) but not its result (from − 2).
      return { kept: { from, keepBefore: [from - 3] }, dropped: [], masked: [], note: '' };
    };
    await expect(replay(session(turns(10)), base, { strategies: { 'last-turn': orphans } })).rejects.toThrow(
      /keeps the call in message \d+ but drops its result in message \d+/,
    );
  });

  it('garbage is refused, not replayed', async () => {
    const garbage = (() => ({ kept: 'all' })) as unknown as Strategy;
    await expect(replay(session(turns(10)), base, { strategies: { 'last-turn': garbage } })).rejects.toThrow(
      /kept must be \{ from: index, keepBefore: index\[\] \}/,
    );
  });
});
