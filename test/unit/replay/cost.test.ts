/**
 * Billed input, cache reads and writes, and cost by provider (docs/cost.md), checked by hand against
 * the catalog's gpt-4o row ($2.50 input, $1.25 cached input, $10 output per 1M tokens) and
 * claude-sonnet-4-5 ($3 input, $0.30 read, $3.75 5-minute write, $6 1-hour write, $15 output).
 * chars4: 400 characters = 100 tokens.
 */
import { describe, expect, it } from 'vitest';
import { lookupModel } from '../../../src/core/catalog';
import type { Message, ToolDef } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import { assistant, session, user } from '../../helpers/session';

const words = (tokens: number): string => 'ab '.repeat(tokens * 2).slice(0, tokens * 4);
function chat(turns: number, tokens: number): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) out.push(user(words(tokens)), assistant(words(tokens)));
  return out;
}

describe('cost', () => {
  // chat(3, 1,000) with a 500-token system prompt: requests 500 + 1,000 + 2,000 j = 1,500, 3,500, 5,500;
  // output 1,000 a call (the assistant messages, no usage) = 3,000.
  it('OpenAI: the prefix shared with the previous request is read in 128-token steps from 1,024 tokens, no write premium', async () => {
    expect(lookupModel('gpt-4o')).toMatchObject({ input: 2.5, cachedInput: 1.25, cacheWrite: 2.5, output: 10 });
    const r = await replay(session(chat(3, 1_000), { systemPrompt: words(500) }), {
      model: 'gpt-4o',
      tokenizer: 'chars4',
      buffer: 0,
      summarizer: 'none',
      paths: { proactive: false },
    });
    expect(Array.from(r.steps.total)).toEqual([1_500, 3_500, 5_500]);
    // Reads: 0 (nothing cached before the first call), floor(1,500 / 128) × 128 = 1,408, floor(3,500 / 128) × 128 = 3,456.
    expect(Array.from(r.steps.cacheRead!)).toEqual([0, 1_408, 3_456]);
    expect(Array.from(r.steps.cacheWrite!)).toEqual([0, 0, 0]);
    expect(r.totals).toMatchObject({
      billedInputTokens: 10_500,
      cachedInputTokens: 4_864,
      cacheWriteTokens: 0,
      outputTokens: 3_000,
      peak: 5_500,
    });
    // ((10,500 − 4,864) × 2.5 + 4,864 × 1.25 + 3,000 × 10) / 1M = (14,090 + 6,080 + 30,000) / 1M
    expect(r.totals.cost).toBeCloseTo(0.05017, 12);
  });

  it('OpenAI: a prompt under 1,024 tokens is not cached', async () => {
    const r = await replay(session(chat(3, 100), { systemPrompt: words(50) }), {
      model: 'gpt-4o',
      tokenizer: 'chars4',
      buffer: 0,
      summarizer: 'none',
      paths: { proactive: false },
    });
    // Requests 150, 350, 550: all under 1,024.
    expect(r.totals).toMatchObject({ billedInputTokens: 1_050, cachedInputTokens: 0 });
  });

  it('Anthropic: what the previous call sent is read, the rest written at 1.25× input (the breakpoint is on the last message)', async () => {
    expect(lookupModel('claude-sonnet-4-5')).toMatchObject({ input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 });
    const r = await replay(session(chat(3, 1_000), { systemPrompt: words(500) }), {
      model: 'claude-sonnet-4-5',
      tokenizer: 'chars4',
      buffer: 0,
      summarizer: 'none',
      paths: { proactive: false },
    });
    // Call 0 writes 1,500; call 1 reads 1,500 and writes 2,000; call 2 reads 3,500 and writes 2,000.
    expect(Array.from(r.steps.cacheRead!)).toEqual([0, 1_500, 3_500]);
    expect(Array.from(r.steps.cacheWrite!)).toEqual([1_500, 2_000, 2_000]);
    expect(r.totals).toMatchObject({ cachedInputTokens: 5_000, cacheWriteTokens: 5_500 });
    // (5,000 × 0.3 + 5,500 × 3.75 + 3,000 × 15) / 1M = (1,500 + 20,625 + 45,000) / 1M
    expect(r.totals.cost).toBeCloseTo(0.067125, 12);
    expect(r.config['resolved']).toMatchObject({ cache: { kind: 'breakpoints', lifetimeMinutes: 5, writes: '5m', warmStart: 0 } });
  });

  it('Anthropic: a gap longer than the cache lifetime (from the timestamps) rewrites the prefix', async () => {
    const min = 60_000;
    const msgs = [
      user(words(1_000), { timestamp: 0 }),
      assistant(words(1_000), { timestamp: 1_000 }),
      user(words(1_000), { timestamp: 7 * min }),
      assistant(words(1_000), { timestamp: 7 * min + 1_000 }),
      user(words(1_000), { timestamp: 8 * min }),
      assistant(words(1_000), { timestamp: 8 * min + 1_000 }),
    ];
    const r = await replay(session(msgs, { systemPrompt: words(500) }), {
      model: 'claude-sonnet-4-5',
      tokenizer: 'chars4',
      buffer: 0,
      summarizer: 'none',
      paths: { proactive: false },
    });
    // Call 1 is sent at 7:00, 6:59 after call 0's response: past 5 minutes, nothing is read, 3,500 written.
    // Call 2 is sent 59 s after call 1's response: 3,500 read, 2,000 written.
    expect(Array.from(r.steps.cacheRead!)).toEqual([0, 0, 3_500]);
    expect(Array.from(r.steps.cacheWrite!)).toEqual([1_500, 3_500, 2_000]);
    const assumed = (r.config['resolved'] as { cache: { assumed: string[] } }).cache.assumed;
    expect(assumed.some((a) => a.includes('timestamps'))).toBe(false);
  });

  it('warm start and the 1-hour cache: the first call reads what it reported, writes cost 2× input', async () => {
    const first = assistant(words(1_000), {
      usage: { convention: 'anthropic', input: 3, cacheRead: 400, cacheWrite: 1_100, cacheWrite1h: 1_100, output: 1_000 },
    });
    const msgs = [user(words(1_000)), first, user(words(1_000)), assistant(words(1_000)), user(words(1_000)), assistant(words(1_000))];
    const r = await replay(session(msgs, { systemPrompt: words(500) }), {
      model: 'claude-sonnet-4-5',
      tokenizer: 'chars4',
      buffer: 0,
      summarizer: 'none',
      paths: { proactive: false },
    });
    // Call 0 (request 1,500) finds the 400 tokens it reported read: reads 400, writes 1,100.
    expect(Array.from(r.steps.cacheRead!)).toEqual([400, 1_500, 3_500]);
    expect(Array.from(r.steps.cacheWrite!)).toEqual([1_100, 2_000, 2_000]);
    // (5,400 × 0.3 + 5,100 × 6 + 3,000 × 15) / 1M = (1,620 + 30,600 + 45,000) / 1M
    expect(r.totals.cost).toBeCloseTo(0.07722, 12);
    expect(r.config['resolved']).toMatchObject({ cache: { lifetimeMinutes: 60, writes: '1h', warmStart: 400 } });
  });

  it('a compression rewrites everything after the first changed message: only system and tools stay read', async () => {
    const r = await replay(session(chat(10, 1_000), { systemPrompt: words(500) }), {
      model: 'claude-sonnet-4-5',
      window: 20_000,
      maxOutput: 200,
      tokenizer: 'chars4',
      buffer: 0,
      summarizer: 'none',
      pipeline: ['drop-oldest'],
      trigger: 0.5,
      target: 0.3,
    });
    const compressedAt = new Set(r.events.filter((e) => e.kind === 'compression').map((e) => e.step));
    // 50% of 20,000: the call of request 500 + 11,000 = 11,500 is the first over.
    expect(compressedAt.has(5)).toBe(true);
    const total = r.steps.total;
    for (let j = 1; j < r.steps.count; j++) {
      // After a compression the history changed from its first message: 500 (the system prompt) read.
      const read = compressedAt.has(j) ? 500 : Math.min(total[j - 1]!, total[j]!);
      expect(r.steps.cacheRead![j]).toBe(read);
      expect(r.steps.cacheWrite![j]).toBe(total[j]! - read);
    }
  });

  it('says what it assumed where the log cannot tell', async () => {
    const r = await replay(session(chat(2, 100)), { model: 'claude-sonnet-4-5', tokenizer: 'chars4', summarizer: 'none' });
    expect((r.config['resolved'] as { cache: { assumed: string[] } }).cache.assumed).toEqual([
      'no timestamps: the cache never expires between calls',
      'no reported usage: the first call starts with nothing cached',
      'cache lifetime not logged: Anthropic’s 5-minute cache',
    ]);
  });

  it('prices nothing for a model the catalog does not know', async () => {
    const r = await replay(session(chat(2, 100)), { model: 'my-local-llm', tokenizer: 'chars4', summarizer: 'none' });
    expect(r.totals.cost).toBe(0);
    expect(r.totals.billedInputTokens).toBe(100 + 300);
  });
});

describe('S1 schema-only overflow', () => {
  it('lets a call through when only the tool schemas push it over the limit', async () => {
    const tools: ToolDef[] = [{ name: 'big', description: words(700), parameters: { type: 'object' } }];
    const r = await replay(session(chat(3, 100), { tools }), {
      tokenizer: 'chars4',
      window: 2_000,
      maxOutput: 500,
      buffer: 500,
      summarizer: 'none',
      paths: { proactive: false, guard: true },
    });
    // limit 1,000; history at the last call 500 ≤ 1,000, but with ~700 tokens of schema it is over.
    const last = r.steps.count - 1;
    expect(r.steps.total[last]!).toBeGreaterThan(1_000);
    expect(r.events.find((e) => e.kind === 'guard' && e.step === last)).toMatchObject({
      decision: 'ok',
      reason: 'only the tool schemas overflow: allowed (S1 special case)',
    });
    expect(r.totals.forcedFinals).toBe(0);
  });
});
