/**
 * The line a person reads for each chart marker, written by the renderer from the marker's numbers.
 * The markers and expected lines are taken from real chart views of a 10,000-call Claude Code
 * session (letta trigger 0.4, openhands-masking, s1, s3, s4): the expected strings are what the core
 * wrote into each marker before markers carried numbers instead of prose, so the hover card, the
 * guard reason and the event list read exactly as they did.
 */
import { describe, expect, it } from 'vitest';
import { markerLabel } from '../../../src/renderer/src/model/marker-label';
import type { ChartMarker } from '../../../src/shared/api';

const cases: [ChartMarker, string][] = [
  [
    { step: 244, kind: 'compression', path: 'proactive', strategy: 'summarize', tokensBefore: 115233, tokensAfter: 107512 },
    'proactive compression (summarize): 115,233 → 107,512 tokens',
  ],
  [
    { step: 26, kind: 'compression', path: 'async', strategy: 'summarize', tokensBefore: 16217, tokensAfter: 5357 },
    'async compression (summarize): 16,217 → 5,357 tokens',
  ],
  [
    {
      step: 51,
      kind: 'compression',
      path: 'proactive',
      strategy: 'observation-masking',
      tokensBefore: 38864,
      tokensAfter: 38594,
      until: 68,
      lastTokensBefore: 39528,
      lastTokensAfter: 39187,
    },
    'proactive compression (observation-masking) at every call 51–68: 38,864 → 38,594 tokens first, 39,528 → 39,187 last',
  ],
  [
    {
      step: 51,
      kind: 'compression',
      path: 'proactive',
      strategy: 'primers-recents',
      tokensBefore: 38864,
      tokensAfter: 38555,
      until: 9999,
      lastTokensBefore: 35527,
      lastTokensAfter: 35291,
    },
    'proactive compression (primers-recents) at every call 51–9999: 38,864 → 38,555 tokens first, 35,527 → 35,291 last',
  ],
  [{ step: 365, kind: 'source-compaction', trigger: 'auto', tokensBefore: 167212 }, 'the original agent compacted (auto): 167,212 tokens'],
  [
    { step: 40, kind: 'source-compaction', trigger: 'manual', tokensBefore: 90000, tokensAfter: 12345 },
    'the original agent compacted (manual): 90,000 → 12,345 tokens',
  ],
  [{ step: 40, kind: 'source-compaction', trigger: 'auto' }, 'the original agent compacted (auto)'],
  // The size after alone is not shown: "→ 12,345" with nothing before it says nothing.
  [{ step: 40, kind: 'source-compaction', trigger: 'auto', tokensAfter: 12345 }, 'the original agent compacted (auto)'],
  [
    {
      step: 154,
      kind: 'warn',
      reason:
        'context window at 40% capacity (80,631/200,000 tokens): over the trigger 80,000 with nothing left to compress outside the protected messages',
      until: 243,
    },
    'context window at 40% capacity (80,631/200,000 tokens): over the trigger 80,000 with nothing left to compress outside the protected messages (calls 154–243)',
  ],
  [{ step: 3998, kind: 'warn', reason: 'request 200,098 > limit 200,000 (window)' }, 'request 200,098 > limit 200,000 (window)'],
  [
    { step: 30, kind: 'warn', reason: 'task tokens budget at 82% (245,795 of 300,000)', until: 32 },
    'task tokens budget at 82% (245,795 of 300,000) (calls 30–32)',
  ],
  [
    { step: 74, kind: 'abort', reason: 'session tokens budget exceeded (1,026,666 of 1,000,000): run aborted', until: 9999 },
    'session tokens budget exceeded (1,026,666 of 1,000,000): run aborted (the 9,925 later calls would not have happened)',
  ],
  [
    {
      step: 276,
      kind: 'final',
      reason: 'tool output 229 tokens > 205 left under the limit 141,808: final turn, tools restricted to final_report',
      until: 9999,
    },
    'tool output 229 tokens > 205 left under the limit 141,808: final turn, tools restricted to final_report (the 9,723 later calls would not have happened)',
  ],
  [{ step: 9, kind: 'final', reason: 'forced final' }, 'forced final'],
  // No reason from the guard: the status names itself.
  [{ step: 12, kind: 'skip', reason: '' }, 'skip'],
  [{ step: 12, kind: 'skip', reason: '', until: 14 }, 'skip (calls 12–14)'],
];

describe('markerLabel', () => {
  it.each(cases)('writes the line of %j', (marker, expected) => {
    expect(markerLabel(marker)).toBe(expected);
  });
});
