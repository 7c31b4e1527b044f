/**
 * One exact BPE path (src/main/count/guarded.ts): the counts it gives — in this thread as
 * `inspect --exact` uses it, and on the bulk pool the host's exact counts use — are the counts of
 * the paths it replaced or wraps: core's bounded counter (src/core/tokens/bpe.ts on js-tiktoken's
 * rank tables), js-tiktoken's own encoder and gpt-tokenizer's own count, on every fixture file of the
 * repository. A text with a long run takes core's bounded merge, so 'a' × 80,000 (quadratic for
 * js-tiktoken and gpt-tokenizer) comes back with core's number; its speed is in test/bench/tokens.bench.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens as gptO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as gptCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base';
import { afterAll, describe, expect, it } from 'vitest';
import { hasLongRun } from '../../../src/core/tokens/bpe';
import { getTokenizer } from '../../../src/core/tokens/index';
import { createBulkCounter } from '../../../src/main/count/bulk';
import { countGuarded } from '../../../src/main/count/guarded';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Every fixture file, whole and line by line (a transcript's lines are what a message holds). */
const fixtureTexts = filesUnder(join(__dirname, '../../fixtures')).flatMap((f) => {
  const text = readFileSync(f, 'utf8');
  return [text, ...text.split('\n').filter((l) => l.length > 0)];
});

const jsTiktoken = { o200k_base: new Tiktoken(o200kRanks), cl100k_base: new Tiktoken(cl100kRanks) };
const gptTokenizer = { o200k_base: gptO200k, cl100k_base: gptCl100k };
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

const bulk = createBulkCounter(2);
afterAll(() => bulk.close());

describe.each(['o200k_base', 'cl100k_base'] as const)('%s: one exact path', (enc) => {
  const core = getTokenizer(`tiktoken:${enc}`);

  it('gives the counts of core, js-tiktoken and gpt-tokenizer on every fixture text, in this thread and on the bulk pool', async () => {
    expect(fixtureTexts.length).toBeGreaterThan(100);
    const guarded = await countGuarded(fixtureTexts, enc);
    const pooled = await bulk.count(fixtureTexts, enc);
    let compared = 0;
    for (let i = 0; i < fixtureTexts.length; i++) {
      const t = fixtureTexts[i]!;
      const want = core.countText(t);
      expect(guarded[i], t.slice(0, 80)).toBe(want);
      expect(pooled[i], t.slice(0, 80)).toBe(want);
      // The libraries' own merges are quadratic in a piece: compared where no long piece can be.
      if (hasLongRun(t)) continue;
      expect(jsTiktoken[enc].encode(t, [], []).length, t.slice(0, 80)).toBe(want);
      expect(gptTokenizer[enc](t, NO_SPECIAL), t.slice(0, 80)).toBe(want);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  }, 120_000);

  it("counts 'a' × 80,000 through the guard, with core's bounded counter's number", async () => {
    const long = 'a'.repeat(80_000);
    expect(hasLongRun(long)).toBe(true);
    const want = core.countText(long);
    // A run of one letter merges into tokens of several letters each: far fewer tokens than letters.
    expect(want).toBeGreaterThan(0);
    expect(want).toBeLessThan(80_000 / 2);
    expect(Array.from(await countGuarded([long, 'x' + long + ' y'], enc))).toEqual([want, core.countText('x' + long + ' y')]);
    expect(Array.from(await bulk.count([long], enc))).toEqual([want]);
  }, 60_000);
});
