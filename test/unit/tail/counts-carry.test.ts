/**
 * The host's counts of a grown session made from its earlier counts (host/counts-carry.ts) are
 * the counts of the whole session, under every tokenizer: reused for the messages kept as the
 * same objects where each message's count is its own, counted whole where it is not (S3's scale,
 * the calibrated fit).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { countWith, TOKENIZER_IDS } from '../../../src/core/tokens/index';
import { countsCarried } from '../../../src/main/host/counts-carry';
import { assistant, call, session, toolResult, usage, user } from '../../helpers/session';

const messageArb = fc
  .tuple(fc.constantFrom('user', 'assistant', 'call', 'result'), fc.string({ maxLength: 200 }), fc.boolean())
  .map(([kind, text, reported]): Message => {
    if (kind === 'user') return user(text || 'x');
    if (kind === 'call') return assistant([call('c1', 'Read', JSON.stringify({ p: text }))]);
    if (kind === 'result') return toolResult('c1', text);
    return assistant(text || 'y', reported ? { usage: usage(1_000 + text.length, 0, 0, 12) } : {});
  });

describe('counts carried to a grown session', () => {
  it('equal the counts of the whole session, under every tokenizer (property)', () => {
    fc.assert(
      fc.property(
        fc.array(messageArb, { minLength: 1, maxLength: 30 }),
        fc.array(messageArb, { maxLength: 10 }),
        fc.nat(),
        fc.constantFrom(...TOKENIZER_IDS),
        fc.boolean(),
        (first, more, cut, tokenizer, rewriteLast) => {
          const old = first;
          const from = rewriteLast ? old.length - 1 - (cut % old.length) : old.length;
          // The messages from `from` on are written again (other objects, their texts longer), then more follow.
          const grownList = [
            ...old.slice(0, from),
            ...old
              .slice(from)
              .map((m) => ({ ...m, parts: m.parts.map((p) => (p.kind === 'text' ? { ...p, text: p.text + ' and the rest of it' } : p)) })),
            ...more,
          ];
          const options = { mediaTokens: 85, schemaScale: 1 };
          const before = session(old, { systemPrompt: 'You are an agent.' });
          const grown = session(grownList, { systemPrompt: 'You are an agent.' });
          const carried = countsCarried(countWith(before, tokenizer, options), old, grown, options);
          expect(carried).toEqual(countWith(grown, tokenizer, options));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reuses the kept messages’ counts (a message counted before is not counted again)', () => {
    const old = [user('hello there'), assistant('hi')];
    const counts = countWith(session(old), 'chars4');
    // A stand-in count for message 0 shows which figure the carry took.
    const marked = { ...counts, perMessage: Uint32Array.from(counts.perMessage, (v, i) => (i === 0 ? 777 : v)) };
    const grown = session([...old, user('and more')]);
    expect(countsCarried(marked, old, grown, {}).perMessage[0]).toBe(777);
  });
});
