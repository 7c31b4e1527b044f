import { describe, expect, it } from 'vitest';
import { ApiError, type CompareView, type MethodInput } from '../../../../src/shared/api';
import { createCompareSlice } from '../../../../src/renderer/src/slices/compare';
import { sliceHarness } from './harness';

const chartFor = { sessionId: 's1', policy: 'p1', overrides: { trigger: 0.5 }, needles: [] };

function compare(answer: (i: MethodInput<'compare'>) => Promise<CompareView> = () => Promise.resolve({} as CompareView)) {
  const sent: MethodInput<'compare'>[] = [];
  const h = sliceHarness(
    {
      compare: (i: MethodInput<'compare'>) => {
        sent.push(i);
        return answer(i);
      },
    },
    { currentId: 's1', chartFor },
  );
  h.install(createCompareSlice(h.ctx));
  return { ...h, sent };
}

describe('compare slice', () => {
  it("compares the chart's replay (A) with the chosen policy (B), both with the user's overrides", async () => {
    const h = compare();
    await h.state().setComparePolicy('p3');
    expect(h.sent[0]).toEqual({
      sessionId: 's1',
      a: { policy: 'p1', overrides: { trigger: 0.5 } },
      b: { policy: 'p3', overrides: { trigger: 0.5 } },
      minDelta: 0,
    });
    expect(h.state().comparison).toEqual({});
  });

  it('B goes without the overrides once unticked; the minimum difference is a whole number of tokens, not below 0', async () => {
    const h = compare();
    await h.state().setComparePolicy('p3');
    await h.state().setCompareWithOverrides(false);
    expect(h.sent[1]!.b).toEqual({ policy: 'p3', overrides: {} });
    await h.state().setMinDelta(12.6);
    expect(h.sent[2]!.minDelta).toBe(13);
    await h.state().setMinDelta(-5);
    expect(h.state().minDelta).toBe(0);
  });

  it('no policy to compare with: no request, no comparison', async () => {
    const h = compare();
    await h.state().setComparePolicy('p3');
    await h.state().setComparePolicy(null);
    expect(h.sent).toHaveLength(1);
    expect(h.state().comparison).toBeNull();
  });

  it("a failure clears the comparison and says why on the window's error line", async () => {
    const h = compare(() => Promise.reject(new ApiError('not_found', 'no policy p9')));
    await h.state().setComparePolicy('p9');
    expect(h.state().comparison).toBeNull();
    expect(h.state().error).toBe('no policy p9');
  });
});
