/** configFields: the config panel derived from the config schema, with what each policy ignores. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configFields, configLeaves, fieldsOf } from '../../../src/core/config-fields';
import { ConfigError, ReplayConfig, resolveConfig } from '../../../src/core/config';
import { getPolicy } from '../../../src/core/policies/index';

const field = (policy: string, key: string, overrides = {}) => {
  const f = configFields(getPolicy(policy)!.config, overrides).find((x) => x.key === key);
  if (!f) throw new Error(`no field ${key}`);
  return f;
};

describe('configFields', () => {
  it('has one field per leaf of the schema, nested keys dotted, the policy name left out', () => {
    const keys = configFields(getPolicy('s0')!.config).map((f) => f.key);
    // Every top-level key is a field, or (an object) the prefix of its fields.
    for (const k of Object.keys(ReplayConfig.shape).filter((x) => x !== 'policy'))
      expect(keys.some((f) => f === k || f.startsWith(`${k}.`))).toBe(true);
    for (const k of ['paths.async', 'paths.guard', 'budget.tokens', 'budget.mode', 'autoCompact.reserve']) expect(keys).toContain(k);
    expect(keys).not.toContain('policy');
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("reads kind and range from the schema's checks", () => {
    // trigger: z.number().gt(0).lte(1) → a ratio in (0, 1].
    expect(field('s2', 'trigger')).toMatchObject({
      kind: 'ratio',
      min: 0,
      max: 1,
      step: 0.01,
      unit: 'ratio',
      value: 0.85,
      policyValue: 0.85,
    });
    // slidingWindow: a positive integer → from 1, no maximum.
    expect(field('s2', 'slidingWindow')).toMatchObject({ kind: 'integer', min: 1, max: null, step: 1, value: 20 });
    // buffer: a non-negative integer → from 0.
    expect(field('s2', 'buffer')).toMatchObject({ kind: 'integer', min: 0, unit: 'tokens', value: 8_192 });
    expect(field('s2', 'budget.mode')).toMatchObject({ kind: 'select', options: ['hard', 'soft', 'approval'] });
    expect(field('s2', 'paths.guard')).toMatchObject({ kind: 'toggle', value: false });
    expect(field('s2', 'pipeline')).toMatchObject({ kind: 'list', value: ['sliding-window'] });
    expect(field('s2', 'pipeline').options).toContain('observation-masking');
  });

  it('gives the value in force, the policy value and whether it is overridden', () => {
    expect(field('s2', 'slidingWindow', { slidingWindow: 8 })).toMatchObject({ value: 8, policyValue: 20, overridden: true });
    expect(field('s2', 'trigger', { slidingWindow: 8 })).toMatchObject({ value: 0.85, overridden: false });
  });

  it('says which settings the policy ignores, and why', () => {
    // Claude Code's auto-compact formula decides when it compacts; its target still sizes the summary budget.
    expect(field('claude-code', 'trigger')).toMatchObject({ applies: false, why: expect.stringMatching(/auto-compact formula/) });
    expect(field('claude-code', 'target').applies).toBe(true);
    expect(field('claude-code', 'autoCompact.reserve')).toMatchObject({ applies: true, value: 20_000 });
    expect(field('claude-code', 'slidingWindow')).toMatchObject({ applies: false, why: 'the pipeline has no sliding-window' });
    expect(field('s2', 'slidingWindow').applies).toBe(true);
    // S1 never compresses: nothing summarizes; its guard is on, so fallback models apply.
    expect(field('s1', 'summarizer')).toMatchObject({ applies: false, why: expect.stringMatching(/no compression path/) });
    expect(field('s1', 'fallbackModels').applies).toBe(true);
    expect(field('s2', 'fallbackModels')).toMatchObject({ applies: false, why: 'the guard (paths.guard) is off' });
    // OpenHands recent events: no summarizer, a message-count trigger.
    expect(field('openhands-recent', 'trigger')).toMatchObject({ applies: false, why: 'the trigger is a message count (triggerMessages)' });
    expect(field('openhands-recent', 'summarizerModel').applies).toBe(false);
    // Budget settings apply only when a budget is set.
    expect(field('s2', 'budget.mode').applies).toBe(false);
    expect(field('s4', 'budget.mode').applies).toBe(true);
    // An override can switch a path on, and the settings behind it then apply.
    expect(field('s2', 'asyncMessages').applies).toBe(false);
    expect(field('s2', 'asyncMessages', { 'paths.async': true }).applies).toBe(true);
  });

  it('refuses an override the schema refuses, naming the key', () => {
    expect(() => configFields(getPolicy('s2')!.config, { trigger: 2 })).toThrow(ConfigError);
    expect(() => configFields(getPolicy('s2')!.config, { trigger: 2 })).toThrow(/trigger/);
  });

  it('gives a key added to the schema a field of its own, with a label from its name', () => {
    const wider = ReplayConfig.extend({ decayHalfLife: z.number().int().min(2).max(64).default(8) });
    const leaves = configLeaves(wider);
    expect(leaves.map((l) => l.key)).toContain('decayHalfLife');
    const inForce = resolveConfig('s2');
    const [f] = fieldsOf(
      leaves.filter((l) => l.key === 'decayHalfLife'),
      inForce,
      { ...inForce, decayHalfLife: 8 },
    );
    expect(f).toMatchObject({
      key: 'decayHalfLife',
      label: 'Decay half life',
      group: 'Other',
      kind: 'integer',
      min: 2,
      max: 64,
      step: 1,
      unit: null,
      policyValue: 8,
      applies: true,
    });
  });
});
