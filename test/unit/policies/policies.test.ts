/**
 * Each policy reproduces the seed (or agent) it names, on a small session built for it, with its
 * own estimator where the numbers can be checked by hand:
 * - chars4 (S2, S4): 400 characters = 100 tokens, no per-message overhead;
 * - runes2.5 (S0): floor(400 × 2 / 5) + 4 overhead = 164 tokens per 400-character message;
 * - shannon (S3): 400 / 4 + 5 = 105 units per 400-character prose message, ×1.1 floored on the
 *   total: a request of k such messages is floor(115.5 k).
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { getPolicy, POLICIES, POLICY_IDS, SCENARIO_POLICIES } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';
import { STEP_STATUSES } from '../../../src/core/replay/types';
import { countWith } from '../../../src/core/tokens/index';
import { assistant, call, session, toolResult, user } from '../../helpers/session';
import { chat, compressions, policy, prose, reasonAt, statusAt } from '../../helpers/replay';

describe('the registry', () => {
  it("has the twelve built-in ids (and S3's scenario presets), each with a description and a valid config", async () => {
    expect(POLICY_IDS).toEqual([
      's0',
      's1',
      's2',
      's3',
      's4',
      'claude-code',
      'codex',
      'openhands-recent',
      'openhands-masking',
      'openhands-summary',
      'openhands-amortized',
      'letta',
    ]);
    // S3's other scenario presets are reachable by id.
    expect(SCENARIO_POLICIES.map((p) => p.id)).toEqual(['s3-general', 's3-debugging']);
    expect(getPolicy('s3-debugging')?.config).toMatchObject({ trigger: 0.85, primers: 5, recents: 30 });
    for (const p of [...POLICIES, ...SCENARIO_POLICIES]) {
      expect(p.description.length).toBeGreaterThan(20);
      const r = await replay(session(chat(2)), p.config);
      expect(r.policy).toBe(p.id);
    }
  });
});

describe('S0: runes × 2/5, window = MaxTokens × 4, three paths in order', () => {
  it('derives the window from MaxTokens and fires the proactive check on the full budget formula', async () => {
    // The emergency path is off here: on this text o200k (its reference) counts more than runes × 2/5 and would fire first.
    const r = await replay(
      session(chat(15)),
      policy('s0', { maxOutput: 1_000, summarizer: 'none', paths: { async: true, proactive: true, emergency: false } }),
    );
    expect(r.config.resolved).toMatchObject({ window: 4_000, limit: 3_000, tokenizer: 'runes2.5' });
    expect(r.steps.regions.history[0]).toBe(164);
    // history + MaxTokens > ContextWindow ⇔ k × 164 > 3,000: first at message 19 (3,116), step 9.
    const [first] = compressions(r);
    expect(first).toMatchObject({ step: 9, path: 'proactive', tokensBefore: 3_116 });
  });

  it('without reported usage, the emergency path measures the true size with the reference tokenizer (CJK: 2.5 chars/token undercounts)', async () => {
    const cjk = (n: number, seed: number) =>
      Array.from({ length: n }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919 + seed * 104_729) % 20_000))).join('');
    const msgs: Message[] = [];
    for (let t = 0; t < 15; t++) msgs.push(user(cjk(400, t)), assistant(cjk(400, t + 100)));
    const r = await replay(session(msgs), policy('s0', { maxOutput: 1_000, summarizer: 'none' }));
    const [first] = compressions(r);
    expect(first).toMatchObject({ path: 'emergency', strategy: 'drop-oldest-50%' });
    // The estimate still fit the limit: only the reference count overflowed the window.
    expect(first!.tokensBefore).toBeLessThanOrEqual(3_000);
    // The reason names the numbers: the true size, the window, the estimate, turns dropped, before → after.
    expect(reasonAt(r, first!.step)).toMatch(
      /^emergency: true size [\d,]+ > window 4,000 though the estimate [\d,]+ fit; dropped the oldest \d+ of \d+ turns \([\d,]+ before → [\d,]+ after\)$/,
    );
    // The same tokenizer as reference sees no gap, so only the proactive check fires.
    const same = await replay(session(msgs), policy('s0', { maxOutput: 1_000, summarizer: 'none', referenceTokenizer: 'runes2.5' }));
    expect(compressions(same).map((e) => e.path)).not.toContain('emergency');
  });

  it('without the proactive check, async summarization runs after the turn whose history passes 75% of the window', async () => {
    const r = await replay(
      session(chat(15)),
      policy('s0', { maxOutput: 1_000, summarizer: 'none', paths: { async: true, proactive: false, emergency: false } }),
    );
    // History before user message i is i × 164 > 3,000 first at i = 20 → entered before step 10.
    expect(compressions(r)[0]).toMatchObject({ step: 10, path: 'async' });
  });

  it('async summarization by message count (> 40) folds the oldest messages until about half the threshold is left', async () => {
    const r = await replay(session(chat(30, 40)), policy('s0', { maxOutput: 1_000, summarizer: 'none', referenceTokenizer: 'runes2.5' }));
    const [first] = compressions(r);
    // User message 42 ends a window of 42 > 40 messages; it arrives before the call at message 43 (step 21).
    expect(first).toMatchObject({ step: 21, path: 'async' });
    const keptMessages = first!.kept.reduce((n, [a, b]) => n + b - a + 1, 0);
    expect(keptMessages).toBeLessThanOrEqual(20);
    expect(keptMessages).toBeGreaterThan(10);
  });

  it("asyncFullBudget (S0's first known gap fixed) fires earlier: history + MaxTokens against the window", async () => {
    const r = await replay(
      session(chat(15)),
      policy('s0', {
        maxOutput: 1_000,
        summarizer: 'none',
        asyncFullBudget: true,
        paths: { async: true, proactive: false, emergency: false },
      }),
    );
    // i × 164 + 1,000 > 3,000 first at i = 14 → step 7.
    expect(compressions(r)[0]).toMatchObject({ step: 7, path: 'async' });
  });
});

describe('S1: the guard', () => {
  it('limit = window − 8,192 − floor(window / 4); the first projection over it forces the final turn', async () => {
    const r = await replay(session(chat(40, 4_000)), policy('s1', { window: 40_000 }));
    expect(r.steps.limit[0]).toBe(40_000 - 8_192 - 10_000);
    const firstOver = Array.from(r.steps.total).findIndex((t) => t > 21_808);
    expect(firstOver).toBeGreaterThan(0);
    expect(statusAt(r, firstOver)).toBe('final');
    expect(statusAt(r, firstOver - 1)).toBe('ok');
    expect(reasonAt(r, firstOver)).toMatch(/still over limit after shrink.*final_report/);
    expect(r.events.find((e) => e.kind === 'guard')).toMatchObject({ decision: 'final', step: firstOver });
    // S1 does not compress: the guard ends the run instead.
    expect(compressions(r)).toEqual([]);
  });

  it('stores a tool output over 12,288 bytes aside behind a handle, and leaves one under it alone', async () => {
    const msgs = [
      user('read both'),
      assistant([call('big'), call('small')]),
      toolResult('big', prose(12_289)),
      toolResult('small', prose(12_288)),
      assistant('done'),
    ];
    const r = await replay(session(msgs), policy('s1', { window: 200_000 }));
    const pre = r.events.filter((e) => e.kind === 'tool-preflight');
    expect(pre).toEqual([
      { kind: 'tool-preflight', step: 1, messageIndex: 2, callId: 'big', action: 'offload', bytesBefore: 12_289, bytesAfter: 64 },
    ]);
  });
});

describe('S2: 4 chars/token, act at 85%, SlidingWindow(20)', () => {
  it('reports "context window at N% capacity (used/max tokens), compaction applied" and keeps the last 20 messages', async () => {
    const s = session(chat(30, 4_000), { systemPrompt: prose(800) });
    const r = await replay(s, policy('s2', { window: 40_000, summarizer: 'none' }));
    // 200 + k × 1,000 > 34,000 first at message 35 (odd k is a call): 35,200 tokens, step 17.
    const [first] = compressions(r);
    // SlidingWindow(20) keeps 20 messages (docs/policies.md §S2): 35 − 20 = 15, no tool call to keep whole → 15..34,
    // 200 + 20 × 1,000 = 20,200 tokens after.
    expect(first).toMatchObject({ step: 17, tokensBefore: 35_200, tokensAfter: 20_200 });
    expect(reasonAt(r, 17)).toBe('context window at 88% capacity (35,200/40,000 tokens), compaction applied: 35,200 before → 20,200 after');
    expect(first!.kept).toEqual([[15, 34]]);
  });
});

describe('S3: chars/4 + 5 per message × 1.1, 75% → 37.5%, primers 3 + recents 20', () => {
  it('fires when the estimate passes 75% of the window and keeps primers 3 + recents 20, lands under 37.5% when they fit', async () => {
    const r = await replay(session(chat(40)), policy('s3', { window: 10_000, budget: {} }));
    // A 400-character prose message is 400 / 4 + 5 = 105 units; the request of messages [0, k) is floor(1.1 × 105k).
    expect(r.steps.regions.history[0]).toBe(115);
    const [first] = compressions(r);
    // floor(115.5 k) > 7,500 first at k = 65 (7,507; k = 63 is 7,276): the call at message 65 is step 32.
    expect(first).toMatchObject({ step: 32, tokensBefore: 7_507 });
    // Primers 0..2, recents 65 − 20 = 45..64 (the current prompt, 64, among them), 3..44 summarized.
    expect(first!.kept).toEqual([
      [0, 2],
      [45, 64],
    ]);
    expect(first!.dropped).toEqual([[3, 44]]);
    // Kept history: 0..2 = floor(346.5) = 346, 45..64 = floor(115.5 × 65) − floor(115.5 × 45) = 7,507 − 5,197 = 2,310.
    expect(r.steps.regions.history[32]).toBe(346 + 2_310);
    // With the summary (at most S3's 400-token target): ≤ 37.5% × 10,000 = 3,750.
    expect(first!.tokensAfter).toBeLessThanOrEqual(3_750);
    expect(first!.summary).toMatch(/^Summary of \d+ earlier messages/);
  });

  it('keeps primers and recents and says so when they alone exceed 37.5%', async () => {
    const r = await replay(session(chat(40)), policy('s3', { window: 4_000, budget: {} }));
    const [first] = compressions(r);
    // floor(115.5 k) > 3,000 first at k = 27 (3,118): step 13. 23 messages ≈ 2,656 > 37.5% × 4,000 = 1,500.
    expect(first).toMatchObject({ step: 13, tokensBefore: 3_118 });
    expect(first!.kept).toEqual([
      [0, 2],
      [7, 26],
    ]);
    expect(first!.note).toContain('target not met');
  });

  it('warns at 80% of the task budget (soft mode) and emits backpressure delays', async () => {
    const r = await replay(
      session(chat(40)),
      policy('s3', { window: 100_000, budget: { tokens: 20_000, mode: 'soft', warningThreshold: 0.8, backpressure: true } }),
    );
    expect(r.totals.aborts).toBe(0);
    const bp = r.events.filter((e) => e.kind === 'backpressure');
    expect(bp.length).toBeGreaterThan(0);
    // S3's delays: 50 ms at 80%, 300 at 85%, 750 at 90%, 1,500 at 95% of the budget.
    const seed = (u: number) => (u >= 0.95 ? 1_500 : u >= 0.9 ? 750 : u >= 0.85 ? 300 : 50);
    for (const e of bp) if (e.kind === 'backpressure') expect([e.usage >= 0.8, e.delayMs]).toEqual([true, seed(e.usage)]);
    expect(Array.from(r.steps.status).some((c) => STEP_STATUSES[c] === 'warn')).toBe(true);
  });
});

describe('S3: budget modes', () => {
  // docs/policies.md §S3: CheckBudget before each request, `used + estimated > budget`, here on
  // the task layer. chars4, 100-token messages; call j sends message 2j + 1 after 2j + 1 messages:
  // request_j = (2j + 1) × 100. Used before call j = Σ_{i<j} (2i + 1) × 100 + j × 100 output
  // = 100 j² + 100 j. j = 3: 1,200 + 700 = 1,900 ≤ 2,000; j = 4: 2,000 + 900 = 2,900 > 2,000.
  const run = (mode: 'hard' | 'soft' | 'approval') =>
    replay(
      session(chat(10)),
      policy('s3', { tokenizer: 'chars4', window: 100_000, taskBudget: { tokens: 2_000, mode, includeRequest: true } }),
    );
  it("the S3 preset's budget is a task budget (long-running: 300,000 tokens, soft), not a session one", async () => {
    const s3 = policy('s3');
    expect(s3.taskBudget).toMatchObject({ tokens: 300_000, mode: 'soft', includeRequest: true });
    expect(s3.budget).toBeUndefined();
    // In a replay the task layer is the one checked (its limit scaled down to 2,000; its other settings the preset's).
    const r = await replay(
      session(chat(10)),
      policy('s3', { tokenizer: 'chars4', window: 100_000, taskBudget: { ...s3.taskBudget, tokens: 2_000 } }),
    );
    expect(reasonAt(r, 4)).toBe('task tokens budget exceeded (2,900 of 2,000; soft mode)');
  });
  it('hard: the request that would exceed the task budget is rejected and the run aborts', async () => {
    const r = await run('hard');
    expect(r.events.find((e) => e.kind === 'abort')).toMatchObject({ step: 4, budget: 'tokens', used: 2_900, max: 2_000, layer: 'task' });
    expect(statusAt(r, 3)).not.toBe('abort');
  });
  it('soft: a warning, and the run goes on', async () => {
    const r = await run('soft');
    expect(r.totals.aborts).toBe(0);
    expect(statusAt(r, 3)).toBe('ok');
    expect(statusAt(r, 4)).toBe('warn');
    expect(reasonAt(r, 4)).toBe('task tokens budget exceeded (2,900 of 2,000; soft mode)');
  });
  it('approval: the run waits for a person — reported, not aborted', async () => {
    const r = await run('approval');
    expect(r.totals.aborts).toBe(0);
    expect(reasonAt(r, 4)).toBe('task tokens budget exceeded (2,900 of 2,000; approval mode: approval required)');
  });
  it('the session, task and agent layers are checked together: the first hard one aborts', async () => {
    // Same arithmetic: the agent layer (1,500) is exceeded first, at j = 3 (1,200 + 700 = 1,900 > 1,500), soft;
    // the session layer (2,000, S4's rule used ≥ max) at j = 4 (used 2,000 ≥ 2,000), hard.
    const r = await replay(
      session(chat(10)),
      policy('s3', {
        tokenizer: 'chars4',
        window: 100_000,
        taskBudget: {},
        agentBudget: { tokens: 1_500, mode: 'soft', includeRequest: true },
        budget: { tokens: 2_000, mode: 'hard' },
      }),
    );
    expect(statusAt(r, 3)).toBe('warn');
    expect(reasonAt(r, 3)).toBe('agent tokens budget exceeded (1,900 of 1,500; soft mode)');
    expect(r.events.find((e) => e.kind === 'abort')).toMatchObject({ step: 4, layer: 'session', used: 2_000, max: 2_000 });
  });
});

describe('S4: hard budgets, compression at 80%, tool results pruned first', () => {
  // S4's own trigger is 80% of its token budget (tested below). These two check its pipeline on a
  // window trigger (0.8 × window), where a small session reaches it before the budget runs out.
  const onWindow = { triggerBasis: 'window', limitRule: 'trigger' } as const;
  it('prunes old tool results before summarizing anything', async () => {
    const msgs: Message[] = [];
    for (let t = 0; t < 8; t++)
      msgs.push(user(prose(400)), assistant([call(`c${t}`)]), toolResult(`c${t}`, prose(4_000)), assistant(prose(400)));
    const r = await replay(session(msgs), policy('s4', { ...onWindow, window: 8_000, summarizer: 'none' }));
    const [first] = compressions(r);
    expect(first!.tokensBefore).toBeGreaterThan(6_400);
    expect(first!.masked?.length).toBeGreaterThan(0);
    expect(first!.dropped).toEqual([]);
  });

  it('then protects head and tail and summarizes the middle with the files it touched', async () => {
    const msgs: Message[] = [];
    for (let t = 0; t < 12; t++)
      msgs.push(
        user(prose(400)),
        assistant([call(`c${t}`, 'Read', JSON.stringify({ file_path: `src/mod${t}.ts` }))]),
        toolResult(`c${t}`, prose(4_000)),
        assistant(prose(400)),
      );
    const r = await replay(session(msgs), policy('s4', { ...onWindow, window: 6_000 }));
    const withSummary = compressions(r).find((e) => e.summary !== undefined);
    expect(withSummary).toBeDefined();
    // The first turn (head) stays; the summary tracks the files read in the folded middle.
    expect(withSummary!.kept[0]![0]).toBe(0);
    expect(withSummary!.summary).toMatch(/## Files\n- src\/mod\d+\.ts \(Read\)/);
  });

  it('compresses when the estimate passes 80% of the token budget (maxTokens × threshold), not of the window', async () => {
    // chars4, budget 5,000 tokens → trigger 0.8 × 5,000 = 4,000 (0.8 × the 100,000 window would be 80,000).
    // The budget is cumulative, so the estimate can pass 80% of it only while little is used: one turn where
    // a large result arrives — user 100, call 0 (a tool call, a few tokens), result 18,000 chars = 4,500:
    // call 1 sends about 100 + 4,500 > 4,000, with only call 0's ~100 used before it (no abort yet).
    const msgs: Message[] = [user(prose(400)), assistant([call('c0')]), toolResult('c0', prose(18_000)), assistant(prose(400))];
    const r = await replay(session(msgs), policy('s4', { window: 100_000, summarizer: 'none', budget: { tokens: 5_000, mode: 'hard' } }));
    expect(r.steps.trigger[0]).toBe(4_000);
    expect(r.steps.limit[0]).toBe(5_000);
    expect(statusAt(r, 0)).toBe('ok');
    // The trigger fires at call 1; the whole session is its protected tail, so nothing can go: a warning naming it.
    expect(statusAt(r, 1)).toBe('warn');
    expect(reasonAt(r, 1)).toMatch(
      /^\d+% of token budget \(4,[\d]{3}\/5,000 tokens\): over the trigger 4,000 with nothing left to compress/,
    );
  });

  it('checks the token budget with the tokens used before the call (a budget of 500 aborts at the call that starts at 600)', async () => {
    // chars4, 100-token messages: used before call j = Σ_{i<j} (2i + 1) × 100 input + j × 100 output = 100 j² + 100 j.
    // j = 1: 200 < 500; j = 2: 600 ≥ 500 → abort at step 2 (counting call j's own tokens would abort at step 1).
    const r = await replay(
      session(chat(6)),
      policy('s4', { tokenizer: 'chars4', window: 100_000, summarizer: 'none', budget: { tokens: 500, mode: 'hard' } }),
    );
    expect(r.events.find((e) => e.kind === 'abort')).toMatchObject({ step: 2, budget: 'tokens', used: 600, max: 500 });
    expect(statusAt(r, 1)).not.toBe('abort');
    expect(reasonAt(r, 2)).toBe('session tokens budget exceeded (600 of 500): run aborted');
  });

  it('counts turns as LLM calls: one prompt followed by 205 calls aborts at the 201st call', async () => {
    // 200 calls made before call index 200 (the 201st): 200 ≥ 200.
    const msgs: Message[] = [user(prose(8))];
    for (let i = 0; i < 205; i++) msgs.push(assistant(prose(8, `a${i}`)));
    const r = await replay(session(msgs), policy('s4', { window: 1_000_000 }));
    const abort = r.events.find((e) => e.kind === 'abort');
    expect(abort).toMatchObject({ step: 200, budget: 'turns', used: 200, max: 200 });
    expect(r.steps.turn[200]).toBe(0);
    expect(reasonAt(r, 200)).toBe('session turns budget exceeded (200 calls of 200): run aborted');
    for (let i = 200; i < r.steps.count; i++) expect(statusAt(r, i)).toBe('abort');
    expect(statusAt(r, 199)).not.toBe('abort');
    expect(r.totals.aborts).toBe(1);
  });

  it('aborts on cost with enough precision to see why ($0.0346 of $0.02)', async () => {
    // gpt-4o: $2.50 / $1.25 cached / $10 output per 1M. chars4, 1,200-token messages (4,800 chars).
    // Call 0: 1,200 × 2.5 + 1,200 × 10 = 15,000 µ$ → $0.015. Call 1: 3,600 in; OpenAI caches the shared
    // prefix in 128-token steps (docs/cost.md): floor(1,200 / 128) × 128 = 1,152 cached, so 2,448 × 2.5 +
    // 1,152 × 1.25 + 1,200 × 10 = 6,120 + 1,440 + 12,000 = 19,560 µ$ → total 34,560 µ$, $0.0346 to four
    // places. At call 2: $0.0346 ≥ $0.02 → abort.
    const r = await replay(
      session(chat(5, 4_800)),
      policy('s4', {
        tokenizer: 'chars4',
        model: 'gpt-4o',
        window: 1_000_000,
        summarizer: 'none',
        budget: { tokens: 1_000_000, cost: 0.02, mode: 'hard' },
      }),
    );
    expect(r.events.find((e) => e.kind === 'abort')).toMatchObject({ step: 2, budget: 'cost', max: 0.02 });
    expect(reasonAt(r, 2)).toBe('session cost budget exceeded ($0.0346 of $0.02): run aborted');
  });

  it('aborts at 30 minutes', async () => {
    const msgs = chat(20, 8).map((m, i) => ({ ...m, timestamp: i * 60_000 }));
    const r = await replay(session(msgs), policy('s4', { window: 1_000_000 }));
    // Message 31 is at minute 31; the first call at or past 30 minutes is message 31 (step 15).
    expect(r.events.find((e) => e.kind === 'abort')).toMatchObject({ budget: 'minutes', step: 15 });
  });
});

describe('agents people run today', () => {
  it('Claude Code: min(floor((200k − 20k) × 1), 200k − 33k) = 167,000', async () => {
    const r = await replay(session(chat(100, 8_000)), policy('claude-code', { tokenizer: 'chars4', window: 200_000, summarizer: 'none' }));
    // k × 2,000 > 167,000 first at k = 84 → odd → 85 (170,000): step 42.
    expect(compressions(r)[0]).toMatchObject({ step: 42, tokensBefore: 170_000 });
  });

  it('Codex: auto-compact at 90% of the window', async () => {
    const r = await replay(session(chat(30)), policy('codex', { tokenizer: 'chars4', window: 4_000, summarizer: 'none' }));
    // k × 100 > 3,600 first at k = 37: step 18.
    expect(compressions(r)[0]).toMatchObject({ step: 18, tokensBefore: 3_700 });
  });

  it('Letta: trigger at 0.9 × window, shrink to 0.7 × window', async () => {
    const r = await replay(session(chat(30)), policy('letta', { tokenizer: 'chars4', window: 4_000 }));
    const [first] = compressions(r);
    expect(first).toMatchObject({ step: 18, tokensBefore: 3_700 });
    expect(first!.tokensAfter).toBeLessThanOrEqual(2_800);
    expect(first!.tokensAfter).toBeGreaterThan(2_000);
  });

  // OpenHands counts events; here one event = one message. chat(60, 40): 120 messages of 10 tokens.
  it('OpenHands recent events: keep_first 1 + the most recent, max_events 100 in all', async () => {
    const r = await replay(session(chat(60, 40)), policy('openhands-recent', { tokenizer: 'chars4' }));
    const [first] = compressions(r);
    // At message 101 the window holds 101 events: keep event 0 and 2..100 (the boundary at or after 101 − 99).
    expect(first).toMatchObject({ step: 50, dropped: [[1, 1]] });
    expect(first!.kept).toEqual([
      [0, 0],
      [2, 100],
    ]);
    expect(first!.summary).toBeUndefined();
  });

  it('OpenHands amortized forgetting: past max_size 100, keep the first and the most recent 49; no summary', async () => {
    const r = await replay(session(chat(60, 40)), policy('openhands-amortized', { tokenizer: 'chars4' }));
    const [first] = compressions(r);
    // 101 − 49 = 52 is a turn boundary: messages 52..100 stay (49), 1..51 go.
    expect(first).toMatchObject({ step: 50, dropped: [[1, 51]] });
    expect(first!.summary).toBeUndefined();
  });

  it('OpenHands LLM summarizing: past max_size 100, keep the first and the most recent 49, summarize the middle', async () => {
    const r = await replay(session(chat(60, 40)), policy('openhands-summary', { tokenizer: 'chars4' }));
    const [first] = compressions(r);
    expect(first).toMatchObject({ step: 50, dropped: [[1, 51]] });
    expect(first!.summary).toMatch(/Summary of 51 earlier messages/);
  });

  it('OpenHands observation masking: observations outside the 100 most recent events become placeholders, at every call', async () => {
    const msgs: Message[] = [user('go')];
    for (let i = 0; i < 110; i++) msgs.push(assistant([call(`c${i}`)]), toolResult(`c${i}`, prose(400)));
    msgs.push(assistant('done'));
    const r = await replay(session(msgs), policy('openhands-masking', { tokenizer: 'chars4' }));
    const all = compressions(r);
    // The call at message 103 (step 51) is the first with an observation (message 2) older than the last 100 events.
    expect(all[0]).toMatchObject({ step: 51, dropped: [], masked: [[2, 2]] });
    // The result (call id + 400 characters) becomes a 12-token placeholder.
    const counts = countWith(session(msgs), 'chars4');
    expect(counts.perMessage[2]).toBe(1 + 100);
    expect(all[0]!.tokensBefore - all[0]!.tokensAfter).toBe(101 - 12);
    // One more observation ages out at each later call: steps 52, 53, … each mask the next one.
    expect(all.slice(1, 4).map((e) => [e.step, e.masked])).toEqual([
      [52, [[4, 4]]],
      [53, [[6, 6]]],
      [54, [[8, 8]]],
    ]);
    // Steady state, not a warning.
    expect(Array.from(r.steps.status).some((c) => STEP_STATUSES[c] === 'warn')).toBe(false);
  });
});
