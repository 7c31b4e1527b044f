/**
 * docs/policies.md §S0, estimate: a tool call counts its ID, type, function name and arguments,
 * each at runes × 2 / 5 (floored per string), plus 4 per message. Expected values worked out by
 * hand from those words.
 */
import { describe, expect, it } from 'vitest';
import { replay } from '../../../src/core/replay/index';
import { createCounter, getTokenizer } from '../../../src/core/tokens/index';
import { policy } from '../../helpers/replay';
import { assistant, call, msg, result, session, user } from '../../helpers/session';

describe('S0 counts a tool call’s type', () => {
  it('one tool call: id + type + name + arguments + overhead', () => {
    const counter = createCounter(getTokenizer('runes2.5'));
    const m = assistant([call('call_1', 'Read', '{"path":"a.ts"}')]);
    // id "call_1": floor(6 × 2 / 5) = 2; type "function": floor(8 × 2 / 5) = 3; name "Read": floor(4 × 2 / 5) = 1;
    // arguments {"path":"a.ts"} (15 runes): floor(30 / 5) = 6. Tool calls 2 + 3 + 1 + 6 = 12, + 4 overhead = 16.
    expect(counter.message(m).toolCalls).toBe(12);
    expect(counter.message(m).total).toBe(16);
  });

  it('a one-tool-call transcript: the history S0 sends', async () => {
    const messages = [
      user('Open the settings file.'),
      assistant([call('call_1', 'Read', '{"path":"a.ts"}')]),
      msg('user', [result('call_1', 'port = 8080')]),
      assistant('Done.'),
    ];
    const r = await replay(session(messages), policy('s0', { summarizer: 'none' }));
    // Before the last call (message 3): the prompt "Open the settings file." (23 runes) floor(46 / 5) = 9, + 4 = 13;
    // the call 16 (above); the result: call id "call_1" 2 + "port = 8080" (11 runes) floor(22 / 5) = 4, + 4 = 10.
    // 13 + 16 + 10 = 39 (without the type it would be 36).
    expect(r.steps.regions.history[1]).toBe(39);
    // The first call sees the prompt only: 13.
    expect(r.steps.regions.history[0]).toBe(13);
  });

  it('other estimators do not count a type S0 alone names', () => {
    // chars4 (S1, S2): ceil(6 / 4) = 2 for the id, ceil(4 / 4) = 1 for the name, ceil(15 / 4) = 4 for the arguments: 7.
    const m = assistant([call('call_1', 'Read', '{"path":"a.ts"}')]);
    expect(createCounter(getTokenizer('chars4')).message(m).toolCalls).toBe(7);
  });
});
