/**
 * What used to be kept by hand beside the config schema — the `--set` keys, the strategy ids, the
 * panel's labels — is now derived from it (src/core/config-schema.ts, src/core/strategies/registry.ts).
 * These checks keep the derivations honest: every schema key is a `--set` key (but the one its
 * metadata marks otherwise), each reads its own type, every strategy is a pipeline choice and owns
 * its settings, and every common or strategy setting carries a label and a sentence.
 */
import { describe, expect, it } from 'vitest';
import { configLeaves, parseSetOverride, resolveConfig, SET_KEY_NAMES, STRATEGY_IDS } from '../../../src/core/config';
import { configFields } from '../../../src/core/config-fields';
import { BUILTIN_STRATEGIES, settingUsers } from '../../../src/core/strategies/registry';

describe('derived key lists', () => {
  it('every schema key is a --set key, and every --set key a schema key, in the schema order', () => {
    const leaves = configLeaves();
    const settable = leaves.filter((l) => l.schema.settable !== false).map((l) => l.key);
    expect(SET_KEY_NAMES).toEqual(settable);
    // The one key left to a file and the CLI's --pin: pinned messages (an index would read as an id).
    expect(leaves.filter((l) => l.schema.settable === false).map((l) => l.key)).toEqual(['pinned']);
    // The 73 keys the hand-kept list had (layers: 9 keys × 3 budgets = 27).
    expect(SET_KEY_NAMES.length).toBe(73);
  });

  it('each --set key reads the value its schema type takes, and the resolved config holds it', () => {
    for (const { key, schema } of configLeaves()) {
      if (schema.settable === false) continue;
      const sample =
        schema.type === 'boolean'
          ? 'true'
          : schema.type === 'integer' || schema.type === 'number'
            ? '1'
            : schema.type === 'array'
              ? (schema.items?.enum?.[0] ?? schema.items?.anyOf?.find((a) => a.enum)?.enum?.[0] ?? 'x')
              : (schema.enum?.[0] ?? (schema.format === 'uri' ? 'https://example.com/v1' : 'x'));
      const [k, v] = parseSetOverride(`${key}=${sample}`);
      expect(k).toBe(key);
      const expected =
        schema.type === 'boolean'
          ? true
          : schema.type === 'integer' || schema.type === 'number'
            ? 1
            : schema.type === 'array'
              ? [sample]
              : sample;
      expect(v, key).toEqual(expected);
    }
  });

  it('every built-in strategy is a pipeline choice, in the registry order', () => {
    expect([...STRATEGY_IDS]).toEqual(BUILTIN_STRATEGIES.map((d) => d.id));
    const pipeline = configLeaves().find((l) => l.key === 'pipeline')!;
    expect(pipeline.schema.items?.anyOf?.find((a) => a.enum)?.enum).toEqual([...STRATEGY_IDS]);
  });

  it("a strategy's settings are keys of the schema, owned by it alone, and ignored without it", () => {
    const keys = new Set(configLeaves().map((l) => l.key));
    const owners = new Map<string, string>();
    for (const d of BUILTIN_STRATEGIES)
      for (const key of Object.keys(d.settings.shape)) {
        expect(keys.has(key), key).toBe(true);
        expect(owners.has(key), `${key} owned twice`).toBe(false);
        owners.set(key, d.id);
        expect(settingUsers(key)[0]!.id).toBe(d.id);
      }
    // drop-oldest uses none of them: each is ignored under a pipeline of drop-oldest alone.
    const fields = configFields(resolveConfig('s2', { pipeline: 'drop-oldest' }));
    for (const [key] of owners) expect(fields.find((f) => f.key === key)!.why, key).toMatch(/^the pipeline has no /);
  });

  it('every setting with metadata has a label, a group and a sentence', () => {
    for (const { key, schema } of configLeaves()) {
      if (schema.label === undefined) continue;
      expect(schema.group, key).toBeTruthy();
      expect(schema.description, key).toBeTruthy();
    }
    // Every strategy setting has metadata.
    for (const d of BUILTIN_STRATEGIES)
      for (const key of Object.keys(d.settings.shape)) expect(configLeaves().find((l) => l.key === key)!.schema.label, key).toBeTruthy();
  });

  it('the panel names policies by their descriptive names, never by a source id such as "S4"', () => {
    for (const f of configFields({})) expect(`${f.label} ${f.description}`, f.key).not.toMatch(/\bS[0-4]\b/);
  });
});
