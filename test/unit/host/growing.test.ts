/**
 * A session being imported, as the replay worker holds it (src/main/host/growing.ts): a prefix of
 * what is stored, read on by bounded steps, each replay continued over the new messages
 * (core/replay/resume.ts). The oracle: at every step the replay the worker's engine answers is the
 * full replay of a fresh copy of the messages held, and once everything is read, the full replay of
 * the whole session — under several built-in policies, with random chunk sizes, and with the last
 * stored message sometimes written again by the next chunk (a response extended by its next lines).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReplayConfigInput } from '../../../src/core/config';
import type { Message, Session } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { replay, replayToJSON } from '../../../src/core/replay/index';
import { countWith } from '../../../src/core/tokens/index';
import { countsPrefix, GrowingSessions, type GrowingSource } from '../../../src/main/host/growing';
import { ReplayService, type ReplayInputs } from '../../../src/main/host/replays';
import { assistant, call, session, toolResult, user } from '../../helpers/session';

/** ~`tokens` chars/4 tokens of text naming a file and an order number (facts a summary keeps). */
const words = (tokens: number, k: number): string => `see src/mod${k % 7}.ts ORD-${k % 5} ` + 'ab '.repeat(tokens * 2).slice(0, tokens * 4);

/** Turns of a user message, tool calls with results of random sizes, and an answer. */
const messagesArb = fc
  .array(fc.tuple(fc.integer({ min: 1, max: 150 }), fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 4 })), {
    minLength: 3,
    maxLength: 10,
  })
  .map((turns) => {
    const msgs: Message[] = [];
    let k = 0;
    for (const [ask, results] of turns) {
      msgs.push(user(words(ask, k++)));
      for (const size of results) {
        const id = `c${k++}`;
        msgs.push(assistant([call(id, 'Read', `{"file_path":"src/mod${k % 7}.ts"}`)]));
        msgs.push(toolResult(id, words(size, k++)));
      }
      msgs.push(assistant(words(15, k++)));
    }
    return msgs;
  });

/** A built-in policy made to act on a small session: a small window, chars/4 counts. */
const policyOf = (id: string): ReplayInputs['policy'] => ({
  id,
  config: { ...getPolicy(id)!.config, tokenizer: 'chars4', window: 2_500, maxOutput: 300 } as ReplayConfigInput,
});

const fresh = (ms: readonly Message[]): Message[] => JSON.parse(JSON.stringify(ms)) as Message[];
const cut = (m: Message): Message => ({
  ...m,
  parts: m.parts.map((p) => (p.kind === 'text' ? { ...p, text: p.text.slice(0, Math.ceil(p.text.length / 2)) } : p)),
});

/** A store being written: `stored` messages, the last of them maybe still cut short (its next lines not imported yet). */
class Store implements GrowingSource {
  stored = 0;
  cutLast = false;
  constructor(readonly whole: Session) {}
  storedMessages(): number {
    return this.stored;
  }
  meta(): Omit<Session, 'messages'> {
    const { messages: _, ...meta } = this.whole;
    return meta;
  }
  messages(_id: string, from: number, to: number): Message[] {
    // Parsed from rows: new objects at every read.
    return fresh(this.whole.messages.slice(from, to)).map((m, k) => (this.cutLast && from + k === this.stored - 1 ? cut(m) : m));
  }
  /** The whole session's stored counts (the import's estimates), the last message as stored. */
  counts() {
    const messages = this.messages('s', 0, this.stored);
    return countWith(session([...messages, ...this.whole.messages.slice(this.stored)]), 'chars4');
  }
}

