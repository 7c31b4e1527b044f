/**
 * Real vs predicted compactions (docs/policies.md §Presets, "real vs predicted compactions"): each
 * compaction an agent logs with its size is checked against the agent's preset. The synthetic
 * sessions below are built line by line; each expected value is derived by hand from the preset's
 * documented formula, with the arithmetic in a comment:
 * - claude-code: trigger = min(floor((window − 20,000) × 1), window − 33,000); at the catalog's
 *   200,000 for claude-sonnet-4: min(180,000, 167,000) = 167,000. Its measure before a call is the
 *   previous call's reported prompt + output + the messages since (a few tokens here).
 * - codex: trigger = 0.9 × window; the rollout reports a window of 100,000: 90,000. Its measure is
 *   the previous call's reported prompt + output (Codex checks when a call completes).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { replay } from '../../../src/core/replay/index';
import type { SourceCompactionCheck } from '../../../src/core/replay/types';
import { toCliJSON } from '../../../src/core/replay/serialize';

/** A Claude Code session: per call, [reported prompt (all cache writes), output]; compactions before call indices. */
function claudeCode(
  calls: readonly (readonly [number, number])[],
  compactions: ReadonlyMap<number, { trigger: string; preTokens: number }>,
): string {
  const lines: string[] = [];
  let parent: string | null = null;
  let n = 0;
  const push = (r: Record<string, unknown>): void => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        sessionId: 's-1',
        version: '2.0.14',
        uuid,
        timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
        ...r,
      }),
    );
    parent = uuid;
  };
  push({ type: 'user', message: { role: 'user', content: 'fix the bug' } });
  calls.forEach(([prompt, output], j) => {
    const c = compactions.get(j);
    if (c) {
      push({
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        compactMetadata: { trigger: c.trigger, preTokens: c.preTokens },
      });
      push({ type: 'user', isCompactSummary: true, message: { role: 'user', content: 'Summary: the bug is in totals.' } });
    }
    push({
      type: 'assistant',
      requestId: `req_${j}`,
      message: {
        id: `msg_${j}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-20250514',
        content: [{ type: 'tool_use', id: `toolu_${j}`, name: 'Bash', input: { command: 'ls' } }],
        usage: { input_tokens: 0, cache_creation_input_tokens: prompt, cache_read_input_tokens: 0, output_tokens: output },
      },
    });
    push({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${j}`, content: 'ok' }] } });
  });
  return lines.join('\n') + '\n';
}

async function checks(name: string, text: string): Promise<readonly SourceCompactionCheck[]> {
  const { sessions } = await importSource(stringSource(name, text));
  const r = await replay(sessions[0]!, { policy: 's1' });
  return r.sourceCompactions ?? [];
}

describe('claude-code compactions against the claude-code preset (trigger 167,000 at window 200,000)', () => {
  it('an auto compaction just past the trigger is predicted at its call and explained', async () => {
    // Measures (prompt + output of the call before, + "ok" and the call's few tokens):
    // call 4: 160,000 + 500 = 160,500 (+a few) < 167,000; call 5: 166,800 + 400 = 167,200 (+a few) > 167,000.
    // The agent compacted before call 5 at 167,250: (167,250 − 167,000) / 167,000 = +0.15%.
    const calls: [number, number][] = [
      [130_000, 500],
      [140_000, 500],
      [150_000, 500],
      [160_000, 500],
      [166_800, 400],
      [20_000, 500],
      [21_000, 500],
    ];
    const [c] = await checks('cc.jsonl', claudeCode(calls, new Map([[5, { trigger: 'auto', preTokens: 167_250 }]])));
    expect(c).toMatchObject({
      call: 5,
      predictedCall: 5,
      callError: 0,
      preTokens: 167_250,
      triggerTokens: 167_000,
      window: 200_000,
      hit: true,
    });
    expect(c!.tokensError).toBeCloseTo(250 / 167_000, 6);
    // The measure rebuilt from the log: 167,200 plus the few tokens of the tool result and the summary-free tail.
    expect(c!.measuredTokens!).toBeGreaterThanOrEqual(167_200);
    expect(c!.measuredTokens!).toBeLessThan(167_300);
    expect(c!.predictedTokens).toBe(c!.measuredTokens);
  });

  it('an auto compaction below the trigger names the window that would explain it', async () => {
    // Every measure stays under 167,000 (the largest: 118,000 + 500); the agent compacted at 120,000:
    // (120,000 − 167,000) / 167,000 = −28.1%. A trigger of 120,000 needs window − 33,000 ≥ 120,000
    // (the smaller term of the min): window 153,000.
    const calls: [number, number][] = [
      [100_000, 500],
      [110_000, 500],
      [118_000, 500],
      [15_000, 500],
    ];
    const [c] = await checks('cc.jsonl', claudeCode(calls, new Map([[3, { trigger: 'auto', preTokens: 120_000 }]])));
    expect(c).toMatchObject({ call: 3, predictedCall: null, impliedWindow: 153_000, hit: false });
    expect(c!.tokensError).toBeCloseTo(-47_000 / 167_000, 6);
    expect(c!.reason).toContain('28.1% below the trigger 167,000 at window 200,000');
    expect(c!.reason).toContain('window of 153,000');
  });

  it('a measure past the trigger calls before the compaction says the window is likely larger', async () => {
    // Call 2's measure is 170,000 + 500 = 170,500 > 167,000: predicted at call 2; the agent waited to call 4 (error −2)
    // and compacted at 190,000: 190,000 − 167,000 = +13.8%, but call 3's measure 180,500 > 1.02 × 167,000 = 170,340.
    // A trigger of 190,000 needs window − 33,000 ≥ 190,000: window 223,000.
    const calls: [number, number][] = [
      [150_000, 500],
      [170_000, 500],
      [180_000, 500],
      [189_000, 500],
      [20_000, 500],
    ];
    const [c] = await checks('cc.jsonl', claudeCode(calls, new Map([[4, { trigger: 'auto', preTokens: 190_000 }]])));
    expect(c).toMatchObject({ call: 4, predictedCall: 2, callError: -2, impliedWindow: 223_000, hit: false });
    expect(c!.reason).toContain('window is likely larger');
  });

  it('a manual compaction is never a hit, and the next segment starts after it', async () => {
    // Segment 1 ends with a /compact at 60,000 before call 2. Segment 2 (calls 2..5) starts from the
    // summary: call 5's measure is 166,900 + 200 = 167,100 > 167,000, call 4's 150,000 + 200 = 150,200:
    // predicted at 5 where the agent compacted at 167,150 (+0.09%).
    const calls: [number, number][] = [
      [50_000, 500],
      [59_000, 500],
      [10_000, 200],
      [100_000, 200],
      [150_000, 200],
      [166_900, 200],
      [12_000, 200],
    ];
    const cs = await checks(
      'cc.jsonl',
      claudeCode(
        calls,
        new Map([
          [2, { trigger: 'manual', preTokens: 60_000 }],
          [6, { trigger: 'auto', preTokens: 167_150 }],
        ]),
      ),
    );
    expect(cs.map((c) => [c.call, c.trigger, c.predictedCall, c.hit])).toEqual([
      [2, 'manual', null, false],
      [6, 'auto', 6, true],
    ]);
    expect(cs[0]!.reason).toContain('manual');
  });
});

