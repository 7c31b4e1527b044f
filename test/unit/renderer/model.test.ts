import { describe, expect, it } from 'vitest';
import type { MessageView } from '../../../src/shared/api';
import { compressionSteps, messageStateAt, nextCompression, stepAtOrAfter } from '../../../src/renderer/src/model/selection';
import { turnRows } from '../../../src/renderer/src/model/turn-rows';
import { rangeList, describeRanges } from '../../../src/renderer/src/model/ranges';
import { formatUrlState, parseUrlState } from '../../../src/renderer/src/model/url-state';
import { fieldProblem, guessFieldKey, withOverrides } from '../../../src/renderer/src/model/config';
import { toolPartner } from '../../../src/renderer/src/model/tool-links';
import { bucketFlag, bucketOf, markersInBucket, stepForBucket } from '../../../src/renderer/src/model/chart-geometry';
import { chartView, FIELDS } from './fake-client';

describe('selection helpers', () => {
  it('maps a message to the first call that sees it', () => {
    const steps = [1, 3, 6, 8];
    expect(stepAtOrAfter(steps, 0)).toBe(0);
    expect(stepAtOrAfter(steps, 3)).toBe(1);
    expect(stepAtOrAfter(steps, 4)).toBe(2);
    expect(stepAtOrAfter(steps, 9)).toBe(3);
    // A replay that ended early (an abort at call 1) has only two calls.
    expect(stepAtOrAfter(steps, 7, 2)).toBe(1);
    expect(stepAtOrAfter([], 0)).toBeNull();
  });

  it('reads a message state from the run-length list', () => {
    const runs = [
      [0, 4, 'dropped'],
      [5, 5, 'summarised'],
      [6, 9, 'window'],
      [10, 12, 'future'],
    ] as const;
    expect(messageStateAt(runs, 0)).toBe('dropped');
    expect(messageStateAt(runs, 5)).toBe('summarised');
    expect(messageStateAt(runs, 9)).toBe('window');
    expect(messageStateAt(runs, 13)).toBeNull();
  });

  it('finds the next and previous compression', () => {
    const steps = compressionSteps([
      { step: 9, kind: 'compression', path: 'proactive', strategy: 'summarize', tokensBefore: 1_000, tokensAfter: 400 },
      { step: 4, kind: 'compression', path: 'proactive', strategy: 'summarize', tokensBefore: 1_000, tokensAfter: 400 },
      { step: 6, kind: 'warn', reason: '' },
    ]);
    expect(steps).toEqual([4, 9]);
    expect(nextCompression(steps, 0, 1)).toBe(4);
    expect(nextCompression(steps, 4, 1)).toBe(9);
    expect(nextCompression(steps, 9, 1)).toBeNull();
    expect(nextCompression(steps, 9, -1)).toBe(4);
    expect(nextCompression(steps, 4, -1)).toBeNull();
  });
});

describe('turn rows', () => {
  it('puts a header before the first message of each turn, both ways', () => {
    // 6 messages, turns start at 0 and 3 → rows: T0, m0, m1, m2, T1, m3, m4, m5
    const rows = turnRows(6, [0, 3]);
    expect(rows.count).toBe(8);
    expect([0, 1, 4, 5, 7].map((r) => rows.at(r))).toEqual([
      { kind: 'turn', turn: 0, first: 0 },
      { kind: 'message', index: 0 },
      { kind: 'turn', turn: 1, first: 3 },
      { kind: 'message', index: 3 },
      { kind: 'message', index: 5 },
    ]);
    expect([0, 2, 3, 5].map((m) => rows.rowOf(m))).toEqual([1, 3, 5, 7]);
  });

  it('lists subagent rows under the message whose call spawned them, between headers and messages', () => {
    // 6 messages, turns at 0 and 3, message 2 spawned two subagents, message 3 one:
    // T0, m0, m1, m2, S0, S1, T1, m3, S2, m4, m5
    const rows = turnRows(6, [0, 3], [2, 2, 3]);
    expect(rows.count).toBe(11);
    expect(Array.from({ length: 11 }, (_, r) => rows.at(r))).toEqual([
      { kind: 'turn', turn: 0, first: 0 },
      { kind: 'message', index: 0 },
      { kind: 'message', index: 1 },
      { kind: 'message', index: 2 },
      { kind: 'subagent', after: 2, k: 0 },
      { kind: 'subagent', after: 2, k: 1 },
      { kind: 'turn', turn: 1, first: 3 },
      { kind: 'message', index: 3 },
      { kind: 'subagent', after: 3, k: 2 },
      { kind: 'message', index: 4 },
      { kind: 'message', index: 5 },
    ]);
    expect([0, 1, 2, 3, 4, 5].map((m) => rows.rowOf(m))).toEqual([1, 2, 3, 7, 9, 10]);
  });

  it('leaves messages before the first turn without a header', () => {
    const rows = turnRows(4, [2]);
    expect(rows.at(0)).toEqual({ kind: 'message', index: 0 });
    expect(rows.at(2)).toEqual({ kind: 'turn', turn: 0, first: 2 });
    expect(rows.rowOf(2)).toBe(3);
  });
});

