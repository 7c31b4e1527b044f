/**
 * What a replay reads of every message for billing (core/replay/cost.ts: the cache rules' facts and
 * the timestamp table), carried to the list a live-tail append makes (core/replay/carry.ts): the
 * grown list's rules and bill are those of the same messages read fresh, whatever the append
 * brought (the first usage, a 1-hour cache write, the first timestamps) — and a message written
 * again is never folded onto what it used to say.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { carryReplayCaches } from '../../../src/core/replay/carry';
import { cacheRulesOf } from '../../../src/core/replay/cost';
import { replay, replayToJSON } from '../../../src/core/replay/index';
import { assistant, session, user } from '../../helpers/session';

/** A message as the arbitrary says: an answer with or without usage (cache fields, a 1-hour write), with or without a timestamp. */
const messageArb = fc
  .tuple(fc.boolean(), fc.boolean(), fc.boolean(), fc.constantFrom('anthropic', 'openai'), fc.nat(3), fc.nat(3), fc.boolean(), fc.nat(50))
  .map(([isUser, reports, timed, convention, read, write, write1h, k]): Message => {
    const extra = timed ? { timestamp: 1_700_000_000_000 + k * 60_000 } : {};
    if (isUser) return user(`question ${k} ` + 'ab '.repeat(k), extra);
    return assistant(`answer ${k}`, {
      ...extra,
      ...(reports
        ? {
            usage: {
              convention,
              input: 1_000 + k * 50,
              cacheRead: read * 500,
              cacheWrite: write * 300,
              ...(write1h && write > 0 ? { cacheWrite1h: write * 300 } : {}),
              output: 20,
            },
          }
        : {}),
    });
  });

const fresh = (ms: readonly Message[]): Message[] => JSON.parse(JSON.stringify(ms)) as Message[];

describe('billing facts carried over an append', () => {
  it('give the rules and the bill of the grown list read fresh (appended or written again from any message)', async () => {
    const config = getPolicy('claude-code')!.config;
    await fc.assert(
      fc.asyncProperty(
        fc.array(messageArb, { minLength: 2, maxLength: 30 }),
        fc.array(messageArb, { minLength: 1, maxLength: 10 }),
        fc.nat(),
        async (before, added, cut) => {
          const old = [user('start'), ...before];
          // Written again from `from` on: up to the whole tail of `old` (from = old.length: a pure append).
          const from = old.length - (cut % 3 === 0 ? 0 : cut % old.length);
          const next = [...old.slice(0, from), ...added];
          // The old list's caches made (a replay of it), then carried as the host carries them.
          await replay(session(old), config);
          carryReplayCaches(old, next, from);
          expect(cacheRulesOf(session(next), undefined)).toEqual(cacheRulesOf(session(fresh(next)), undefined));
          expect(replayToJSON(await replay(session(next), config))).toBe(replayToJSON(await replay(session(fresh(next)), config)));
        },
      ),
      { numRuns: 200 },
    );
  });
});
