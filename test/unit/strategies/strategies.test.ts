/**
 * Each strategy on a hand-built window whose token counts are given directly, so every cut can be
 * checked by hand. The session: 5 turns of [user 100, assistant+call 50, tool result 400,
 * answer 100] = 650 tokens per turn; turn starts 0, 4, 8, 12, 16. The call under test is the
 * last answer (message 19): the history before it is messages 0..18 = 3,150 tokens. S2 and S3
 * count messages (docs/policies.md §S2, §S3); S0-style and S4 strategies cut whole turns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfig, type ReplayConfigInput } from '../../../src/core/config';
import type { Message } from '../../../src/core/model';
import {
  STRATEGIES,
  keepPinned,
  pipeline,
  type HistoryView,
  type StrategyContext,
  type StrategyResult,
} from '../../../src/core/strategies/index';
import { primerIndices } from '../../../src/core/strategies/primers-recents';
import { PLACEHOLDER_TOKENS } from '../../../src/core/strategies/tool-pruning';
import { exchangeStarts, pairToolCalls, turnStarts } from '../../../src/core/turns';
import { assistant, call, toolResult, user } from '../../helpers/session';

function turnsSession(n: number, pinned: readonly number[] = []): { messages: Message[]; tokens: number[] } {
  const messages: Message[] = [];
  const tokens: number[] = [];
  for (let t = 0; t < n; t++) {
    const pin = (i: number) => (pinned.includes(messages.length + i) ? { pinned: true } : {});
    messages.push(
      user(`task ${t}`, pin(0)),
      assistant([call(`c${t}`)], pin(1)),
      toolResult(`c${t}`, `output ${t}`),
      assistant(`answer ${t}`, pin(3)),
    );
    tokens.push(100, 50, 400, 100);
  }
  return { messages, tokens };
}

function contextFor(
  messages: Message[],
  tokens: number[],
  config: ReplayConfigInput = {},
  masked: ReadonlySet<number> = new Set(),
): StrategyContext {
  const eff = tokens.map((t, i) => (masked.has(i) ? Math.min(PLACEHOLDER_TOKENS, t) : t));
  const prefix = [0];
  for (const t of eff) prefix.push(prefix[prefix.length - 1]! + t);
  return {
    messages,
    turnStarts: turnStarts(messages),
    config: validateConfig(config),
    rangeTokens: (a, b) => (b <= a ? 0 : prefix[b]! - prefix[a]!),
    tokensOf: (i) => eff[i]!,
    isMasked: (i) => masked.has(i),
  };
}

const { messages, tokens } = turnsSession(5);
const view: HistoryView = { from: 0, keepBefore: [], end: 19 };
const keptTokens = (r: StrategyResult, ctx: StrategyContext, end = 19): number => {
  const masked = new Set(r.masked);
  const idx = [
    ...r.kept.keepBefore.filter((i) => i < r.kept.from),
    ...Array.from({ length: end - r.kept.from }, (_, k) => r.kept.from + k),
  ];
  return idx.reduce((s, i) => s + (masked.has(i) ? Math.min(PLACEHOLDER_TOKENS, ctx.tokensOf(i)) : ctx.tokensOf(i)), 0);
};

describe('sliding window (S2 SlidingWindow(N), docs/policies.md §S2)', () => {
  it('keeps the last N messages, not whole turns', () => {
    const ctx = contextFor(messages, tokens, { slidingWindow: 10 });
    const r = STRATEGIES['sliding-window'](view, 0, ctx);
    // 19 − 10 = 9: message 9 is turn 2's call, whose result (10) is kept with it → cut at 9, 10 messages kept.
    expect(r.kept).toEqual({ from: 9, keepBefore: [] });
    expect(r.dropped).toEqual([[0, 8]]);
    expect(r.summaryRequest).toBeUndefined();
    expect(r.note).toBe('sliding window: kept the last 10 messages (N = 10)');
  });
  it('moves a cut that would orphan a result by the fewest messages, earlier on a tie', () => {
    const r = STRATEGIES['sliding-window'](view, 0, contextFor(messages, tokens, { slidingWindow: 5 }));
    // 19 − 5 = 14 is the result of call 13: 13 (one earlier) and 15 (one later) are both safe → the earlier, 6 kept.
    expect(r.kept.from).toBe(13);
    expect(r.note).toContain('cut moved 1 message earlier');
    const one = STRATEGIES['sliding-window'](view, 0, contextFor(messages, tokens, { slidingWindow: 1 }));
    // 19 − 1 = 18 is the result of call 17: 17 and 19 are one away → 17; the current turn's prompt goes (S2 keeps messages, not turns).
    expect(one.kept.from).toBe(17);
  });
  it('moves later when that is fewer messages (parallel calls)', () => {
    // 0 user, 1 assistant [call a, call b], 2 result a, 3 result b, 4 answer, 5 user; the call is message 6.
    const msgs = [
      user('go'),
      assistant([call('a'), call('b')]),
      toolResult('a'),
      toolResult('b'),
      assistant('done'),
      user('next'),
      assistant('ok'),
    ];
    const r = STRATEGIES['sliding-window'](
      { from: 0, keepBefore: [], end: 6 },
      0,
      contextFor(msgs, [1, 1, 1, 1, 1, 1, 1], { slidingWindow: 3 }),
    );
    // 6 − 3 = 3 (result b, call at 1): later 4 is 1 away; earlier 2 is unsafe too (results a, b), 1 is 2 away → 4.
    expect(r.kept.from).toBe(4);
    expect(r.note).toContain('cut moved 1 message later');
  });
});

describe('drop oldest (S2 DropOldest, docs/policies.md §S2)', () => {
  it('drops the oldest messages until the history fits', () => {
    const ctx = contextFor(messages, tokens);
    const r = STRATEGIES['drop-oldest'](view, 1_300, ctx);
    // Tokens from 12: 1,200; from 11: 100 + 1,200 = 1,300 ≤ 1,300; from 10: 1,700 → cut at 11 (an answer, no call open).
    expect(r.kept.from).toBe(11);
    expect(r.dropped).toEqual([[0, 10]]);
    expect(keptTokens(r, ctx)).toBe(1_300);
  });
  it('moves later past a result whose call it dropped', () => {
    const ctx = contextFor(messages, tokens);
    const r = STRATEGIES['drop-oldest'](view, 1_060, ctx);
    // From 14: 400 + 100 + 550 = 1,050 ≤ 1,060, but 14 is the result of call 13 → 15 (650 tokens).
    expect(r.kept.from).toBe(15);
    expect(keptTokens(r, ctx)).toBe(650);
    expect(r.note).toContain('cut moved 1 message later');
  });
  it('stops at the current turn when nothing smaller fits', () => {
    const ctx = contextFor(messages, tokens);
    const r = STRATEGIES['drop-oldest'](view, 100, ctx);
    expect(r.kept.from).toBe(16);
    expect(keptTokens(r, ctx)).toBe(550);
  });
});

describe('summarize (S2 Summarize, S3)', () => {
  it('folds the oldest turns into a summary request, keeping room for the summary', () => {
    const ctx = contextFor(messages, tokens);
    const r = STRATEGIES.summarize(view, 2_000, ctx);
    // Kept history aims at 80% of 2,000 = 1,600: from 8 is 1,850, from 12 is 1,200.
    expect(r.kept.from).toBe(12);
    expect(r.summaryRequest).toEqual({ ranges: [[0, 11]], targetTokens: 512 });
  });
});

describe('primers + summary + recents (S3: 3 / 20, docs/policies.md §S3)', () => {
  it('keeps the first 3 messages, summarizes the middle, keeps the last M messages', () => {
    const ctx = contextFor(messages, tokens, { primers: 3, recents: 6 });
    const r = STRATEGIES['primers-recents'](view, 3_000, ctx);
    // Primers 0, 1, 2 (call 1's result is 2). Recents: 19 − 6 = 13 (a call, its result 14 follows) → 13..18.
    expect(r.kept).toEqual({ from: 13, keepBefore: [0, 1, 2] });
    expect(r.dropped).toEqual([[3, 12]]);
    // S3's compress_context: target_tokens = 400.
    expect(r.summaryRequest).toEqual({ ranges: [[3, 12]], targetTokens: 400 });
    // Primers 550 + recents 50 + 400 + 100 + 100 + 50 + 400 = 1,100 → 1,650.
    expect(keptTokens(r, ctx)).toBe(1_650);
    // Kept whatever the target: the replay checks the request sent, summary made (test/unit/seeds/s3-target.test.ts).
    expect(r.keptWhateverTarget).toBe(true);
  });
  it('keeps all the recents when the budget is smaller than they are', () => {
    const ctx = contextFor(messages, tokens, { primers: 3, recents: 6 });
    const r = STRATEGIES['primers-recents'](view, 1_200, ctx);
    // 1,650 kept > 1,200: the same messages stay, none is trimmed to meet the number.
    expect(r.kept).toEqual({ from: 13, keepBefore: [0, 1, 2] });
    expect(r.keptWhateverTarget).toBe(true);
  });
  it('extends the primers so a primer tool call keeps its result', () => {
    const r = STRATEGIES['primers-recents'](view, 1_200, contextFor(messages, tokens, { primers: 2, recents: 6 }));
    expect(r.kept.keepBefore).toEqual([0, 1, 2]);
  });
  it('never drops the current prompt, and never trims the recents, inside one long turn', () => {
    // 0 user, 1 answer, 2 user, 3 answer, 4 user (the current prompt), then 10 exchanges: call 5 + 2k, result 6 + 2k;
    // the call under test is message 25. Each message costs 10.
    const msgs: Message[] = [user('setup'), assistant('ok'), user('second'), assistant('ok'), user('current prompt')];
    for (let k = 0; k < 10; k++) msgs.push(assistant([call(`x${k}`)]), toolResult(`x${k}`));
    msgs.push(assistant('answer'));
    const base = contextFor(
      msgs,
      msgs.map(() => 10),
      { primers: 3, recents: 6 },
    );
    // As the replay passes it with cutWithinTurn: the turn in progress may be cut at its exchanges.
    const ctx = { ...base, turnStarts: [...turnStarts(msgs), ...exchangeStarts(msgs, 4, 25)] };
    const h: HistoryView = { from: 0, keepBefore: [], end: 25 };
    const r = STRATEGIES['primers-recents'](h, 50, ctx);
    // Primers 0..2; recents 25 − 6 = 19 (call x7) → 19..24; the prompt (4) is kept besides.
    expect(r.kept).toEqual({ from: 19, keepBefore: [0, 1, 2, 4] });
    expect(r.dropped).toEqual([
      [3, 3],
      [5, 18],
    ]);
    // 3 + 1 + 6 messages × 10 = 100 > 50: all kept all the same.
    expect(keptTokens(r, ctx, 25)).toBe(100);
    expect(r.keptWhateverTarget).toBe(true);
  });
});

describe('tool-result pruning first (S4, docs/policies.md §S4)', () => {
  it('replaces the oldest tool results between the protected head and tail until the history fits', () => {
    const ctx = contextFor(messages, tokens, { protectHead: 1, protectTail: 2 });
    const r = STRATEGIES['tool-pruning'](view, 2_500, ctx);
    // Head = turn 0 (0..3), tail = turns 3, 4 (12..18). Each pruned result saves 400 − 12 = 388: 3,150 → 2,762 → 2,374 ≤ 2,500.
    expect(r.masked).toEqual([6, 10]);
    expect(r.dropped).toEqual([]);
    expect(keptTokens(r, ctx)).toBe(2_374);
  });
  it('never prunes inside the protected head or the last protectTail turns', () => {
    const r = STRATEGIES['tool-pruning'](view, 0, contextFor(messages, tokens, { protectHead: 1, protectTail: 2 }));
    expect(r.masked).toEqual([6, 10]);
    const noHead = STRATEGIES['tool-pruning'](view, 0, contextFor(messages, tokens, { protectHead: 0, protectTail: 2 }));
    expect(noHead.masked).toEqual([2, 6, 10]);
  });
});

describe('head and tail protection (S4)', () => {
  it('keeps the first turn and the last two, summarizes the middle', () => {
    const ctx = contextFor(messages, tokens, { protectHead: 1, protectTail: 2 });
    const r = STRATEGIES['head-tail'](view, 4_000, ctx);
    expect(r.kept).toEqual({ from: 12, keepBefore: [0, 1, 2, 3] });
    expect(r.dropped).toEqual([[4, 11]]);
    expect(r.summaryRequest).toEqual({ ranges: [[4, 11]], targetTokens: 600 });
  });
});

describe('observation masking (OpenHands)', () => {
  it('masks every tool result but the last N, whatever the budget', () => {
    const r = STRATEGIES['observation-masking'](view, 1e9, contextFor(messages, tokens, { keepToolResults: 1 }));
    expect(r.masked).toEqual([2, 6, 10, 14]);
    expect(r.kept).toEqual({ from: 0, keepBefore: [] });
  });
  it('does not mask again what is already a placeholder', () => {
    const r = STRATEGIES['observation-masking'](view, 0, contextFor(messages, tokens, { keepToolResults: 1 }, new Set([2, 6])));
    expect(r.masked).toEqual([10, 14]);
  });
});

describe('observation masking by attention window (OpenHands: the last N events)', () => {
  it('masks results older than the last N messages, not the last N results', () => {
    const r = STRATEGIES['observation-masking'](view, 0, contextFor(messages, tokens, { attentionWindow: 6, keepToolResults: 0 }));
    // 19 − 6 = 13: results 2, 6, 10 are older; 14 and 18 are inside the window.
    expect(r.masked).toEqual([2, 6, 10]);
  });
  it('continues from where the last call stopped', () => {
    const r = STRATEGIES['observation-masking'](view, 0, contextFor(messages, tokens, { attentionWindow: 6 }, new Set([2])));
    expect(r.masked).toEqual([6, 10]);
  });
});

describe('pipeline', () => {
  const ctxS4 = () => contextFor(messages, tokens, { protectHead: 1, protectTail: 2 });
  const s4 = pipeline([STRATEGIES['tool-pruning'], STRATEGIES['head-tail']], 's4');
  it('stops after the first stage when that is enough', () => {
    const r = s4(view, 2_500, ctxS4());
    expect(r.masked).toEqual([6, 10]);
    expect(r.dropped).toEqual([]);
    expect(r.summaryRequest).toBeUndefined();
  });
  it('runs the next stage on what the first left; a dropped message is no longer masked', () => {
    const ctx = ctxS4();
    const r = s4(view, 1_000, ctx);
    // Pruning 6 and 10 leaves 3,150 − 776 = 2,374 > 1,000, so head-tail drops the middle 4..11 (with both).
    expect(r.dropped).toEqual([[4, 11]]);
    expect(r.masked).toEqual([]);
    expect(r.summaryRequest?.ranges).toEqual([[4, 11]]);
    // Head 0..3 (650) + tail 12..18 (650 + 550).
    expect(keptTokens(r, ctx)).toBe(650 + 1_200);
  });
});

describe('pinned / sticky messages', () => {
  it('keeps the whole turn of a pinned message that a strategy would drop', () => {
    const pinned = turnsSession(5, [5]);
    const ctx = contextFor(pinned.messages, pinned.tokens);
    const r = keepPinned(STRATEGIES['drop-oldest'])(view, 1_300, ctx);
    // drop-oldest cuts at 11 (see above); message 5's turn 4..7 comes back.
    expect(r.kept.keepBefore).toEqual([4, 5, 6, 7]);
    expect(r.dropped).toEqual([
      [0, 3],
      [8, 10],
    ]);
  });
  it('never masks a pinned tool result', () => {
    const pinned = turnsSession(5, []);
    const msgs = pinned.messages.map((m, i) => (i === 6 ? { ...m, pinned: true } : m));
    const r = keepPinned(STRATEGIES['observation-masking'])(view, 0, contextFor(msgs, pinned.tokens, { keepToolResults: 1 }));
    expect(r.masked).toEqual([2, 10, 14]);
  });
});

describe('S3 recents are messages, never trimmed (property, docs/policies.md §S3)', () => {
  it('keeps at least min(recents, what is after the primers) recent messages and the current prompt, whatever the budget', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 5_000 }),
        (turnCalls, primers, recents, budget) => {
          const msgs: Message[] = [];
          let c = 0;
          for (const calls of turnCalls) {
            msgs.push(user('u'));
            for (let k = 0; k < calls; k++, c++) msgs.push(assistant([call(`p${c}`)]), toolResult(`p${c}`));
            msgs.push(assistant('a'));
          }
          const end = msgs.length - 1;
          const ctx = contextFor(
            msgs,
            msgs.map(() => 100),
            { primers, recents },
          );
          const r = STRATEGIES['primers-recents']({ from: 0, keepBefore: [], end }, budget, ctx);
          const primerEnd = primerIndices(ctx, primers, end).length;
          // One call per assistant message, its result right after: a cut at a result moves one earlier (a tie), never later.
          expect(end - r.kept.from).toBeGreaterThanOrEqual(Math.min(recents, end - Math.min(primerEnd, end)));
          const prompt = msgs
            .slice(0, end)
            .map((m, i) => (m.role === 'user' && m.parts[0]!.kind === 'text' ? i : -1))
            .filter((i) => i >= 0)
            .pop()!;
          expect(prompt >= r.kept.from || r.kept.keepBefore.includes(prompt)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('every strategy is turn-safe (property)', () => {
  const arb = fc.record({
    turns: fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 500 })), { minLength: 1, maxLength: 12 }),
    id: fc.constantFrom(...(Object.keys(STRATEGIES) as (keyof typeof STRATEGIES)[]), 'pipeline'),
    budget: fc.integer({ min: 0, max: 6_000 }),
    knobs: fc.record({
      slidingWindow: fc.integer({ min: 1, max: 30 }),
      primers: fc.integer({ min: 0, max: 5 }),
      recents: fc.integer({ min: 0, max: 30 }),
      keepToolResults: fc.integer({ min: 0, max: 4 }),
      protectHead: fc.integer({ min: 0, max: 3 }),
      protectTail: fc.integer({ min: 0, max: 3 }),
    }),
    pinAt: fc.option(fc.nat(), { nil: undefined }),
  });
  it('kept ∪ dropped is the window, no orphaned call or result is kept, pinned stay, nothing grows', () => {
    fc.assert(
      fc.property(arb, ({ turns, id, budget, knobs, pinAt }) => {
        const msgs: Message[] = [];
        const toks: number[] = [];
        let c = 0;
        for (const [calls, size] of turns) {
          msgs.push(user('u'));
          toks.push(size);
          for (let k = 0; k < calls; k++) {
            msgs.push(assistant([call(`k${c}`)]), toolResult(`k${c}`));
            toks.push(20, size * 2);
            c++;
          }
          msgs.push(assistant('a'));
          toks.push(30);
        }
        const pinned = pinAt !== undefined ? msgs.map((m, i) => (i === pinAt % msgs.length ? { ...m, pinned: true } : m)) : msgs;
        const end = pinned.length - 1;
        const ctx = contextFor(pinned, toks, knobs);
        const h: HistoryView = { from: 0, keepBefore: [], end };
        const strategy = keepPinned(
          id === 'pipeline' ? pipeline([STRATEGIES['tool-pruning'], STRATEGIES['head-tail'], STRATEGIES['drop-oldest']]) : STRATEGIES[id],
        );
        const r = strategy(h, budget, ctx);
        const kept = [
          ...r.kept.keepBefore.filter((i) => i < r.kept.from),
          ...Array.from({ length: Math.max(0, end - r.kept.from) }, (_, k) => r.kept.from + k),
        ];
        const dropped = r.dropped.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, k) => a + k));
        expect([...kept, ...dropped].sort((a, b) => a - b)).toEqual(Array.from({ length: end }, (_, k) => k));
        const p = pairToolCalls(kept.map((i) => pinned[i]!));
        // The call of the current (last) turn may still wait for results after `end`; nothing else may be open.
        expect(p.orphanResults).toEqual([]);
        for (const o of p.orphanCalls) expect(kept[o.index]!).toBeGreaterThanOrEqual(ctx.turnStarts[ctx.turnStarts.length - 1]!);
        for (const i of dropped) expect(pinned[i]!.pinned).not.toBe(true);
        for (const i of r.masked) expect(pinned[i]!.pinned).not.toBe(true);
        expect(keptTokens(r, ctx, end)).toBeLessThanOrEqual(toks.slice(0, end).reduce((a, b) => a + b, 0));
      }),
      { numRuns: 1_000 },
    );
  });
});
