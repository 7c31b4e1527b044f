/**
 * docs/policies.md §S0, path 3 (emergency): it fires when the provider would have answered with a
 * context-window error although the estimate fit. The true size starts from the size the provider
 * reported for that very call (none where it reported none); across a compaction of the agent's
 * own (aider's `/clear`) no ratio is scaled — the replay's extra history is added as estimated.
 *
 * The fixture (test/fixtures/aider-clear) is an aider history on gpt-4o: a 100-character prompt and
 * a 2,000-character answer ("5.3k sent"), `/clear`, a 20-character prompt and a 40-character answer
 * ("5.1k sent"), `/clear`, two more such exchanges, the second without a token line.
 * runes2.5: 100 characters → 40 + 4 = 44 tokens; 2,000 → 800 + 4 = 804; 20 → 8 + 4 = 12; 40 → 16 + 4 = 20.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import type { Session } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import { compressions, policy, reasonAt } from '../../helpers/replay';

const FIXTURE = join(__dirname, '../../fixtures/aider-clear/aider-clear.chat.history.md');
/** The unlogged system & tools region, the same at every call (checked), as a number. */
function unlogged(r: Awaited<ReturnType<typeof replay>>): number {
  const per = Array.from(r.steps.regions.unlogged);
  expect(new Set(per).size).toBe(1);
  return per[0]!;
}
const load = async (): Promise<Session> =>
  (await importSource(stringSource('aider-clear.chat.history.md', readFileSync(FIXTURE, 'utf8')))).sessions[0]!;

describe('S0 emergency path on an aider history with /clear', () => {
  it('the fixture is what the arithmetic below assumes', async () => {
    const s = await load();
    expect(s.model).toBe('gpt-4o');
    expect(s.messages.map((m) => (m.parts[0]!.kind === 'text' ? m.parts[0]!.text.length : -1))).toEqual([
      100, 2_000, 20, 40, 20, 40, 20, 40,
    ]);
    // Two /clear: the agent's window restarts at messages 2 and 4.
    expect(s.sourceCompactions.map((c) => c.atMessage)).toEqual([2, 4]);
    expect(s.messages.map((m) => m.usage?.input)).toEqual([undefined, 5_300, undefined, 5_100, undefined, 5_200, undefined, undefined]);
  });

  it('no phantom compression after a /clear: the true size is the reported size plus what the replay holds beyond it', async () => {
    const r = await replay(await load(), policy('s0'));
    // gpt-4o: window 128,000. Call 1 (message 3): the replay kept everything, 44 + 804 + 12 = 860; the agent's
    // window since its /clear is message 2 alone, 12. True size 5,100 + (860 − 12) = 5,948 ≤ 128,000.
    // (Scaled by 5,100 / 12 it would be 860 × 425 = 365,500 > 128,000: a phantom overflow.)
    // Call 2 (message 5): 860 + 20 + 12 = 892; the agent's window is message 4, 12: 5,200 + 880 = 6,080.
    // Call 3 (message 7) reports nothing: no true size, nothing to fire on.
    expect(compressions(r)).toEqual([]);
    // Every policy also counts the transcript's unlogged system & tools (docs/user-guide.md,
    // Statuses): one constant region U at every call, on top of the history derived above.
    const u = unlogged(r);
    expect(Array.from(r.steps.total).map((t) => t - u)).toEqual([44, 860, 892, 924]);
  });

  it('a real overflow after a /clear still fires, and the reason says how the true size was made', async () => {
    const r = await replay(await load(), policy('s0', { window: 5_900 }));
    // Window 5,900: maxOutput floor(5,900 / 4) = 1,475, limit 4,425. Call 0: no compaction yet, 5,300 × 44 / 44
    // = 5,300 ≤ 5,900. Call 1: 5,948 (above) > 5,900 while the estimate 860 ≤ 4,425 — the provider counted
    // 5,100 for the agent's 12 tokens, and the replay sends 848 more.
    const [first, ...rest] = compressions(r);
    expect(rest).toEqual([]);
    const u = unlogged(r);
    expect(first).toMatchObject({ step: 1, path: 'emergency', strategy: 'drop-oldest-50%', tokensBefore: 860 + u });
    // Two turns in the window (starting at messages 0 and 2): the oldest one goes; the note
    // "[Context overflow: 1 earlier turns were dropped.]" (49 runes → 19) + message 2 (12) = 31 after.
    expect(first!.dropped).toEqual([[0, 1]]);
    // The unlogged region is in both the replay's request and the agent's window: the true size is unchanged by it.
    const n = (x: number): string => x.toLocaleString('en-US');
    expect(reasonAt(r, 1)).toBe(
      `emergency: true size 5,948 (reported 5,100 + 848 estimated beyond the agent’s window since its compaction) > window 5,900 though the estimate ${n(860 + u)} fit; dropped the oldest 1 of 2 turns (${n(860 + u)} before → ${n(31 + u)} after)`,
    );
    // Call 2: 5,200 + (19 + 12 + 20 + 12 − 12) = 5,251 ≤ 5,900: no second compression.
    expect(r.steps.total[2]! - u).toBe(63);
  });
});
