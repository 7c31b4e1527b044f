/**
 * docs/policies.md §S0, window: "ContextWindow = MaxTokens × 4" when no window is configured, and
 * under policy s0 that rule wins over a provider's default window; docs/policies.md §Common: an
 * unknown model's warning names the window actually in force.
 */
import { describe, expect, it } from 'vitest';
import { resolveLimits } from '../../../src/core/budget/limits';
import { importSource, stringSource } from '../../../src/core/import/index';
import { replay } from '../../../src/core/replay/index';
import { policy } from '../../helpers/replay';

/** An OpenAI chat request body without a model: the importer marks it as provider `openai`. */
const CHAT = JSON.stringify({
  messages: [
    { role: 'user', content: 'What time is it?' },
    { role: 'assistant', content: 'It is noon.' },
  ],
});

describe('S0: ContextWindow = MaxTokens × 4 before a provider default', () => {
  it('resolves maxOutput × 4 ahead of the provider default when asked, and the provider default otherwise', () => {
    // 500 × 4 = 2,000.
    expect(resolveLimits({ maxOutput: 500, provider: 'openai', maxOutputWindowFirst: true })).toMatchObject({
      window: 2_000,
      windowSource: 'maxOutput×4',
    });
    // S1's order (no S0 rule): the provider's default, 128,000 for OpenAI.
    expect(resolveLimits({ maxOutput: 500, provider: 'openai' })).toMatchObject({ window: 128_000, windowSource: 'provider' });
    // A configured window, the transcript's and the model catalog's still come first.
    expect(resolveLimits({ window: 9_000, maxOutput: 500, provider: 'openai', maxOutputWindowFirst: true }).window).toBe(9_000);
    expect(resolveLimits({ transcriptWindow: 7_000, maxOutput: 500, provider: 'openai', maxOutputWindowFirst: true }).window).toBe(7_000);
    expect(resolveLimits({ model: 'gpt-4o', maxOutput: 500, provider: 'openai', maxOutputWindowFirst: true })).toMatchObject({
      window: 128_000,
      windowSource: 'model',
    });
    // Without maxOutput the rule has nothing to multiply: the provider default.
    expect(resolveLimits({ provider: 'openai', maxOutputWindowFirst: true }).window).toBe(128_000);
  });

  it('policy s0 on an OpenAI chat transcript with maxOutput 500: window 2,000, as on a plain JSONL', async () => {
    const { sessions } = await importSource(stringSource('chat.json', CHAT));
    expect(sessions[0]!.provider).toBe('openai');
    const r = await replay(sessions[0]!, policy('s0', { maxOutput: 500 }));
    // 500 × 4 = 2,000; S0's limit = window − MaxTokens = 2,000 − 500 = 1,500 (buffer 0).
    expect(r.config.resolved).toMatchObject({ window: 2_000, windowSource: 'maxOutput×4', maxOutput: 500, enforcedLimit: 1_500 });
    // The same request under another policy keeps S1's order: the provider default.
    const s2 = await replay(sessions[0]!, policy('s2', { maxOutput: 500 }));
    expect(s2.config.resolved).toMatchObject({ window: 128_000, windowSource: 'provider' });
  });
});

describe('an unknown model’s warning names the window in force', () => {
  it('the provider default (128,000) when the provider is known, not 131,072', () => {
    const r = resolveLimits({ model: 'mystery-model-9', provider: 'openai' });
    expect(r.window).toBe(128_000);
    // maxOutput = floor(128,000 / 4) = 32,000.
    expect(r.warnings).toEqual([
      'unknown model "mystery-model-9": using window 128,000 from the provider default, maxOutput floor(window / 4) = 32,000',
    ]);
  });

  it('the default 131,072 when nothing else is known, and a requested maxOutput as given', () => {
    // floor(131,072 / 4) = 32,768.
    expect(resolveLimits({ model: 'mystery-model-9' }).warnings).toEqual([
      'unknown model "mystery-model-9": using window 131,072 from the default, maxOutput floor(window / 4) = 32,768',
    ]);
    // maxOutput 500 with no provider: 500 × 4 = 2,000.
    expect(resolveLimits({ model: 'mystery-model-9', maxOutput: 500, buffer: 0 }).warnings).toEqual([
      'unknown model "mystery-model-9": using window 2,000 from maxOutput × 4, maxOutput 500 from the request',
    ]);
  });
});
