/**
 * A strategy is one module that describes itself (src/core/strategies/define.ts): registering the
 * toy strategy of test/fixtures/strategies/keep-turns.mjs is all it takes for its id, its setting
 * and its policy to reach every place the registry feeds — `--set` and `CTXSCOPE_<KEY>`, the config
 * schema, the config panel's fields with their "ignored because" texts, the generated config
 * reference and the policies list. Removing it takes it out of all of them again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRATEGY_KIT } from '../../../src/cli/strategy-module';
import { envOverrides, parseSetOverride, resolveConfig, SET_KEY_NAMES } from '../../../src/core/config';
import { configFields } from '../../../src/core/config-fields';
import { getPolicy, listedPolicies } from '../../../src/core/policies/index';
import { registerStrategy, StrategyRegistryError, strategyById, unregisterStrategy } from '../../../src/core/strategies/registry';
import type { StrategyDescriptor } from '../../../src/core/strategies/define';
// @ts-expect-error — a plain .mjs fixture without type declarations
import { ctxscopeStrategies } from '../../fixtures/strategies/keep-turns.mjs';
// @ts-expect-error — a plain .mjs script without type declarations
import { configReference } from '../../../scripts/gen-docs.mjs';

const [toy] = (ctxscopeStrategies as (kit: typeof STRATEGY_KIT) => StrategyDescriptor[])(STRATEGY_KIT);

describe('a registered toy strategy', () => {
  beforeAll(() => registerStrategy(toy!));
  afterAll(() => unregisterStrategy('keep-turns'));

  it('is a --set key and a CTXSCOPE_ variable', () => {
    expect(SET_KEY_NAMES).toContain('toyKeepTurns');
    expect(parseSetOverride('toyKeepTurns=3')).toEqual(['toyKeepTurns', 3]);
    expect(() => parseSetOverride('toyKeepTurns=three')).toThrow(/toyKeepTurns: expected a number/);
    // A capital starts a word: toyKeepTurns → TOY_KEEP_TURNS.
    expect(envOverrides({ CTXSCOPE_TOY_KEEP_TURNS: '4' })).toEqual({ toyKeepTurns: '4' });
  });

  it('is in the config schema: its id in the pipeline, its setting with its default and range', () => {
    const c = resolveConfig('s2', { pipeline: 'keep-turns' }) as unknown as Record<string, unknown>;
    expect(c['pipeline']).toEqual(['keep-turns']);
    // The fixture's default.
    expect(c['toyKeepTurns']).toBe(2);
    // int().positive(): 0 is refused, naming the key.
    expect(() => resolveConfig('s2', { toyKeepTurns: 0 })).toThrow(/toyKeepTurns/);
  });

  it('brings its policy, listed after the built-in ones', () => {
    const ids = listedPolicies().map((p) => p.id);
    expect(ids.at(-1)).toBe('toy-keep-turns');
    expect(ids.indexOf('toy-keep-turns')).toBeGreaterThan(ids.indexOf('letta'));
    const c = resolveConfig('toy-keep-turns', { toyKeepTurns: 5 }) as unknown as Record<string, unknown>;
    expect(c['toyKeepTurns']).toBe(5);
  });

  it('has a field in the config panel, with its metadata, and says when it is ignored', () => {
    const field = (policy: string, overrides = {}) =>
      configFields(getPolicy(policy)!.config, overrides).find((f) => f.key === 'toyKeepTurns')!;
    expect(field('toy-keep-turns')).toMatchObject({
      label: 'Turns kept (toy)',
      group: 'Strategy',
      kind: 'integer',
      min: 1,
      unit: 'turns',
      value: 2,
      applies: true,
      description: 'The toy strategy keeps this many of the latest turns.',
    });
    // s2's pipeline is sliding-window.
    expect(field('s2')).toMatchObject({ applies: false, why: 'the pipeline has no keep-turns' });
    // Its own reason, from its descriptor.
    expect(field('toy-keep-turns', { triggerMessages: 30 })).toMatchObject({
      applies: false,
      why: 'toy: the message-count trigger decides',
    });
    // It keeps turn counts: under a pipeline of it alone, the token target does nothing.
    expect(configFields(getPolicy('toy-keep-turns')!.config).find((f) => f.key === 'target')).toMatchObject({
      applies: false,
      why: 'the pipeline keeps message counts, not a token target',
    });
  });

  it('is in the generated config reference: its strategy row and its setting row', async () => {
    const page = (await configReference()) as string;
    expect(page).toMatch(/^\| `keep-turns` \| Toy: keeps the last toyKeepTurns turns, drops the rest\. \| `toyKeepTurns` \| no \|$/m);
    const row = page.split('\n').find((l) => l.startsWith('| `toyKeepTurns` |'))!;
    expect(row).toContain('The toy strategy keeps this many of the latest turns.');
    expect(row).toContain('`CTXSCOPE_TOY_KEEP_TURNS`');
    expect(row).toContain('`--set`');
  });

  it('refuses a second strategy with the same id or a setting key already taken', () => {
    expect(() => registerStrategy(toy!)).toThrow(StrategyRegistryError);
    const clash = STRATEGY_KIT.defineStrategy({
      id: 'clash',
      description: 'reuses a built-in key',
      settings: STRATEGY_KIT.z.object({ slidingWindow: STRATEGY_KIT.z.number().default(1) }),
      run: toy!.run as never,
    });
    expect(() => registerStrategy(clash)).toThrow(/setting "slidingWindow" is already a config key/);
    expect(strategyById('clash')).toBeUndefined();
  });
});

describe('after the toy strategy is removed', () => {
  it('is gone from --set, the schema and the policies', () => {
    expect(strategyById('keep-turns')).toBeUndefined();
    expect(SET_KEY_NAMES).not.toContain('toyKeepTurns');
    expect(() => parseSetOverride('toyKeepTurns=3')).toThrow(/unknown config key "toyKeepTurns"/);
    expect(() => resolveConfig('s2', { pipeline: 'keep-turns' })).toThrow(/pipeline/);
    expect(listedPolicies().map((p) => p.id)).not.toContain('toy-keep-turns');
  });
});