/** A Codex rollout with a reported window of 100,000; per call [input, output]; a compaction after call indices. */
function codex(calls: readonly (readonly [number, number])[], compactAfter: ReadonlySet<number>): string {
  const ts = (i: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const lines: object[] = [
    { type: 'session_meta', payload: { id: 'c-1', cwd: '/w', cli_version: '0.135.0', model_provider: 'openai' } },
    { type: 'turn_context', payload: { cwd: '/w', model: 'gpt-5' } },
    { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the bug' }] } },
  ];
  calls.forEach(([input, output], j) => {
    lines.push({
      type: 'response_item',
      payload: { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: `call_${j}` },
    });
    const u = {
      input_tokens: input,
      cached_input_tokens: 0,
      output_tokens: output,
      reasoning_output_tokens: 0,
      total_tokens: input + output,
    };
    lines.push({
      type: 'event_msg',
      payload: { type: 'token_count', info: { total_token_usage: u, last_token_usage: u, model_context_window: 100_000 } },
    });
    lines.push({ type: 'response_item', payload: { type: 'function_call_output', call_id: `call_${j}`, output: 'ok' } });
    if (compactAfter.has(j)) lines.push({ type: 'compacted', payload: { message: 'Summary: the bug is in totals.' } });
  });
  return lines.map((l, i) => JSON.stringify({ timestamp: ts(i), ...l })).join('\n') + '\n';
}

describe('codex compactions against the codex preset (trigger 0.9 × 100,000 = 90,000)', () => {
  it('a compaction after the call whose total passes 90,000 is predicted at the call after it', async () => {
    // Totals: call 2 = 80,000 + 1,000 = 81,000 ≤ 90,000; call 3 = 89,500 + 1,000 = 90,500 > 90,000. The
    // compaction follows call 3 and precedes call 4; the token_count before it gives preTokens 90,500:
    // (90,500 − 90,000) / 90,000 = +0.56%. The measure before call 4 is call 3's 90,500: predicted at 4.
    const calls: [number, number][] = [
      [60_000, 1_000],
      [70_000, 1_000],
      [80_000, 1_000],
      [89_500, 1_000],
      [15_000, 1_000],
    ];
    const [c] = await checks('rollout-2026-01-01T00-00-00-c.jsonl', codex(calls, new Set([3])));
    expect(c).toMatchObject({
      preset: 'codex',
      call: 4,
      predictedCall: 4,
      preTokens: 90_500,
      measuredTokens: 90_500,
      triggerTokens: 90_000,
      hit: true,
    });
    expect(c!.tokensError).toBeCloseTo(500 / 90_000, 6);
  });

  it('a compaction far below the trigger is likely a manual /compact', async () => {
    // preTokens 20,500 (call 1: 20,000 + 500) against 90,000: (20,500 − 90,000) / 90,000 = −77.2%; under
    // half the trigger: a /compact (Codex logs both alike). A trigger of 20,500 = 0.9 × window: window 22,778.
    const calls: [number, number][] = [
      [10_000, 500],
      [20_000, 500],
      [5_000, 500],
    ];
    const [c] = await checks('rollout-2026-01-01T00-00-00-c.jsonl', codex(calls, new Set([1])));
    expect(c).toMatchObject({ call: 2, predictedCall: null, preTokens: 20_500, impliedWindow: 22_778, hit: false });
    expect(c!.reason).toContain('77.2% below');
    expect(c!.reason).toContain('manual compaction');
  });
});

describe('replay --json writes sourceCompactions', () => {
  it('the bundled sample: its compaction before call 21 at 180,936 is past a trigger its call 20 had already passed', async () => {
    const path = join(__dirname, '../../../resources/sample/sample-session.jsonl');
    const { sessions } = await importSource(stringSource('sample-session.jsonl', readFileSync(path, 'utf8')));
    const r = await replay(sessions[0]!, { policy: 's1' });
    const [c] = toCliJSON(r).sourceCompactions!;
    // claude-sonnet-4-5 at 200,000: trigger 167,000. (180,936 − 167,000) / 167,000 = +8.3%; the agent's
    // measure before call 20 was already past 1.02 × 167,000, so the formula does not explain it.
    expect(c).toMatchObject({ call: 21, preTokens: 180_936, triggerTokens: 167_000, predictedCall: 20, callError: -1, hit: false });
    // The measure rebuilt from the reported usage is within 2% of what the agent logged.
    expect(Math.abs(c!.measuredTokens! - 180_936) / 180_936).toBeLessThan(0.02);
  });
});

describe('the corpus transcripts that record compactions (test/fixtures/compactions, sources in its README)', () => {
  const DIR = join(__dirname, '../../fixtures/compactions');
  const of = (file: string): Promise<readonly SourceCompactionCheck[]> => checks(file, readFileSync(join(DIR, file), 'utf8'));

  it('Claude Code: an auto compaction at 120,000 before the first call, below the trigger of claude-opus-4 (200,000 → 167,000)', async () => {
    const cs = await of('claude-agentsessions-stage0-small.jsonl');
    // (120,000 − 167,000) / 167,000 = −28.1%; window − 33,000 = 120,000 → window 153,000. The second
    // boundary's trigger and size are trimmed ("[trimmed for fixture]", preTokens 0): no size to check.
    expect(cs.map((c) => [c.call, c.trigger, c.preTokens, c.hit])).toEqual([
      [0, 'auto', 120_000, false],
      [2, 'unknown', null, false],
    ]);
    expect(cs[0]!.impliedWindow).toBe(153_000);
    expect(cs[0]!.reason).toContain('28.1% below');
  });

  it('Codex: the one compaction with a token_count before it (16,422) is far below 0.9 × 258,400', async () => {
    const cs = await of('codex-agentsessions-stage0-small.jsonl');
    // The rollout reports model_context_window 258,400: trigger 0.9 × 258,400 = 232,560.
    // (16,422 − 232,560) / 232,560 = −92.9%: under half the trigger, likely a /compact.
    const sized = cs.filter((c) => c.preTokens !== null);
    expect(sized.map((c) => [c.preTokens, c.triggerTokens, c.hit])).toEqual([[16_422, 232_560, false]]);
    expect(sized[0]!.reason).toContain('92.9% below');
    expect(sized[0]!.reason).toContain('manual compaction');
    expect(cs).toHaveLength(6);
  });
});

describe('the checks made once per session and counts', () => {
  it('a replay under another policy or setting of the same session answers the checks a fresh copy of it gets', async () => {
    // The checks read the session, its counts and its shape, never the replay's config: kept from
    // the first replay (compaction-check.ts), they must be what a fresh session's first replay makes.
    const calls: [number, number][] = [
      [130_000, 500],
      [166_800, 400],
      [20_000, 500],
      [100_000, 500],
      [168_000, 500],
      [10_000, 500],
    ];
    const text = claudeCode(
      calls,
      new Map([
        [2, { trigger: 'auto', preTokens: 167_250 }],
        [5, { trigger: 'manual', preTokens: 168_500 }],
      ]),
    );
    const { sessions } = await importSource(stringSource('cc.jsonl', text));
    const held = sessions[0]!;
    const first = await replay(held, { policy: 's1' });
    const again = await replay(held, { policy: 's1', trigger: 0.5 });
    const other = await replay(held, { policy: 'claude-code' });
    const fresh = (await importSource(stringSource('cc.jsonl', text))).sessions[0]!;
    const want = (await replay(fresh, { policy: 's1', trigger: 0.5 })).sourceCompactions;
    expect(want).toHaveLength(2);
    expect(again.sourceCompactions).toEqual(want);
    expect(first.sourceCompactions).toEqual(want);
    expect(other.sourceCompactions).toEqual(want);
  });
});
