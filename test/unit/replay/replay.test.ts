/**
 * The simulator against hand-checked numbers. With `chars4` and no per-message overhead, a message
 * of 400 characters costs exactly 100 tokens, so every figure below can be checked by hand.
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReplayConfigInput } from '../../../src/core/config';
import type { Message } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';
import { toCliJSON } from '../../../src/core/replay/serialize';
import { STEP_STATUSES, type ReplayResult } from '../../../src/core/replay/types';
import { pairToolCalls } from '../../../src/core/turns';
import { assistant, call, session, toolResult, usage, user } from '../../helpers/session';

const words = (tokens: number, tag = 'x'): string => (tag + ' ').repeat(tokens * 2).slice(0, tokens * 4);
/** n turns: a 100-token user message and a 100-token answer each. */
function chat(turns: number, tokens = 100): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) {
    out.push(user(words(tokens, `u${t}`)));
    out.push(assistant(words(tokens, `a${t}`)));
  }
  return out;
}
const base: ReplayConfigInput = { tokenizer: 'chars4', window: 4_000, maxOutput: 500, buffer: 0, summarizer: 'none' };
const statusOf = (r: ReplayResult): string[] => Array.from(r.steps.status, (c) => STEP_STATUSES[c]!);

describe('the window per step', () => {
  it('stacks system, history, tools, output, buffer and free to the window', async () => {
    const s = session(chat(3), { systemPrompt: words(50), tools: [] });
    const r = await replay(s, { ...base, paths: { proactive: false } });
    // Step 2 (third answer) sees 5 messages of 100 tokens.
    expect(r.steps.regions.history[2]).toBe(500);
    expect(r.steps.regions.system[2]).toBe(50);
    expect(r.steps.total[2]).toBe(550);
    expect(r.steps.regions.output[2]).toBe(500);
    const sum = (i: number) =>
      ['system', 'unlogged', 'summary', 'history', 'tools', 'output', 'buffer', 'free'].reduce(
        (a, k) => a + r.steps.regions[k as 'free'][i]!,
        0,
      );
    for (let i = 0; i < r.steps.count; i++) expect(sum(i)).toBe(4_000);
    expect(r.steps.limit[0]).toBe(3_500);
  });
});

describe('S3: primers + summary + recents, 75% → 37.5%', () => {
  it('fires when the request passes 75% of the window and lands at or under 37.5%', async () => {
    const s = session(chat(20, 100));
    const r = await replay(s, {
      ...getPolicy('s3')!.config,
      ...base,
      tokenizer: 'chars4',
      budget: {},
      primers: 3,
      recents: 6,
      summarizer: 'extractive',
    });
    const first = r.events.find((e) => e.kind === 'compression');
    expect(first?.kind).toBe('compression');
    if (first?.kind !== 'compression') return;
    // 75% of 4,000 = 3,000: the first request over it is the one holding 31 messages (3,100 tokens).
    expect(first.tokensBefore).toBe(3_100);
    expect(first.step).toBe(15);
    expect(first.tokensAfter).toBeLessThanOrEqual(1_500);
    expect(first.dropped[0]![0]).toBe(3); // S3 keeps the first 3 messages as primers (0, 1, 2)
    expect(first.summary).toMatch(/Summary of/);
  });
});

describe('S1: the guard forces a final turn, or skips to a fallback model', () => {
  it('final: projection over the limit and no fallback', async () => {
    const s = session(chat(20, 100));
    const r = await replay(s, { ...base, paths: { proactive: false, guard: true }, buffer: 500 });
    // limit = 4,000 - 500 - 500 = 3,000; the first request over it has 31 messages.
    const st = statusOf(r);
    expect(st.indexOf('final')).toBe(15);
    // The final turn ends the run: one forced final, and the later calls would not have happened.
    expect(r.totals.forcedFinals).toBe(1);
    expect(st.slice(15).every((x) => x === 'final')).toBe(true);
    expect(r.steps.reasons[r.steps.reasonIndex[16]!]).toBe('after the forced final turn: this call would not have happened');
    expect(r.events.filter((e) => e.kind === 'guard')).toHaveLength(1);
    const g = r.events.find((e) => e.kind === 'guard');
    expect(g).toMatchObject({ decision: 'final', projected: 3_100, limit: 3_000 });
    expect(r.steps.reasons[r.steps.reasonIndex[15]!]).toMatch(/still over limit after shrink/);
  });

  it('skip: a fallback model with a larger window takes the call', async () => {
    const s = session(chat(20, 100));
    const r = await replay(s, { ...base, paths: { proactive: false, guard: true }, buffer: 500, fallbackModels: ['gpt-4o'] });
    expect(statusOf(r)[15]).toBe('skip');
    expect(r.events.find((e) => e.kind === 'guard')).toMatchObject({ decision: 'skip', fallback: 'gpt-4o' });
    // The call ran on gpt-4o: its limit (128,000 − 500 buffer − floor(128,000 / 4) output, S1's default) applies at that step.
    expect(r.steps.limit[15]).toBe(128_000 - 500 - 32_000);
    expect(r.steps.limit[14]).toBe(3_000);
    // Only the skipped calls are priced (the primary model has no catalog row), at gpt-4o's prices.
    expect(r.totals.cost).toBeGreaterThan(0);
  });

  it('tool_preflight: a result over toolOutputMaxBytes is handled and reported', async () => {
    const big = 'y'.repeat(20_000);
    const s = session([user(words(10)), assistant([call('c1')]), toolResult('c1', big), assistant('done')]);
    const r = await replay(s, { ...base, toolOutputMaxBytes: 12_288, toolOutputMode: 'truncate', paths: { proactive: false } });
    const e = r.events.find((x) => x.kind === 'tool-preflight');
    expect(e).toMatchObject({ action: 'truncate', bytesBefore: 20_000, bytesAfter: 12_288, callId: 'c1' });
    // The result's 5,000+ tokens shrink in proportion to the bytes kept.
    expect(r.steps.regions.history[1]).toBeLessThan(3_200);
  });
});

