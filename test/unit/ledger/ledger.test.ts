/**
 * The loss ledger (src/core/replay/ledger.ts) on sessions small enough to work out by hand: what a
 * compression removed, by kind, how it left, whether the summary holds it, and which later message
 * refers to it again.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ledgersAtStep, lossLedgers } from '../../../src/core/replay/ledger';
import { replay } from '../../../src/core/replay/index';
import type { ReplayEvent, ReplayResult } from '../../../src/core/replay/types';
import { assistant, call, codingTurns, msg, result, session, user } from '../../helpers/session';

const messages = [
  user('Please fix formatMoney in src/invoices/format.ts. Never change the public API.'),
  assistant([{ kind: 'text', text: 'Running the tests.' }, call('c1', 'Bash', '{"command":"npm test"}')]),
  msg('user', [result('c1', 'FAIL test/format.test.ts\nTypeError: formatMoney is not a function', true)]),
  assistant('We chose roundHalfEven because banks use it.'),
  user('ok go on'),
  assistant('Fixing formatMoney in src/invoices/format.ts now.'),
  user('thanks'),
  assistant('done'),
];
const s = session(messages);

/** A replay result with one compression before call 2 (message 5): only what the ledger reads. */
function resultWith(event: Extract<ReplayEvent, { kind: 'compression' }>): ReplayResult {
  return { steps: { count: 4, messageIndex: Uint32Array.from([1, 3, 5, 7]) }, events: [event] } as unknown as ReplayResult;
}

describe('loss ledger', () => {
  it('lists what a summarising compression removed, with fate, summary, and the later message that needs it', () => {
    const r = resultWith({
      kind: 'compression',
      step: 2,
      path: 'proactive',
      strategy: 'summarize',
      tokensBefore: 100,
      tokensAfter: 40,
      dropped: [[0, 2]],
      kept: [[3, 4]],
      summary: 'Summary: the user asked to fix formatMoney.',
      note: '',
    });
    const [l, ...rest] = ledgersAtStep(r, s, 2);
    expect(rest).toEqual([]);
    const rows = l!.items.map((i) => [i.kind, i.value, i.messageIndex, i.fate, i.inSummary, i.neededAt]);
    // By hand: message 0 gives the path, the identifier and the user's "Never …"; message 1 the
    // command; message 2 (the failing test run) two error lines, its path and the exception's
    // name (formatMoney again is the same item, listed once from message 0). Message 5, the
    // agent's next words, names formatMoney and src/invoices/format.ts: those are needed later,
    // and so is the TypeError line, which names formatMoney.
    expect(rows).toEqual([
      ['path', 'src/invoices/format.ts', 0, 'summarised', false, 5],
      ['identifier', 'formatMoney', 0, 'summarised', true, 5],
      ['instruction', 'Never change the public API.', 0, 'summarised', false, null],
      ['command', 'npm test', 1, 'summarised', false, null],
      ['error', 'FAIL test/format.test.ts', 2, 'summarised', false, null],
      ['error', 'TypeError: formatMoney is not a function', 2, 'summarised', false, 5],
      ['path', 'test/format.test.ts', 2, 'summarised', false, null],
      ['identifier', 'TypeError', 2, 'summarised', false, null],
    ]);
    // Lost = not in the summary: 8 − formatMoney = 7; needed later among them: the path and the TypeError line.
    expect(l!.lost).toBe(7);
    expect(l!.neededLater).toBe(2);
    expect(l!.byKind.error).toEqual({ lost: 2, neededLater: 1 });
    expect(l!.removed).toEqual([[0, 2]]);
  });

  it('a masked tool result loses only what its result said, and what a kept message still says is not lost', () => {
    const r = resultWith({
      kind: 'compression',
      step: 2,
      path: 'proactive',
      strategy: 'observation-masking',
      tokensBefore: 100,
      tokensAfter: 80,
      dropped: [],
      kept: [[0, 4]],
      masked: [[2, 2]],
      note: '',
    });
    const [l] = ledgersAtStep(r, s, 2);
    // formatMoney is in the result, but message 0 (kept) names it: still in view.
    expect(l!.items.map((i) => [i.kind, i.value, i.fate])).toEqual([
      ['error', 'FAIL test/format.test.ts', 'masked'],
      ['error', 'TypeError: formatMoney is not a function', 'masked'],
      ['path', 'test/format.test.ts', 'masked'],
      ['identifier', 'TypeError', 'masked'],
    ]);
    // Without a summary nothing is held by one: all 4 are lost.
    expect(l!.lost).toBe(4);
  });

  it('lists what the agent itself compacted, against the summary it wrote', async () => {
    const agent = session(messages, {
      sourceCompactions: [{ atMessage: 4, trigger: 'auto', summary: 'Fixing formatMoney; tests fail with a TypeError.' }],
    });
    const r = await replay(agent, { window: 1_000_000, tokenizer: 'chars4' });
    const all = lossLedgers(r, agent);
    expect(all.map((l) => [l.source, l.step])).toEqual([['agent', 2]]);
    const l = all[0]!;
    // Messages 0–3 left the agent's window; message 3 adds the decision.
    expect(l.removed).toEqual([[0, 3]]);
    expect(l.items.find((i) => i.kind === 'decision')).toMatchObject({
      value: 'We chose roundHalfEven because banks use it.',
      messageIndex: 3,
      fate: 'summarised',
    });
    // "TypeError" and "formatMoney" are in the agent's summary.
    expect(l.items.filter((i) => i.inSummary).map((i) => i.value)).toEqual(['formatMoney', 'TypeError']);
  });

  it('every item comes from a message the removal took out, and counts add up (any sliding window)', async () => {
    const long = session(codingTurns(12));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 8 }), async (keep) => {
        const r = await replay(long, {
          window: 4_000,
          trigger: 0.3,
          tokenizer: 'chars4',
          pipeline: ['sliding-window'],
          slidingWindow: keep * 2,
        });
        expect(r.totals.compressions).toBeGreaterThan(0);
        for (const l of lossLedgers(r, long)) {
          for (const it of l.items) expect(l.removed.some(([a, z]) => it.messageIndex >= a && it.messageIndex <= z)).toBe(true);
          const lost = l.items.filter((i) => !i.inSummary);
          expect(l.lost).toBe(lost.length);
          expect(l.neededLater).toBe(lost.filter((i) => i.neededAt !== null).length);
          for (const it of l.items) if (it.neededAt !== null) expect(it.neededAt).toBeGreaterThanOrEqual(r.steps.messageIndex[l.step]!);
        }
      }),
      { numRuns: 7 },
    );
  });
});