describe('a growing session held as a prefix read on by steps', () => {
  it('answers at every step the full replay of what it holds, and in the end of the whole session', async () => {
    await fc.assert(
      fc.asyncProperty(
        messagesArb,
        fc.constantFrom('claude-code', 'codex', 'openhands-summary', 's2'),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 15 }), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 6 }),
        async (messages, policyId, first, step, chunks) => {
          const store = new Store(session(messages));
          const growing = new GrowingSessions(store, { first, step });
          let held: Session | undefined;
          const service = new ReplayService({
            session: () => held!,
            load: (_id, tokenizer) => (tokenizer === 'chars4' ? countsPrefix(store.counts(), held!.messages.length) : undefined),
          });
          const inputs: ReplayInputs = { sessionId: 's', policy: policyOf(policyId), overrides: {}, needles: [], pins: [] };
          const check = async (): Promise<void> => {
            const got = await service.result(inputs);
            const copy = session(fresh(held!.messages));
            const want = replay(copy, inputs.policy.config, { counts: countWith(copy, 'chars4') });
            expect(replayToJSON(got)).toBe(replayToJSON(await want));
          };
          const readOn = async (): Promise<void> => {
            const grown = growing.catchUp('s', held);
            if (!grown) return;
            held = grown.session;
            service.forget('s', undefined, grown.appended);
            await check();
          };
          /** A chunk stored, as the worker hears of it: held messages it wrote again are read again at once. */
          const chunk = async (stored: number, cutLast: boolean): Promise<void> => {
            const from = store.stored - (store.cutLast ? 1 : 0);
            store.stored = stored;
            store.cutLast = cutLast && stored < messages.length;
            growing.mark('s', true, from);
            const refreshed = held && growing.refresh('s', held);
            if (refreshed) {
              held = refreshed;
              service.forget('s', undefined, true);
            }
            if (held) await check();
          };
          growing.mark('s', true);
          for (const [n, cutLast, read] of chunks) {
            await chunk(Math.min(messages.length, store.stored + n), cutLast);
            // A window asks for the detail and chart after some chunks only (while it draws, chunks land).
            if (read || !held) await readOn();
          }
          await chunk(messages.length, false);
          for (let i = 0; i < messages.length + 2 && held!.messages.length < messages.length; i++) await readOn();
          // Read on to the whole session (the last message as finally stored): the full replay of it.
          await readOn();
          expect(held!.messages.length).toBe(messages.length);
          expect(JSON.stringify(held!.messages)).toBe(JSON.stringify(messages));
          await check();
          // Continued, not replayed from call 0 at each step (the point of holding a prefix).
          if (service.runs > 2 && !chunks.some(([, cutLast]) => cutLast)) expect(service.resumed).toBeGreaterThan(0);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('reads at most `first` messages at once, then at most `step` more per read, never the ones held again', () => {
    const messages = Array.from({ length: 30 }, (_, k) => user(`m${k}`));
    const store = new Store(session(messages));
    const reads: [number, number][] = [];
    const source: GrowingSource = {
      storedMessages: () => store.stored,
      meta: () => store.meta(),
      messages: (id, from, to) => (reads.push([from, to]), store.messages(id, from, to)),
    };
    const growing = new GrowingSessions(source, { first: 4, step: 10 });
    store.stored = 25;
    expect(growing.catchUp('s', undefined)).toBeUndefined(); // not marked as growing
    growing.mark('s', true);
    let held = growing.catchUp('s', undefined)!;
    expect(held.appended).toBe(false);
    expect(held.session.messages).toHaveLength(4);
    held = growing.catchUp('s', held.session)!;
    expect(held.appended).toBe(true);
    expect(held.session.messages).toHaveLength(14);
    held = growing.catchUp('s', held.session)!;
    expect(held.session.messages).toHaveLength(24);
    // A chunk wrote message 20 again: the held ones from there are read again at once (refresh),
    // the rest with the next read on.
    growing.mark('s', true, 20);
    const refreshed = growing.refresh('s', held.session)!;
    expect(refreshed.messages).toHaveLength(24);
    expect(refreshed.messages[19]).toBe(held.session.messages[19]);
    expect(refreshed.messages[20]).not.toBe(held.session.messages[20]);
    expect(growing.refresh('s', refreshed)).toBeUndefined();
    held = growing.catchUp('s', refreshed)!;
    expect(held.session.messages).toHaveLength(25);
    expect(growing.catchUp('s', held.session)).toBeUndefined(); // nothing new
    expect(reads).toEqual([
      [0, 4],
      [4, 14],
      [14, 24],
      [20, 24],
      [24, 25],
    ]);
    // Wholly imported: no longer read by steps.
    growing.mark('s', false);
    store.stored = 30;
    expect(growing.catchUp('s', held.session)).toBeUndefined();
  });

  it('keeps source compactions within the messages held', () => {
    const messages = Array.from({ length: 10 }, (_, k) => user(`m${k}`));
    const whole = session(messages, {
      sourceCompactions: [
        { atMessage: 3, trigger: 'auto' },
        { atMessage: 8, trigger: 'auto' },
      ],
    });
    const store = new Store(whole);
    store.stored = 10;
    const growing = new GrowingSessions(store, { first: 5, step: 5 });
    growing.mark('s', true);
    const held = growing.catchUp('s', undefined)!;
    expect(held.session.sourceCompactions.map((c) => c.atMessage)).toEqual([3]);
    expect(growing.catchUp('s', held.session)!.session.sourceCompactions.map((c) => c.atMessage)).toEqual([3, 8]);
  });
});