describe('S1: the tool budget', () => {
  it('forces the final turn, tools restricted to final_report, once the budget is spent', async () => {
    const msgs: Message[] = [user(words(10))];
    for (let i = 0; i < 6; i++) msgs.push(assistant([call(`c${i}`)]), toolResult(`c${i}`, words(5)));
    msgs.push(assistant('done'));
    const r = await replay(session(msgs), { ...base, toolBudget: 3, paths: { proactive: false } });
    const e = r.events.find((x) => x.kind === 'tool-preflight');
    expect(e).toMatchObject({ action: 'budget-exceeded', callId: 'c3' });
    const st = statusOf(r);
    expect(st.slice(0, 4)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(st[4]).toBe('final');
    expect(r.totals.forcedFinals).toBe(1);
    expect(r.steps.reasons[r.steps.reasonIndex[4]!]).toMatch(/tools restricted to final_report/);
  });
});

describe('fidelity: presets against what the original agent really did', () => {
  it("Claude Code's preset fires within ±1 call of the sample's real auto-compaction", async () => {
    const { importSource } = await import('../../../src/core/import/index');
    const { fileSource } = await import('../../../src/main/io/file-source');
    const s = (await importSource(fileSource(join(__dirname, '../../../resources/sample/sample-session.jsonl')))).sessions[0]!;
    const r = await replay(s, getPolicy('claude-code')!.config);
    const real = r.events.find((e) => e.kind === 'source-compaction')!;
    const simulated = r.events.find((e) => e.kind === 'compression')!;
    expect(Math.abs(simulated.step - real.step)).toBeLessThanOrEqual(1);
    // The calibrated estimate follows the provider's numbers until the real compaction.
    for (let i = 0; i < Math.min(real.step, simulated.step); i++)
      expect(Math.abs(r.steps.total[i]! - r.steps.reported[i]!) / r.steps.reported[i]!).toBeLessThan(0.03);
  });
});

describe('S0: the emergency path', () => {
  it('drops the oldest half of the turns when the reported size overflows although the estimate fit', async () => {
    const msgs = chat(10, 100);
    // The provider counted 3× what the estimate says (3 × 100 tokens per earlier message).
    const withUsage = msgs.map((m, i) => (m.role === 'assistant' ? { ...m, usage: usage(i * 100 * 3) } : m));
    const r = await replay(session(withUsage), { ...base, paths: { proactive: false, emergency: true } });
    const e = r.events.find((x) => x.kind === 'compression');
    expect(e).toMatchObject({ path: 'emergency', strategy: 'drop-oldest-50%' });
    if (e?.kind !== 'compression') return;
    // Message 15 is the first call whose true size (3 × 1,500 = 4,500) passes the 4,000 window while
    // the estimate (1,500) is under the 3,500 limit: step 7. Its window holds 8 turns; the oldest 4 go.
    expect(e.step).toBe(7);
    expect(e.dropped).toEqual([[0, 7]]);
    expect(e.summary).toMatch(/4 earlier turns were dropped/);
    expect(r.steps.regions.history[7]).toBe(700);
  });
});

describe('S0: the emergency note keeps media references (its third known gap, fixed)', () => {
  it('names the images the dropped turns held', async () => {
    const msgs = chat(10, 100).map((m, i) =>
      i === 2 ? { ...m, parts: [...m.parts, { kind: 'media' as const, mediaType: 'image/png', source: 'file_abc' }] } : m,
    );
    const withUsage = msgs.map((m, i) => (m.role === 'assistant' ? { ...m, usage: usage(i * 100 * 3) } : m));
    const r = await replay(session(withUsage), { ...base, paths: { proactive: false, emergency: true } });
    const e = r.events.find((x) => x.kind === 'compression');
    expect(e?.kind === 'compression' && e.summary).toBe(
      '[Context overflow: 4 earlier turns were dropped. Media no longer attached: image/png file_abc.]',
    );
  });
});

describe('policies as data', () => {
  it('Claude Code auto-compact threshold = min(floor((window − 20k) × pct), window − 33k)', async () => {
    const msgs = chat(60, 1_000);
    const r = await replay(session(msgs), {
      ...getPolicy('claude-code')!.config,
      tokenizer: 'chars4',
      window: 100_000,
      maxOutput: 10_000,
      summarizer: 'none',
    });
    const e = r.events.find((x) => x.kind === 'compression');
    // min(floor(80,000 × 1), 67,000) = 67,000: the first call over it is message 69 (69,000 tokens), step 34.
    expect(e).toMatchObject({ step: 34, tokensBefore: 69_000 });
  });

  it('replays are deterministic: byte-identical JSON', async () => {
    const s = session(chat(30, 120));
    for (const id of ['s0', 's2', 's3', 's4', 'letta']) {
      const cfg = { ...getPolicy(id)!.config, tokenizer: 'chars4', window: 4_000 };
      const a = JSON.stringify(toCliJSON(await replay(s, cfg)));
      const b = JSON.stringify(toCliJSON(await replay(s, cfg)));
      expect(a).toBe(b);
    }
  });
});

describe('invariants over generated sessions (property)', () => {
  const sessionArb = fc
    .array(fc.tuple(fc.integer({ min: 1, max: 300 }), fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 3 }), fc.boolean()), {
      minLength: 2,
      maxLength: 25,
    })
    .map((turns) => {
      const msgs: Message[] = [];
      let k = 0;
      for (const [userTokens, results, pin] of turns) {
        msgs.push(user(words(userTokens), pin ? { pinned: true } : {}));
        for (const r of results) {
          const id = `c${k++}`;
          msgs.push(assistant([call(id)]));
          msgs.push(toolResult(id, words(r)));
        }
        msgs.push(assistant(words(20)));
      }
      return session(msgs);
    });
  const policyArb = fc.constantFrom('s2', 's3', 's4', 'letta', 'codex', 'openhands-recent', 'openhands-summary');

  it('no orphaned tool call or result, pinned never dropped, compression never grows the context', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, policyArb, async (s, id) => {
        const r = await replay(s, {
          ...getPolicy(id)!.config,
          tokenizer: 'chars4',
          window: 3_000,
          maxOutput: 300,
          budget: {},
          triggerMessages: undefined,
        });
        for (const e of r.events) {
          if (e.kind !== 'compression') continue;
          expect(e.tokensAfter).toBeLessThanOrEqual(e.tokensBefore);
          const end = r.steps.messageIndex[e.step]!;
          const kept = e.kept.flatMap(([a, b]) => s.messages.slice(a, b + 1));
          const p = pairToolCalls([...kept, ...s.messages.slice(e.kept.length ? e.kept[e.kept.length - 1]![1] + 1 : 0, end)]);
          expect(p.orphanCalls.filter((o) => o.index < kept.length)).toEqual([]);
          expect(p.orphanResults).toEqual([]);
          for (const [a, b] of e.dropped) for (let i = a; i <= b; i++) expect(s.messages[i]!.pinned).not.toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('with the guard on, the context fits the limit unless the step is final or abort with a reason', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, async (s) => {
        const r = await replay(s, {
          ...base,
          window: 3_000,
          maxOutput: 300,
          buffer: 200,
          trigger: 0.7,
          target: 0.4,
          pipeline: ['tool-pruning', 'drop-oldest'],
          paths: { guard: true },
        });
        for (let i = 0; i < r.steps.count; i++) {
          const st = STEP_STATUSES[r.steps.status[i]!]!;
          if (r.steps.total[i]! > r.steps.limit[i]!) {
            expect(['final', 'abort']).toContain(st);
            expect(r.steps.reasons[r.steps.reasonIndex[i]!]).not.toBe('');
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('one long agent turn', () => {
  // One user prompt, then 30 exchanges (call 100 + result 400 tokens): a single turn.
  const msgs: Message[] = [user(words(100))];
  for (let i = 0; i < 30; i++)
    msgs.push(assistant([call(`c${i}`, 'Read', JSON.stringify({ p: words(90) }))]), toolResult(`c${i}`, words(400)));
  msgs.push(assistant('done'));
  const cfg: ReplayConfigInput = { ...base, window: 8_000, maxOutput: 1_000, trigger: 0.75, target: 0.4, pipeline: ['drop-oldest'] };

  it('is compacted at exchange boundaries inside the turn, never orphaning a call', async () => {
    const r = await replay(session(msgs), cfg);
    const e = r.events.find((x) => x.kind === 'compression');
    expect(e?.kind).toBe('compression');
    if (e?.kind !== 'compression') return;
    expect(e.tokensAfter).toBeLessThanOrEqual(3_200);
    const keptFrom = e.kept[0]![0];
    expect(msgs[keptFrom]!.role).toBe('assistant');
    const p = pairToolCalls(msgs.slice(keptFrom, r.steps.messageIndex[e.step]!));
    expect(p.orphanCalls).toEqual([]);
    expect(p.orphanResults).toEqual([]);
  });

  it('stays whole with cutWithinTurn off (S0: the turn is the atomic unit)', async () => {
    const r = await replay(session(msgs), { ...cfg, cutWithinTurn: false });
    expect(r.events.filter((x) => x.kind === 'compression')).toEqual([]);
    expect(Array.from(r.steps.status).some((c) => STEP_STATUSES[c] === 'warn')).toBe(true);
  });
});
