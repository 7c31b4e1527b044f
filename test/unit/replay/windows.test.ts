/**
 * The window at EVERY call, rebuilt from the result (the last compression's kept ranges plus what
 * arrived since), never holds a tool result without its call, nor a call whose result it already
 * passed; pinned messages are always in it. Sessions mix multi-turn chats and single long agent
 * turns with parallel calls and late results, so cuts inside a turn are exercised.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';
import type { ReplayResult } from '../../../src/core/replay/types';
import { pairToolCalls } from '../../../src/core/turns';
import { assistant, call, session, toolResult, user } from '../../helpers/session';

const words = (tokens: number): string => 'ab '.repeat(tokens * 2).slice(0, tokens * 4);

const exchangeArb = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean(), fc.integer({ min: 1, max: 300 }));
const sessionArb = fc
  .array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 200 }), fc.array(exchangeArb, { minLength: 1, maxLength: 8 }), fc.boolean()), {
    minLength: 1,
    maxLength: 8,
  })
  .map((turns) => {
    const msgs: Message[] = [];
    let k = 0;
    turns.forEach(([newTurn, userTokens, exchanges, pin], t) => {
      if (t === 0 || newTurn) msgs.push(user(words(userTokens), pin ? { pinned: true } : {}));
      for (const [calls, late, size] of exchanges) {
        const ids = Array.from({ length: calls }, () => `c${k++}`);
        msgs.push(assistant(ids.length ? ids.map((id) => call(id)) : words(20)));
        if (late && ids.length) msgs.push(assistant(words(10)));
        for (const id of ids) msgs.push(toolResult(id, words(size)));
      }
      msgs.push(assistant(words(15)));
    });
    return msgs;
  });

/** Message indices in the window of each step, from the compression events. */
function windows(r: ReplayResult): number[][] {
  const out: number[][] = [];
  const comps = r.events.filter((e) => e.kind === 'compression');
  let c = 0;
  let base: number[] = [];
  let next = 0;
  for (let j = 0; j < r.steps.count; j++) {
    const end = r.steps.messageIndex[j]!;
    while (c < comps.length && comps[c]!.step === j) {
      const e = comps[c++]!;
      if (e.kind !== 'compression') continue;
      base = e.kept.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, x) => a + x));
      next = base.length ? base[base.length - 1]! + 1 : e.dropped.length ? e.dropped[e.dropped.length - 1]![1] + 1 : 0;
    }
    for (let i = next; i < end; i++) base.push(i);
    next = Math.max(next, end);
    out.push([...base]);
  }
  return out;
}

describe('the window at every call (property)', () => {
  it('orphans nothing and keeps pinned messages, under every compressing policy', async () => {
    const policyArb = fc.constantFrom(
      's0',
      's2',
      's3',
      's4',
      'claude-code',
      'codex',
      'letta',
      'openhands-recent',
      'openhands-summary',
      'openhands-amortized',
    );
    await fc.assert(
      fc.asyncProperty(sessionArb, policyArb, fc.integer({ min: 1_500, max: 6_000 }), async (msgs, id, window) => {
        const triggerMessages = id.startsWith('openhands') ? 12 : undefined;
        const r = await replay(session(msgs), {
          ...getPolicy(id)!.config,
          tokenizer: 'chars4',
          referenceTokenizer: 'runes2.5',
          window,
          maxOutput: 200,
          budget: {},
          summarizer: 'none',
          ...(triggerMessages ? { triggerMessages, recents: 6 } : {}),
        });
        const ws = windows(r);
        const pairs = pairToolCalls(msgs);
        ws.forEach((w, j) => {
          const end = r.steps.messageIndex[j]!;
          const inW = new Set(w);
          for (const [callId, [callAt, resultAt]] of pairs.pairs) {
            if (resultAt < end && inW.has(resultAt)) expect([j, callId, inW.has(callAt)]).toEqual([j, callId, true]);
            if (resultAt < end && inW.has(callAt)) expect([j, callId, inW.has(resultAt)]).toEqual([j, callId, true]);
          }
          for (let i = 0; i < end; i++) if (msgs[i]!.pinned) expect([j, i, inW.has(i)]).toEqual([j, i, true]);
        });
      }),
      { numRuns: 120 },
    );
  });
});
