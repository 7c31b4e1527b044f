/**
 * The unlogged overhead of a growing session (src/core/replay/setup.ts carriedUnlogged): past
 * 1,024 reporting calls the line is fitted on the first 1,024 × 2^k of them (core/tokens/calibrate.ts
 * fittedCalls), so the overhead of the session before an append is the grown session's — taken
 * over without fitting again — until the number of calls doubles; across a doubling it is fitted
 * again, and a continued replay is still the full one.
 */
import { describe, expect, it } from 'vitest';
import type { ReplayConfigInput } from '../../../src/core/config';
import type { Message } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { replay, replayToJSON } from '../../../src/core/replay/index';
import { extendReplay, replayLive, resumeRefusal } from '../../../src/core/replay/resume';
import { carriedUnlogged, withUnloggedOverhead } from '../../../src/core/replay/setup';
import { countWith } from '../../../src/core/tokens/index';
import { assistant, session, usage, user } from '../../helpers/session';

/**
 * `n` question/answer pairs; answer k reports a 15,000-token unlogged prompt plus what was sent,
 * ±24 tokens, and `outlier` (call index) reports 3,000 more: wherever the fit reads it, the line moves.
 */
function pairs(n: number, outlier: number): Message[] {
  const msgs: Message[] = [];
  let sent = 0;
  for (let k = 0; k < n; k++) {
    msgs.push(user(`question ${k} ` + 'ab '.repeat(40)));
    sent += 33;
    const noise = k === outlier ? 3_000 : ((k * 7919) % 49) - 24;
    msgs.push(assistant(`answer ${k} ` + 'cd '.repeat(8), { usage: usage(15_000 + sent + noise) }));
    sent += 9;
  }
  return msgs;
}
const counted = (msgs: Message[]) => countWith(session(msgs), 'chars4');
const config: ReplayConfigInput = { ...getPolicy('s2')!.config, window: 10_000_000 };

describe('carriedUnlogged', () => {
  it("takes the fit over while the fitted prefix is the grown session's too, equal to fitting again", () => {
    // 1,100 calls → fitted on the first 1,024 (answers at messages 1, 3, …, 2,047); grown to 1,200,
    // still 1,024 (2,048 > 1,200). The outlier (call 1,150) is past the prefix either way.
    const all = pairs(1_200, 1_150);
    const before = all.slice(0, 2_200);
    const old = withUnloggedOverhead(session(before), counted(before), true);
    expect(old.unlogged).toBeGreaterThan(14_000);
    const carried = carriedUnlogged(old, counted(all), all, 2_199);
    expect(carried).toBeDefined();
    expect(carried!.unlogged).toBe(withUnloggedOverhead(session(all), counted(all), true).unlogged);
  });

  it('fits again once the calls double (2,047 → 2,049: the prefix is 2,048 calls) or when the prefix ends past the replayed calls', () => {
    const all = pairs(2_049, 2_047);
    const before = all.slice(0, 2 * 2_047);
    const old = withUnloggedOverhead(session(before), counted(before), true);
    expect(carriedUnlogged(old, counted(all), all, 2 * 2_047 - 1)).toBeUndefined();
    // The same session, but the run replayed only through message 1,000: the prefix (through message 2,047) is not all replayed.
    const grown = pairs(1_100, -1);
    const first = grown.slice(0, 2_100);
    const held = withUnloggedOverhead(session(first), counted(first), true);
    expect(carriedUnlogged(held, counted(grown), grown, 1_000)).toBeUndefined();
  });

  it('is refused for counts that carry their own overhead (the calibrated tokenizer)', () => {
    const all = pairs(1_100, -1);
    const before = all.slice(0, 2_100);
    const old = withUnloggedOverhead(session(before), counted(before), true);
    expect(carriedUnlogged(old, { ...counted(all), tokenizer: 'calibrated' }, all, 2_099)).toBeUndefined();
  });
});

describe('a live tail across a doubling of the calls', () => {
  it('fits the line again: the continuation is refused (the overhead moved) and the full replay is the fresh one', async () => {
    // 2,047 calls fit the first 1,024; 2,049 fit the first 2,048, which read the outlier (call 2,047).
    const all = pairs(2_049, 2_047);
    const first = session(all.slice(0, 2 * 2_047));
    const grown = session(all);
    const live = (await replayLive(first, config, { counts: counted(all.slice(0, 2 * 2_047)) })).live;
    expect(resumeRefusal(live, grown, { counts: counted(all) })).toMatch(/unlogged/);
    expect(await extendReplay(live, grown, { counts: counted(all) })).toBeUndefined();
  });

  it('continues within a doubling and gives the full replay', async () => {
    const all = pairs(1_310, 1_250);
    const first = session(all.slice(0, 2_400));
    const mid = all.slice(0, 2_600);
    const live = (await replayLive(first, config, { counts: counted(all.slice(0, 2_400)) })).live;
    const got = await extendReplay(live, session(mid), { counts: counted(mid) });
    expect(got).toBeDefined();
    // A second append continues the continued run (its counts carry the fit on).
    const again = await extendReplay(got!.live, session(all), { counts: counted(all) });
    expect(again).toBeDefined();
    expect(replayToJSON(again!.result)).toBe(replayToJSON(await replay(session(pairs(1_310, 1_250)), config)));
  });
});
