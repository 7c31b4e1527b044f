/**
 * The fact index carried over live-tail appends (core/replay/retention.ts carryFacts): whatever
 * message the append writes again — the last, or any earlier one, taking back facts it first
 * mentioned — and however many appends follow one another, the carried index is the one a fresh
 * list of the same messages builds: the same keys, ids in order of first mention, mentions. A plain
 * append writes its mentions into the base's buffer: a second list grown from the same base, and
 * the base itself, must read what they read before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { carryFacts, factIndex } from '../../../src/core/replay/retention';
import { assistant, user } from '../../helpers/session';

/** A message naming a few of twelve files and order numbers: facts that are mentioned first, again, or taken back. */
const messageArb = fc.tuple(fc.boolean(), fc.array(fc.nat(11), { maxLength: 4 })).map(([isUser, names]): Message => {
  const text = names.map((k) => `see src/file${k}.ts and ORD-${k}`).join('; ') || 'nothing to note';
  return isUser ? user(text) : assistant(text);
});
const fresh = (ms: readonly Message[]): Message[] => JSON.parse(JSON.stringify(ms)) as Message[];

describe('a fact index carried over appends', () => {
  it('is the index of a fresh list, append after append, whatever message each one writes again', () => {
    fc.assert(
      fc.property(
        fc.array(messageArb, { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.array(messageArb, { maxLength: 5 }), fc.array(messageArb, { maxLength: 3 })), {
          minLength: 1,
          maxLength: 6,
        }),
        (first, appends) => {
          let list = first;
          factIndex(list);
          for (const [cut, added, other] of appends) {
            // Written again from `from` on: any message of the list, or none (a plain append).
            const from = cut % 3 === 0 ? list.length : cut % (list.length + 1);
            const next = [...list.slice(0, from), ...added];
            carryFacts(list, next, from);
            // Another list grown from the same one (its index extended twice): neither changes the other.
            const fork = [...list, ...other];
            carryFacts(list, fork, list.length);
            expect(factIndex(next)).toEqual(factIndex(fresh(next)));
            expect(factIndex(fork)).toEqual(factIndex(fresh(fork)));
            expect(factIndex(list)).toEqual(factIndex(fresh(list)));
            list = next;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
