import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { exchangeStarts, isTurnBoundary, pairToolCalls, safeCut, safeCutAtOrAfter, turnIndex, turnStarts } from '../../../src/core/turns';
import { assistant, call, toolResult, user } from '../../helpers/session';

describe('turns (S0)', () => {
  const msgs = [
    user('fix the bug'),
    assistant([call('c1')]),
    toolResult('c1'),
    assistant('done'),
    user('thanks, now tests'),
    assistant([call('c2')]),
    toolResult('c2'),
    assistant('ok'),
  ];

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

  it('exchange starts inside a turn: assistant messages no tool call is open across', () => {
    // One long agent turn: two calls answered together, a text-only message, a call answered late.
    const t = [
      user('go'),
      assistant([call('a'), call('b')]),
      toolResult('a'),
      toolResult('b'),
      assistant('thinking'),
      assistant([call('c')]),
      assistant('still waiting'),
      toolResult('c'),
      assistant('done'),
    ];
    expect(exchangeStarts(t, 0, t.length)).toEqual([1, 4, 5, 8]);
    // Message 6 is not a cut point: call c (message 5) is still open across it.
    expect(exchangeStarts(t, 0, 6)).toEqual([1, 4, 5]);
    expect(exchangeStarts(t, 4, t.length)).toEqual([5, 8]);
  });

  it('cutting at any exchange start keeps every call with its result (property)', () => {
    const turnArb = fc.array(fc.tuple(fc.nat({ max: 3 }), fc.boolean()), { minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(turnArb, (exchanges) => {
        const messages: Message[] = [user('q')];
        let k = 0;
        for (const [calls, late] of exchanges) {
          const ids = Array.from({ length: calls }, () => `c${k++}`);
          messages.push(assistant(ids.length ? ids.map((id) => call(id)) : 'text'));
          if (late && ids.length) messages.push(assistant('meanwhile'));
          for (const id of ids) messages.push(toolResult(id));
        }
        for (const cut of exchangeStarts(messages, 0, messages.length)) {
          const p = pairToolCalls(messages.slice(cut));
          expect(p.orphanResults).toEqual([]);
          expect(p.orphanCalls).toEqual([]);
        }
      }),
    );
  });
});
