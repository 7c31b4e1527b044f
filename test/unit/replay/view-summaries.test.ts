/**
 * Summary texts travel only in a call's detail: the view and compare answers (what a slider move
 * or a comparison ships through JSON) hold none, the detail of a compression holds its summary.
 */
import { describe, expect, it } from 'vitest';
import { replay, toView } from '../../../src/core/replay/index';
import { stepDetail } from '../../../src/core/replay/step-detail';
import { countWith } from '../../../src/core/tokens/index';
import { ReplayService, type ReplayInputs } from '../../../src/main/host/replays';
import { getPolicy } from '../../../src/core/policies/index';
import { codingTurns, session } from '../../helpers/session';
import { compressions, policy } from '../../helpers/replay';

describe('summary texts', () => {
  const s = session(codingTurns(60));
  const config = policy('letta', { tokenizer: 'chars4', window: 16_000, maxOutput: 2_000, trigger: 0.5 });

  it('are left out of the view and kept in the result and in the detail of their call', async () => {
    const r = await replay(s, config, { counts: countWith(s, 'chars4') });
    const cs = compressions(r);
    expect(cs.length).toBeGreaterThan(2);
    expect(cs.every((c) => typeof c.summary === 'string' && c.summary.length > 0)).toBe(true);
    const view = toView(r);
    const viewCompressions = view.events.filter((e) => e.kind === 'compression');
    expect(viewCompressions).toHaveLength(cs.length);
    for (const e of viewCompressions) expect('summary' in e).toBe(false);
    expect(JSON.stringify(view)).not.toContain(cs[0]!.summary!);
    const last = cs[cs.length - 1]!;
    expect(stepDetail(r, s, last.step, { key: 'k', perMessage: countWith(s, 'chars4').perMessage }).compression?.summary).toBe(
      last.summary,
    );
  });

  it("are left out of a comparison (both views and B's compressions)", async () => {
    const service = new ReplayService({ session: () => s });
    const inputs = (trigger: number): ReplayInputs => ({
      sessionId: 's',
      policy: { id: 'letta', config: getPolicy('letta')!.config },
      overrides: { tokenizer: 'chars4', window: 16_000, maxOutput: 2_000, trigger },
      needles: [],
      pins: [],
    });
    const c = await service.compare(inputs(0.5), inputs(0.6), { minDelta: 0 });
    expect(c.bCompressions.length).toBeGreaterThan(0);
    const b = await service.result(inputs(0.6));
    const text = compressions(b).at(-1)!.summary!;
    expect(text.length).toBeGreaterThan(0);
    expect(JSON.stringify(c)).not.toContain(text);
  });
});
