import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { isTurnBoundary, pairToolCalls, safeCut, safeCutAtOrAfter, turnIndex, turnStarts } from '../../../src/core/turns';
import { assistant, call, toolResult, user } from '../../helpers/session';

describe('turns (S0)', () => {
  const msgs = [user('fix the bug'), assistant([call('c1')]), toolResult('c1'), assistant('done'), user('thanks, now tests'), assistant([call('c2')]), toolResult('c2'), assistant('ok')];

  it('start at user messages; a user message carrying only tool results is not a boundary', () => {
    expect(isTurnBoundary(msgs[2]!)).toBe(false);
    expect(turnStarts(msgs)).toEqual([0, 4]);
    expect([...turnIndex(msgs)]).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
  });

  it('safeCut snaps to the nearest turn boundary', () => {
    expect(safeCut(msgs, 1)).toBe(0);
    expect(safeCut(msgs, 2)).toBe(4); // a tie drops more rather than split
    expect(safeCut(msgs, 3)).toBe(4);
    expect(safeCut(msgs, 6)).toBe(4);
    expect(safeCutAtOrAfter(msgs, 1)).toBe(4);
    expect(safeCutAtOrAfter(msgs, 5)).toBe(8);
  });

  it('pairs tool calls with results and reports orphans without failing', () => {
    const broken = [user('x'), assistant([call('a'), call('b')]), toolResult('a'), toolResult('zzz')];
    const p = pairToolCalls(broken);
    expect(p.pairs.get('a')).toEqual([1, 2]);
    expect(p.orphanCalls).toEqual([{ callId: 'b', index: 1 }]);
    expect(p.orphanResults).toEqual([{ callId: 'zzz', index: 3 }]);
  });

  it('a safe cut never separates a tool call from its result (property)', () => {
    // Generated conversations: turns of a user message then assistant calls each answered by a result.
    const turnArb = fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 12 }), fc.nat(), (turns, targetSeed) => {
        const messages: Message[] = [];
        let k = 0;
        for (const t of turns) {
          messages.push(user('q'));
          for (const calls of t) {
            const ids = Array.from({ length: calls }, () => `c${k++}`);
            messages.push(assistant(ids.length ? ids.map((id) => call(id)) : 'text'));
            for (const id of ids) messages.push(toolResult(id));
          }
        }
        const cut = safeCut(messages, targetSeed % (messages.length + 1));
        const kept = messages.slice(cut);
        const p = pairToolCalls(kept);
        expect(p.orphanCalls).toEqual([]);
        expect(p.orphanResults).toEqual([]);
        expect(cut === 0 || isTurnBoundary(messages[cut]!)).toBe(true);
      }),
    );
  });
});
