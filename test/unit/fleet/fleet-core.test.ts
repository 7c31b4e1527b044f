/**
 * The pure parts of the fleet: the shard a path falls in, the settings hash, and a replay turned
 * into rows (a hand-built ReplayResult, so each expected figure is read off the input).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJSON, partitionValue, sameSettings, settingsHash } from '../../../src/core/fleet/manifest';
import { compressionRows, replayRow, sessionFacts, StepColumnsBuilder } from '../../../src/core/fleet/rows';
import { inShard, parseShard, pathHash } from '../../../src/core/fleet/shard';
import type { Session } from '../../../src/core/model';
import type { ReplayResult } from '../../../src/core/replay/types';

describe('shards', () => {
  it('parses I/N and refuses anything else', () => {
    expect(parseShard('2/8')).toEqual({ index: 2, count: 8 });
    for (const bad of ['0/8', '9/8', '1/0', '2-8', '', 'a/b']) expect(() => parseShard(bad)).toThrow(/--shard: expected/);
  });

  it('puts every path in exactly one of N shards', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 64 }), (path, n) => {
        let hits = 0;
        for (let i = 1; i <= n; i++) if (inShard(path, { index: i, count: n })) hits++;
        return hits === 1;
      }),
    );
  });

  it('is a stable hash: FNV-1a of the empty string and of "a" are the published values', () => {
    // FNV-1a 32-bit: offset basis 0x811c9dc5; "a" = (0x811c9dc5 ^ 0x61) * 0x01000193 mod 2^32 = 0xe40c292c.
    expect(pathHash('')).toBe(0x811c9dc5);
    expect(pathHash('a')).toBe(0xe40c292c);
  });
});

describe('settings', () => {
  it('hashes settings whatever the order of their keys', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.string(), fc.boolean())), (o) => {
        const reversed = Object.fromEntries(Object.entries(o).reverse());
        return canonicalJSON(o) === canonicalJSON(reversed) && settingsHash(o) === settingsHash(reversed);
      }),
    );
    expect(settingsHash({ trigger: 0.75 })).not.toBe(settingsHash({ trigger: 0.5 }));
  });

  it('says which policy changed settings', () => {
    const a = { policies: [{ id: 's3', settings: {}, settingsHash: 'x' }], needles: [] };
    const b = { policies: [{ id: 's3', settings: {}, settingsHash: 'y' }], needles: [] };
    expect(sameSettings(a, a)).toBeNull();
    expect(sameSettings(a, b)).toMatch(/policy s3 was run with other settings/);
    expect(sameSettings(a, { ...a, needles: ['ORD-1'] })).toMatch(/needles/);
  });

  it('keeps a partition value safe for a path', () => {
    expect(partitionValue('claude-code')).toBe('claude-code');
    expect(partitionValue('my policy/../x')).toBe('my_policy_.._x');
  });
});

/** Three calls; a compression before call 2 that dropped messages 1-3 and summarised them, one fact lost there. */
function result(): ReplayResult {
  const n = 3;
  const f = (...v: number[]) => Float64Array.from(v);
  const regions = {
    system: f(100, 100, 100),
    unlogged: f(0, 0, 0),
    summary: f(0, 0, 50),
    history: f(400, 900, 200),
    tools: f(10, 10, 10),
    output: f(0, 0, 0),
    buffer: f(0, 0, 0),
    free: f(0, 0, 0),
  };
  return {
    policy: 's3',
    config: {},
    steps: {
      count: n,
      messageIndex: Uint32Array.of(1, 3, 5),
      turn: Uint32Array.of(0, 0, 1),
      regions,
      total: f(510, 1010, 360),
      limit: f(1000, 1000, 1000),
      trigger: f(NaN, 750, 750),
      reported: f(500, NaN, 350),
      status: Uint8Array.of(0, 1, 2),
      reasonIndex: new Uint16Array(n),
      reasons: [''],
      keptFrom: new Uint32Array(n),
    },
    events: [
      {
        kind: 'compression',
        step: 2,
        path: 'proactive',
        strategy: 'summarize',
        tokensBefore: 1010,
        tokensAfter: 360,
        dropped: [[1, 3]],
        kept: [[4, 5]],
        summary: 's',
      },
      { kind: 'source-compaction', step: 2, messageIndex: 4, trigger: 'auto', tokensBefore: 900 },
    ],
    totals: {
      billedInputTokens: 1880,
      cachedInputTokens: 300,
      outputTokens: 60,
      cost: 0.01,
      compressions: 1,
      tokensRemoved: 650,
      peak: 1010,
      forcedFinals: 0,
      aborts: 0,
      overflows: 0,
    },
    retention: {
      lost: [{ key: 'ORD-1', kind: 'identifier', lostAt: 2, neededAt: 2 }],
      needles: [
        { key: 'x', firstMessage: 0, leftAt: [2] },
        { key: 'y', firstMessage: null, leftAt: [] },
      ],
    },
  };
}

const session: Session = {
  id: 'sess',
  format: 'claude-code',
  systemPrompt: null,
  tools: [],
  messages: [],
  sourceCompactions: [],
  subagents: [],
  warnings: [],
  cwd: '/p',
  model: 'm',
};

describe('rows', () => {
  it('a sessions row carries the totals, the turns, lost facts and needles that left the window', () => {
    const row = replayRow(0, 's3', { sourcePath: '/a.jsonl', fileHash: 'h' }, 'sh', sessionFacts(session, null), result());
    expect(row).toMatchObject({
      sessionId: 'sess',
      agent: 'claude-code',
      ownPolicy: 'claude-code',
      project: '/p',
      calls: 3,
      turns: 2,
      billedInputTokens: 1880,
      costUsd: 0.01,
      lostFacts: 1,
      lostNeedles: 1,
      cacheWriteTokens: null,
      status: 'ok',
    });
  });

  it('a compressions row per compression (summarised, facts lost at its call) and per agent compaction', () => {
    const rows = compressionRows(7, result());
    expect(rows).toEqual([
      {
        key: 7,
        call: 2,
        kind: 'compression',
        path: 'proactive',
        strategy: 'summarize',
        tokensBefore: 1010,
        tokensAfter: 360,
        messagesDropped: 0,
        messagesMasked: 0,
        messagesSummarised: 3,
        factsLost: 1,
      },
      {
        key: 7,
        call: 2,
        kind: 'agent-compaction',
        path: 'auto',
        strategy: null,
        tokensBefore: 900,
        tokensAfter: null,
        messagesDropped: 0,
        messagesMasked: 0,
        messagesSummarised: 0,
        factsLost: 0,
      },
    ]);
  });

  it('step columns grow past their first capacity and keep each replay’s calls', () => {
    const b = new StepColumnsBuilder();
    for (let k = 0; k < 400; k++) b.add(k, result());
    const s = b.finish();
    expect(s.count).toBe(1200);
    expect(s.columns.key[1199]).toBe(399);
    expect(s.columns.call[1199]).toBe(2);
    expect(s.columns.history[1198]).toBe(900);
    expect(Number.isNaN(s.columns.trigger_tokens[1197]!)).toBe(true);
  });
});
