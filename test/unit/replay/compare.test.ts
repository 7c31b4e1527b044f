/** compare(a, b) and replayToJSON: two configs on one session, and byte-identical output. */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { compare, comparisonToJSON, replay, replayToJSON } from '../../../src/core/replay/index';
import { assistant, session, user } from '../../helpers/session';

const words = (tokens: number, tag = 'x'): string => (tag + ' ').repeat(tokens * 2).slice(0, tokens * 4);
function chat(turns: number): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) out.push(user(words(100, `u${t}`)), assistant(words(100, `a${t}`)));
  return out;
}
const base = {
  tokenizer: 'chars4',
  window: 4_000,
  maxOutput: 500,
  buffer: 0,
  summarizer: 'none' as const,
  pipeline: ['drop-oldest' as const],
  target: 0.5,
};

describe('compare', () => {
  it('puts totals side by side and lists the steps that differ', async () => {
    const s = session(chat(20));
    const a = await replay(s, { ...base, policy: 'early', trigger: 0.5 });
    const b = await replay(s, { ...base, policy: 'late', trigger: 0.75 });
    const c = compare(a, b);
    expect(c.policies).toEqual(['early', 'late']);
    // 50% of 4,000: first over at 21 messages (2,100), step 10; 75%: 31 messages, step 15.
    expect(c.compressions.a[0]).toBe(10);
    expect(c.compressions.b[0]).toBe(15);
    expect(c.firstDifference).toBe(10);
    expect(c.differences[0]).toMatchObject({ step: 10, messageIndex: 21, a: { status: 'compress' }, b: { status: 'ok', total: 2_100 } });
    for (let i = 0; i < 10; i++) expect(c.totalDelta[i]).toBe(0);
    expect(c.totalDelta[10]).toBe(b.steps.total[10]! - a.steps.total[10]!);
    expect(c.totals.compressions).toEqual({
      a: a.totals.compressions,
      b: b.totals.compressions,
      delta: b.totals.compressions - a.totals.compressions,
      ratio: (b.totals.compressions - a.totals.compressions) / a.totals.compressions,
    });
    expect(c.totals.billedInputTokens.delta).toBeGreaterThan(0); // compacting later bills more input
  });

  it('serializes to plain JSON', async () => {
    const s = session(chat(12));
    const c = compare(await replay(s, { ...base, trigger: 0.5 }), await replay(s, { ...base, trigger: 0.8 }));
    const j = JSON.parse(JSON.stringify(comparisonToJSON(c))) as { totalDelta: number[]; firstDifference: number };
    expect(j.totalDelta).toEqual(Array.from(c.totalDelta));
    expect(j.firstDifference).toBe(c.firstDifference);
  });

  it('a replay compared with itself has no differences', async () => {
    const r = await replay(session(chat(12)), { ...base, trigger: 0.5 });
    const c = compare(r, r);
    expect(c.differences).toEqual([]);
    expect(c.firstDifference).toBe(-1);
  });

  it('refuses replays of different sessions', async () => {
    const [a, b] = [await replay(session(chat(3)), base), await replay(session(chat(4)), base)];
    expect(() => compare(a, b)).toThrow(/3 and 4 steps/);
  });
});

describe('replayToJSON', () => {
  it('is byte-identical across runs for every policy, and parses back', async () => {
    const s = session(chat(30));
    for (const p of ['s0', 's1', 's2', 's3', 's4', 'claude-code', 'codex', 'openhands-summary', 'letta']) {
      const cfg = { ...getPolicy(p)!.config, tokenizer: 'chars4', window: 4_000 };
      const x = replayToJSON(await replay(s, cfg));
      const y = replayToJSON(await replay(s, cfg));
      expect(x).toBe(y);
      const parsed = JSON.parse(x) as { steps: unknown[]; policy: string };
      expect(parsed.policy).toBe(p);
      expect(parsed.steps).toHaveLength(30);
    }
  });
});
