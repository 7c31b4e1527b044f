/**
 * The usage a replay reads at every call comes from the shape's table (setup.ts), built once per
 * message list: it must say what reading each message says — whether it reports usage, its prompt
 * tokens, its output (or none, where the replay bills the counted output), and whether any does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { promptTokens, type Message } from '../../../src/core/model';
import { shapeOf } from '../../../src/core/replay/setup';
import { assistant, usage, user } from '../../helpers/session';

const usageArb = fc.option(
  fc.tuple(fc.constantFrom('anthropic' as const, 'openai' as const), fc.nat(9_999), fc.nat(999), fc.nat(999), fc.nat(999)),
  { nil: undefined },
);

describe('the usage table of a shape', () => {
  it('reads as the messages do (property)', () => {
    fc.assert(
      fc.property(fc.array(usageArb, { maxLength: 30 }), (reports) => {
        const messages: Message[] = [user('go')];
        for (const r of reports)
          messages.push(assistant('a', r ? { usage: { ...usage(r[1], r[2], r[3], r[4]), convention: r[0] } } : {}), user('next'));
        const shape = shapeOf(messages);
        messages.forEach((m, i) => {
          expect(shape.usageAt[i]).toBe(m.usage ? 1 : 0);
          expect(shape.promptOf[i]).toBe(m.usage ? promptTokens(m.usage) : 0);
          expect(shape.outputAt[i] === 1 ? shape.outputOf[i] : undefined).toBe(m.usage?.output);
        });
        expect(shape.anyUsage).toBe(messages.some((m) => m.usage));
      }),
    );
  });
});
