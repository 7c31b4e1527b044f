/** The Events tab's "real vs predicted compactions" rows (src/renderer/src/model/compaction-rows.ts). */
import { describe, expect, it } from 'vitest';
import { compactionRows, compactionSummary } from '../../../src/renderer/src/model/compaction-rows';
import type { SourceCompactionCheck } from '../../../src/core/replay/types';

const base: SourceCompactionCheck = {
  call: 21,
  trigger: 'auto',
  preset: 'claude-code',
  preTokens: 180_936,
  measuredTokens: 180_972,
  triggerTokens: 167_000,
  window: 200_000,
  windowSource: 'model',
  predictedCall: 20,
  predictedTokens: 180_868,
  callError: -1,
  // (180,936 − 167,000) / 167,000
  tokensError: 13_936 / 167_000,
  impliedWindow: 213_936,
  hit: false,
  reason: 'the agent’s measure passed the trigger before call 20',
};

describe('compaction rows', () => {
  it('a miss says how far off, in calls and in tokens', () => {
    const [r] = compactionRows([base]);
    expect(r).toMatchObject({
      call: 21,
      preTokens: '180,936',
      predicted: '#20 (180,868)',
      formula: '167,000 at 200,000 (model)',
      verdict: '1 call early, 8.3% past the trigger',
      hit: false,
    });
  });

  it('a hit, a manual compaction and one without a size', () => {
    const rows = compactionRows([
      { ...base, hit: true, callError: 0, predictedCall: 21 },
      { ...base, trigger: 'manual', predictedCall: null, predictedTokens: null, callError: null },
      { ...base, preTokens: null, tokensError: null, predictedCall: null, predictedTokens: null, callError: null },
    ]);
    expect(rows.map((r) => [r.verdict, r.preTokens, r.predicted])).toEqual([
      ['hit', '180,936', '#21 (180,868)'],
      ['manual', '180,936', 'none up to #21'],
      ['not predicted', '—', 'none up to #21'],
    ]);
    // Of the three, two are sized auto compactions (the manual one is not counted); one is a hit.
    expect(compactionSummary([{ ...base, hit: true }, { ...base, trigger: 'manual' }, base])).toBe(
      '1 of 2 sized auto compactions predicted by the claude-code preset (±1 call, trigger within 2%)',
    );
  });
});