describe('message ranges', () => {
  it('walks inclusive ranges as one list', () => {
    const l = rangeList([
      [2, 4],
      [9, 9],
      [12, 13],
    ]);
    expect(l.count).toBe(6);
    expect([0, 2, 3, 4, 5].map((n) => l.at(n))).toEqual([2, 4, 9, 12, 13]);
    expect(
      describeRanges([
        [2, 4],
        [9, 9],
      ]),
    ).toBe('#2–4, #9');
  });
});

describe('url state', () => {
  it('round-trips session, policy, overrides and step', () => {
    const s = { session: 'a b', policy: 's2', overrides: { trigger: 0.5, 'paths.async': false, tokenizer: 'o200k' }, step: 42 };
    expect(parseUrlState(formatUrlState(s))).toEqual(s);
  });

  it('ignores a broken overrides value and a non-numeric step', () => {
    expect(parseUrlState('#s=x&o=%7Bnope&step=abc')).toEqual({ session: 'x', policy: null, overrides: {}, step: null });
  });
});

describe('config helpers', () => {
  it('checks a value against its field', () => {
    const [trigger, window] = [FIELDS[0]!, FIELDS[1]!];
    expect(fieldProblem(trigger, 0.5)).toBeNull();
    expect(fieldProblem(trigger, 1.5)).toMatch(/at most 1/);
    expect(fieldProblem(window, 1500.5)).toMatch(/whole number/);
    expect(fieldProblem(window, 10)).toMatch(/at least 1000 tokens/);
    expect(fieldProblem(trigger, 'x')).toMatch(/expected a number/);
  });

  it('names the field a host error mentions', () => {
    expect(guessFieldKey('config: budget.tokens: too small', ['trigger', 'budget.tokens'])).toBe('budget.tokens');
    expect(guessFieldKey('something else', ['trigger', 'window'])).toBeNull();
  });

  it('writes dotted overrides into a nested config without changing it', () => {
    const base = { trigger: 0.8, budget: { tokens: 10, turns: 3 } };
    expect(withOverrides(base, { 'budget.tokens': 99, trigger: 0.5 })).toEqual({ trigger: 0.5, budget: { tokens: 99, turns: 3 } });
    expect(base.budget.tokens).toBe(10);
  });
});

describe('tool links', () => {
  const msg = (index: number, parts: MessageView['parts']): MessageView => ({
    index,
    id: `m${index}`,
    role: 'assistant',
    parts,
    timestamp: null,
    tokens: 1,
    usage: null,
    pinned: false,
    truncated: false,
  });
  const messages = new Map<number, MessageView>([
    [
      3,
      msg(3, [
        { kind: 'tool_call', id: 'c1', name: 'Read', args: '{}' },
        { kind: 'tool_call', id: 'c2', name: 'Grep', args: '{}' },
      ]),
    ],
    [4, msg(4, [{ kind: 'tool_result', callId: 'c2', isError: false, text: 'b' }])],
    [5, msg(5, [{ kind: 'tool_result', callId: 'c1', isError: false, text: 'a' }])],
  ]);
  it('links a call to its own result and back', () => {
    expect(toolPartner(messages, 3, 'c1', 'call')).toBe(5);
    expect(toolPartner(messages, 3, 'c2', 'call')).toBe(4);
    expect(toolPartner(messages, 5, 'c1', 'result')).toBe(3);
    expect(toolPartner(messages, 3, 'c9', 'call')).toBeNull();
  });
});

describe('chart geometry', () => {
  it('finds the bucket of a call and the call a click means', () => {
    const v = { ...chartView('k', 10), bucketStart: [0, 4, 8], peakStep: [2, 5, 9] };
    expect([0, 3, 4, 9].map((s) => bucketOf(v, s))).toEqual([0, 0, 1, 2]);
    expect(stepForBucket(v, 1, undefined)).toBe(5);
    expect(
      stepForBucket(v, 1, [
        { step: 6, kind: 'compression', path: 'proactive', strategy: 'summarize', tokensBefore: 1_000, tokensAfter: 400 },
      ]),
    ).toBe(6);
  });

  it('finds the markers of a bucket among markers sorted by call', () => {
    const c = (step: number) => ({
      step,
      kind: 'compression' as const,
      path: 'proactive' as const,
      strategy: 'summarize',
      tokensBefore: 1_000,
      tokensAfter: 400,
    });
    const v = {
      ...chartView('k', 10),
      bucketStart: [0, 4, 8],
      markers: [c(0), c(3), c(4), c(4), c(7), { step: 8, kind: 'warn' as const, reason: 'r', until: 9 }],
    };
    expect(markersInBucket(v, 0).map((m) => m.step)).toEqual([0, 3]);
    expect(markersInBucket(v, 1).map((m) => m.step)).toEqual([4, 4, 7]);
    expect(markersInBucket(v, 2).map((m) => m.kind)).toEqual(['warn']);
    expect(markersInBucket({ ...v, markers: [c(9)] }, 1)).toEqual([]);
  });

  it('flags a bucket whose request is above the window or the limit', () => {
    const v = chartView('k', 3);
    const flagged = {
      ...v,
      total: { min: [100, 950, 1200], max: [100, 950, 1200] },
      limit: { min: [900, 900, 900], max: [900, 900, 900] },
      window: { min: [1000, 1000, 1000], max: [1000, 1000, 1000] },
    };
    expect([0, 1, 2].map((b) => bucketFlag(flagged, b))).toEqual([null, 'over-limit', 'over-window']);
  });
});
