/**
 * The cut points of a request (TurnCutPoints): one list per replay, the last turn's exchange starts
 * spliced out and the asked turn's in. Whatever order turns are asked in, each answer is the plain
 * definition — every turn start, with turn t's exchange starts in their place — and the per-list
 * table of exchange starts is exchangeStarts over each turn.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { exchangesOfTurn, exchangeStarts, isTurnBoundary, turnIndex, TurnCutPoints, turnStarts } from '../../../src/core/turns';
import { assistant, call, toolResult, user } from '../../helpers/session';

/** Turns of exchanges: `[calls, late]` — an assistant message making `calls` calls, its results arriving after a text message when `late`. */
const exchangeArb = fc.tuple(fc.nat({ max: 3 }), fc.boolean());
const sessionArb = fc.tuple(fc.boolean(), fc.array(fc.array(exchangeArb, { maxLength: 8 }), { minLength: 1, maxLength: 10 }));

function build([leadingAgent, turns]: [boolean, [number, boolean][][]]): Message[] {
  // A list may open with agent messages before the first user turn (they form turn 0 with it).
  const messages: Message[] = leadingAgent ? [assistant('before any prompt')] : [];
  let k = 0;
  for (const exchanges of turns) {
    messages.push(user('q'));
    for (const [calls, late] of exchanges) {
      const ids = Array.from({ length: calls }, () => `c${k++}`);
      messages.push(assistant(ids.length ? ids.map((id) => call(id)) : 'text'));
      if (late && ids.length) messages.push(assistant('meanwhile'));
      for (const id of ids) messages.push(toolResult(id));
    }
  }
  return messages;
}

/** The definition: turn t's exchange starts in place among the turn starts. */
function plain(messages: readonly Message[], starts: readonly number[], t: number): number[] {
  return starts.slice(0, t + 1).concat(exchangeStarts(messages, starts[t]!, starts[t + 1] ?? messages.length), starts.slice(t + 1));
}

describe('cut points per turn', () => {
  it('equal the plain definition, turns asked in any order and again (property)', () => {
    fc.assert(
      fc.property(sessionArb, fc.array(fc.nat(), { maxLength: 30 }), (shape, asks) => {
        const messages = build(shape);
        const starts = turnStarts(messages);
        const cuts = new TurnCutPoints(messages, starts);
        // Ascending first (a replay's order), then the asked order, repeats and going back included.
        const order = [...starts.keys(), ...asks.map((a) => a % starts.length)];
        for (const t of order) expect(cuts.of(t)).toEqual(plain(messages, starts, t));
        // The turn starts themselves are never written.
        expect(starts).toEqual(turnStarts(messages));
      }),
    );
  });

  it('the exchange starts of each turn, as exchangeStarts finds them', () => {
    fc.assert(
      fc.property(sessionArb, (shape) => {
        const messages = build(shape);
        const starts = turnStarts(messages);
        for (let t = starts.length - 1; t >= 0; t--)
          expect(exchangesOfTurn(messages, starts, t)).toEqual(exchangeStarts(messages, starts[t]!, starts[t + 1] ?? messages.length));
      }),
    );
  });

  it('a turn with more exchange starts than a spread passes at once', () => {
    const messages: Message[] = [user('q0'), assistant('a')];
    for (let i = 0; i < 5000; i++) messages.push(assistant([call(`c${i}`)]), toolResult(`c${i}`));
    messages.push(user('q1'), assistant([call('x')]), toolResult('x'), assistant('done'), user('q2'), assistant('b'));
    const starts = turnStarts(messages);
    const cuts = new TurnCutPoints(messages, starts);
    for (const t of [1, 0, 2, 0, 0, 1]) expect(cuts.of(t)).toEqual(plain(messages, starts, t));
  });
});

describe('turn boundaries read from the turn index', () => {
  it('past message 0, a message starts a turn exactly where the turn number goes up (property)', () => {
    // S0's async path reads boundaries so (arrival.ts) instead of each message's parts.
    fc.assert(
      fc.property(sessionArb, (shape) => {
        const messages = build(shape);
        const turnOf = turnIndex(messages);
        for (let i = 1; i < messages.length; i++) expect(turnOf[i] !== turnOf[i - 1]).toBe(isTurnBoundary(messages[i]!));
      }),
    );
  });
});
