/**
 * The playback slice: Play steps the selection on by one call at `speed` calls per second until
 * the last call (or until stopped; opening another session stops it).
 */
import type { PlaybackSlice, SliceContext } from './state';

export function createPlaybackSlice({ set, get, timers }: SliceContext): PlaybackSlice {
  let playTimer: unknown = null;
  const stop = (): void => {
    if (playTimer !== null) timers.clearTimer(playTimer);
    playTimer = null;
    if (get().playing) set({ playing: false });
  };
  return {
    playing: false,
    speed: 10,

    togglePlay() {
      if (get().playing) return stop();
      const tick = (): void => {
        const { chart, selectedStep, playing } = get();
        if (!playing || !chart) return stop();
        if ((selectedStep ?? -1) >= chart.stepCount - 1) return stop();
        get().stepBy(1);
        playTimer = timers.setTimer(tick, 1000 / get().speed);
      };
      set({ playing: true });
      playTimer = timers.setTimer(tick, 1000 / get().speed);
    },

    setSpeed(callsPerSecond) {
      set({ speed: Math.max(1, Math.min(200, callsPerSecond)) });
    },
  };
}
