import { describe, expect, it } from 'vitest';
import { createPlaybackSlice } from '../../../../src/renderer/src/slices/playback';
import { chartView } from '../fake-client';
import { sliceHarness } from './harness';

/** Playback over a 4-call chart, with stepBy moving the selection as the selection slice does. */
function playing(selectedStep: number | null) {
  const h = sliceHarness({}, { chart: chartView('k', 4), selectedStep });
  h.install({ stepBy: (d: number) => h.ctx.set({ selectedStep: (h.state().selectedStep ?? -1) + d }) });
  const slice = h.install(createPlaybackSlice(h.ctx));
  return { ...h, slice };
}

describe('playback slice', () => {
  it('steps one call per tick, 1000 / speed ms apart, and stops on the last call', () => {
    const h = playing(1);
    h.state().togglePlay();
    expect(h.state().playing).toBe(true);
    expect(h.timers[0]!.ms).toBe(100); // 10 calls per second by default
    h.runTimers();
    expect(h.state().selectedStep).toBe(2);
    h.runTimers();
    expect(h.state().selectedStep).toBe(3);
    h.runTimers();
    expect(h.state().selectedStep).toBe(3);
    expect(h.state().playing).toBe(false);
    expect(h.timers).toHaveLength(0);
  });

  it('a second toggle stops it and clears its timer', () => {
    const h = playing(0);
    h.state().togglePlay();
    h.state().togglePlay();
    expect(h.state().playing).toBe(false);
    expect(h.timers).toHaveLength(0);
  });

  it('keeps the speed between 1 and 200 calls per second', () => {
    const h = playing(0);
    h.state().setSpeed(0);
    expect(h.state().speed).toBe(1);
    h.state().setSpeed(1000);
    expect(h.state().speed).toBe(200);
    h.state().setSpeed(25);
    h.state().togglePlay();
    expect(h.timers[0]!.ms).toBe(40); // 1000 / 25
  });
});
