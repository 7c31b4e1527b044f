/**
 * Compression events kept as columns (compressions.ts): the chart view, compare and a call's
 * detail read the columns and make no event objects, and read from the columns they answer as
 * they do from the events themselves (a result without columns: a plain copy of the same result).
 */
import { describe, expect, it } from 'vitest';
import { chartView } from '../../../src/core/replay/chart-view';
import { compare } from '../../../src/core/replay/compare';
import { replay } from '../../../src/core/replay/index';
import { stepDetail } from '../../../src/core/replay/step-detail';
import type { ReplayResult } from '../../../src/core/replay/types';
import { countWith } from '../../../src/core/tokens/index';
import { codingTurns, session } from '../../helpers/session';
import { compressions, policy } from '../../helpers/replay';

const s = session(codingTurns(60));
const counts = countWith(s, 'chars4');
const small = { tokenizer: 'chars4', window: 16_000, maxOutput: 2_000 } as const;
const CASES = [
  ['openhands-masking', policy('openhands-masking', { ...small, triggerMessages: 20 })],
  ['openhands-recent', policy('openhands-recent', { ...small, triggerMessages: 20 })],
  ['letta', policy('letta', { ...small, trigger: 0.4 })],
  ['s0', policy('s0', { ...small, trigger: 0.4 })],
  ['s3', policy('s3', { ...small, trigger: 0.4 })],
] as const;

const eventsMade = (r: ReplayResult): boolean => Object.getOwnPropertyDescriptor(r, 'events')!.get === undefined;
/** The same result as a plain object without columns (its events read: they are made here). */
const plain = (r: ReplayResult): ReplayResult => ({
  policy: r.policy,
  config: r.config,
  steps: r.steps,
  events: r.events.slice(),
  totals: r.totals,
  retention: r.retention,
});

describe('compression columns', () => {
  for (const [id, config] of CASES) {
    it(`${id}: chart view, compare and step detail read the columns and answer as the events do`, async () => {
      const r = await replay(s, config, { counts });
      expect(r.totals.compressions).toBeGreaterThan(1);
      const view = chartView(r, { key: 'k', buckets: 50 });
      const a = await replay(s, config, { counts });
      const cmp = compare(r, a);
      const detailSteps = [
        ...new Set([0, r.steps.count - 1, ...Array.from({ length: r.steps.count }, (_, i) => i).filter((i) => r.steps.status[i] === 2)]),
      ];
      const options = { key: 'k', perMessage: counts.perMessage };
      const details = detailSteps.map((j) => JSON.stringify(stepDetail(r, s, j, options)));
      // Nothing above made the event objects.
      expect(eventsMade(r)).toBe(false);
      expect(eventsMade(a)).toBe(false);

      const p = plain(r);
      expect(eventsMade(r)).toBe(true);
      // Made once, then a plain property.
      expect(r.events).toBe(r.events);
      expect(compressions(r)).toHaveLength(r.totals.compressions);
      expect(JSON.stringify(chartView(p, { key: 'k', buckets: 50 }))).toBe(JSON.stringify(view));
      expect(JSON.stringify(compare(p, plain(a)))).toBe(JSON.stringify(cmp));
      expect(detailSteps.map((j) => JSON.stringify(stepDetail(p, s, j, options)))).toEqual(details);
      // Events in the order they were recorded: by call.
      for (let q = 1; q < r.events.length; q++) expect(r.events[q]!.step).toBeGreaterThanOrEqual(r.events[q - 1]!.step);
    });
  }

  it('masked ranges and summaries come back on the events', async () => {
    const masking = await replay(s, CASES[0][1], { counts });
    expect(compressions(masking).some((e) => (e.masked?.length ?? 0) > 0)).toBe(true);
    const letta = await replay(s, CASES[2][1], { counts });
    expect(compressions(letta).every((e) => typeof e.summary === 'string' && e.summary.length > 0)).toBe(true);
    // Key order as JSON shows a compression: summary before the note.
    const keys = Object.keys(compressions(letta)[0]!);
    expect(keys.indexOf('summary')).toBeLessThan(keys.indexOf('note'));
    expect(keys.indexOf('kept')).toBeLessThan(keys.indexOf('summary'));
  });
});
