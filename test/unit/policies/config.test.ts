/** The one config: `--set` parsing, S3's override order, policies by id, and policies as JSON files. */
import { describe, expect, it } from 'vitest';
import { ConfigError, envOverrides, parseSetOverride, ReplayConfig, resolveConfig, validateConfig } from '../../../src/core/config';
import { getPolicy, POLICIES } from '../../../src/core/policies/index';
import { parsePolicyJSON, policyToJSON } from '../../../src/core/policies/io';

describe('parseSetOverride', () => {
  it('types the value by key', () => {
    expect(parseSetOverride('window=200000')).toEqual(['window', 200_000]);
    expect(parseSetOverride('trigger = 0.7')).toEqual(['trigger', 0.7]);
    expect(parseSetOverride('model=claude-sonnet-4')).toEqual(['model', 'claude-sonnet-4']);
    expect(parseSetOverride('budget.mode=soft')).toEqual(['budget.mode', 'soft']);
    expect(parseSetOverride('pipeline=tool-pruning,head-tail')).toEqual(['pipeline', ['tool-pruning', 'head-tail']]);
    expect(parseSetOverride('paths.emergency=true')).toEqual(['paths.emergency', true]);
  });
  it('says what is wrong', () => {
    expect(() => parseSetOverride('window')).toThrow(/expected key=value, got "window"/);
    expect(() => parseSetOverride('windw=3')).toThrow(/unknown config key "windw" \(known: model, window/);
    expect(() => parseSetOverride('window=big')).toThrow(/window: expected a number, got "big"/);
    expect(() => parseSetOverride('paths.async=maybe')).toThrow(ConfigError);
  });
  it('accepts every key the issue names', () => {
    for (const k of [
      'model',
      'window',
      'maxOutput',
      'buffer',
      'tokenizer',
      'trigger',
      'target',
      'primers',
      'recents',
      'slidingWindow',
      'toolOutputMaxBytes',
      'summarizer',
      'budget.turns',
      'budget.tokens',
      'budget.toolCalls',
      'budget.cost',
      'budget.minutes',
      'budget.mode',
    ]) {
      expect(() => parseSetOverride(`${k}=${/model|tokenizer|summarizer|mode/.test(k) ? 'x' : '1'}`)).not.toThrow();
    }
  });
});

describe('validateConfig: one object shape for every policy', () => {
  it('gives every resolved config the same keys in the same order (paths too), and the same JSON as the parse alone', () => {
    const configs = [
      ...POLICIES.map((p) => resolveConfig(p.id)),
      resolveConfig('letta', { trigger: 0.4 }),
      resolveConfig('openhands-summary', { triggerMessages: 60 }),
      validateConfig({ window: 8_000, pipeline: ['head-tail'] }),
    ];
    const keys = (o: object): string => Object.keys(o).join(',');
    for (const c of configs) {
      expect(keys(c)).toBe(keys(configs[0]!));
      expect(keys(c.paths)).toBe(keys(configs[0]!.paths));
    }
    // Keys a preset leaves out are present and undefined (so the replay's reads of the config see
    // one hidden class), and JSON does not write them: the policy's JSON is what it was.
    const letta = resolveConfig('letta');
    expect('triggerMessages' in letta && letta.triggerMessages === undefined).toBe(true);
    expect(JSON.parse(JSON.stringify(letta))).not.toHaveProperty('triggerMessages');
    // The same text as zod's own output, key for key and in its order.
    for (const p of POLICIES) expect(JSON.stringify(validateConfig(p.config))).toBe(JSON.stringify(ReplayConfig.parse(p.config)));
  });
});

describe('resolveConfig: request > preset > environment > file defaults (S3)', () => {
  const file = { trigger: 0.5, target: 0.2, recents: 7, buffer: 100 };
  const env = { trigger: '0.6', recents: '8', primers: '4' };
  it('each layer wins over the ones below it', () => {
    const c = resolveConfig('s3', { trigger: 0.9 }, env, file);
    expect(c.trigger).toBe(0.9); // request over preset (0.75), env and file
    expect(c.target).toBe(0.375); // preset over file
    expect(c.recents).toBe(20); // preset over env and file
    expect(c.buffer).toBe(100); // file, nothing above sets it
    const d = resolveConfig({ policy: 'mine' }, {}, env, file);
    expect([d.trigger, d.recents, d.primers, d.target]).toEqual([0.6, 8, 4, 0.2]); // env over file
  });
  it('takes a policy id or a config; an unknown id is a clear error', () => {
    expect(resolveConfig('letta').trigger).toBe(0.9);
    expect(() => resolveConfig('lettuce')).toThrow(/unknown policy "lettuce" \(known: s0, s1/);
  });
  it("tunes a preset's own knobs, e.g. Claude Code's auto-compact percentage", () => {
    const c = resolveConfig('claude-code', { 'autoCompact.pct': 0.8, triggerBasis: 'limit', 'budget.backpressure': true });
    expect(c.autoCompact).toEqual({ reserve: 20_000, pct: 0.8, cap: 33_000 });
    expect(c.triggerBasis).toBe('limit');
    expect(() => resolveConfig('claude-code', { triggerBasis: 'sideways' })).toThrow(/config: triggerBasis: /);
  });

  it('nested keys merge instead of replacing the object', () => {
    const c = resolveConfig('s4', { 'budget.turns': 10 });
    expect(c.budget).toMatchObject({ turns: 10, tokens: 1_000_000, toolCalls: 200, cost: 2, minutes: 30, mode: 'hard' });
  });
  it('a bad value names the field', () => {
    expect(() => resolveConfig('s2', { trigger: 1.5 })).toThrow(/config: trigger: /);
    expect(() => validateConfig({ pipeline: ['nope'] })).toThrow(/pipeline\.0/);
  });
  it('reads CTXSCOPE_* environment variables', () => {
    expect(envOverrides({ CTXSCOPE_TRIGGER: '0.7', CTXSCOPE_BUDGET_TOOL_CALLS: '12', CTXSCOPE_MAX_OUTPUT: '', OTHER: '1' })).toEqual({
      trigger: '0.7',
      'budget.toolCalls': '12',
    });
  });
});

describe('policies as JSON', () => {
  it('every built-in policy round-trips through its file', () => {
    for (const p of POLICIES) {
      const back = parsePolicyJSON(policyToJSON(p), `${p.id}.json`);
      expect(back).toEqual(p);
      expect(validateConfig(back.config)).toEqual(validateConfig(p.config));
    }
  });
  it('a user policy is validated and named after its id', () => {
    const mine = parsePolicyJSON(
      JSON.stringify({ id: 'my-s3', label: 'S3 tighter', config: { ...getPolicy('s3')!.config, trigger: 0.6 } }),
      'my-s3.json',
    );
    expect(mine).toMatchObject({ id: 'my-s3', source: 'user', config: { policy: 'my-s3', trigger: 0.6 } });
  });
  it('bad files say which file and which field', () => {
    expect(() => parsePolicyJSON('{', 'a.json')).toThrow(/^a\.json: not valid JSON/);
    expect(() => parsePolicyJSON('{"id":"x","label":"X","config":{"trigger":2}}', 'b.json')).toThrow(/^b\.json: config\.trigger: /);
    expect(() => parsePolicyJSON('{"id":"Bad Id","label":"X","config":{}}', 'c.json')).toThrow(/^c\.json: id: /);
    expect(() => parsePolicyJSON('{"id":"x","label":"X","config":{},"extra":1}', 'd.json')).toThrow(/^d\.json: /);
  });
});

describe('the keys of the corrected rules (docs/policies.md §Common)', () => {
  it('--set reaches the task and agent budget layers, the trigger comparison, the tool modes and the tool preflight', () => {
    const c = resolveConfig('s3', {
      'taskBudget.tokens': '1000',
      'agentBudget.mode': 'approval',
      triggerWhen: 'above',
      toolOutputMode: 'read-grep',
      'paths.toolPreflight': 'true',
    });
    expect(c.taskBudget).toMatchObject({ tokens: 1_000, mode: 'soft', includeRequest: true });
    expect(c.agentBudget.mode).toBe('approval');
    expect(c).toMatchObject({ triggerWhen: 'above', toolOutputMode: 'read-grep', paths: { toolPreflight: true } });
    expect(() => resolveConfig('s3', { toolOutputMode: 'grep' })).toThrow(/toolOutputMode/);
  });
  it('a config file may pin messages by id or index', () => {
    expect(resolveConfig('s2', {}, {}, { pinned: ['msg-1', 4] }).pinned).toEqual(['msg-1', 4]);
    expect(() => resolveConfig('s2', {}, {}, { pinned: [-1] })).toThrow(/pinned/);
  });
});
