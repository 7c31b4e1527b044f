/**
 * The catalog's cache prices (resources/models.json) and a call's reported usage priced with them
 * (docs/cost.md): Anthropic writes at 1.25× input (5-minute) or 2× input (1-hour), reads at 0.1×;
 * OpenAI and Gemini cached input, no write premium. Prices by hand from the rows' list prices.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { billedSplit, lookupModel, MODELS, usageCost } from '../../../src/core/catalog';
import { importSource, stringSource } from '../../../src/core/import/index';

describe('cache prices in the catalog', () => {
  it('every row has its cache prices, their source and date', () => {
    for (const m of MODELS) {
      expect(m.cacheWrite, m.id).toBeGreaterThan(0);
      expect(m.cacheWrite1h, m.id).toBeGreaterThanOrEqual(m.cacheWrite);
      expect(m.cacheSource, m.id).not.toBe('');
      expect(m.cacheDate, m.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      if (m.provider === 'anthropic') {
        expect(m.cacheWrite, m.id).toBeCloseTo(m.input * 1.25, 10);
        expect(m.cacheWrite1h, m.id).toBeCloseTo(m.input * 2, 10);
        expect(m.cachedInput, m.id).toBeCloseTo(m.input * 0.1, 10);
      } else {
        // No write premium: a write is billed as plain input.
        expect(m.cacheWrite, m.id).toBe(m.input);
        expect(m.cacheWrite1h, m.id).toBe(m.input);
      }
    }
  });

  it('prices an Anthropic call: input, reads, 5-minute and 1-hour writes, output', () => {
    const m = lookupModel('claude-sonnet-4-5-20250929')!;
    const u = { convention: 'anthropic' as const, input: 373, cacheRead: 10_000, cacheWrite: 6_672, cacheWrite1h: 2_000, output: 500 };
    expect(billedSplit(u)).toEqual({ uncached: 373, cacheRead: 10_000, cacheWrite5m: 4_672, cacheWrite1h: 2_000, output: 500 });
    // (373 × 3 + 10,000 × 0.3 + 4,672 × 3.75 + 2,000 × 6 + 500 × 15) / 1M
    // = (1,119 + 3,000 + 17,520 + 12,000 + 7,500) / 1M = $0.041139
    expect(usageCost(m, u)).toBeCloseTo(0.041139, 12);
  });

  it('prices an OpenAI call: cached input inside the prompt, no write premium', () => {
    const m = lookupModel('gpt-5')!;
    const u = { convention: 'openai' as const, input: 10_000, cacheRead: 8_192, cacheWrite: 0, output: 300 };
    // ((10,000 − 8,192) × 1.25 + 8,192 × 0.125 + 300 × 10) / 1M = (2,260 + 1,024 + 3,000) / 1M
    expect(usageCost(m, u)).toBeCloseTo(0.006284, 12);
  });

  it("a proxy's OpenAI-shaped usage of an Anthropic call keeps its writes apart (LiteLLM prompt_tokens include them)", () => {
    const m = lookupModel('claude-3-5-sonnet-20241022')!;
    const u = { convention: 'openai' as const, input: 4_646, cacheRead: 3_482, cacheWrite: 1_158, output: 177 };
    expect(billedSplit(u)).toMatchObject({ uncached: 6, cacheRead: 3_482, cacheWrite5m: 1_158 });
    // (6 × 3 + 3,482 × 0.3 + 1,158 × 3.75 + 177 × 15) / 1M = (18 + 1,044.6 + 4,342.5 + 2,655) / 1M
    expect(usageCost(m, u)).toBeCloseTo(0.0080601, 12);
  });

  it('the source’s own cost wins', () => {
    expect(usageCost(lookupModel('gpt-5')!, { convention: 'openai', input: 1, cacheRead: 0, cacheWrite: 0, output: 1, costUsd: 0.5 })).toBe(
      0.5,
    );
  });

  it('reads Claude Code 2.x 1-hour writes and the call key from a real line', async () => {
    const text = readFileSync(join(__dirname, '../../fixtures/usage-corpus/claude-kvsankar-real-session-01.jsonl'), 'utf8');
    const { sessions } = await importSource(stringSource('k.jsonl', text));
    const u = sessions[0]!.messages.find((x) => x.usage)!.usage!;
    // The line: input 6, cache_creation 1,045 (all ephemeral_1h), cache_read 3,057, output 16.
    expect(u).toMatchObject({ input: 6, cacheRead: 3_057, cacheWrite: 1_045, cacheWrite1h: 1_045, output: 16 });
    // Its message id and request id are redaction placeholders: no key (every call would share it).
    expect(u.callKey).toBeUndefined();
  });
});
