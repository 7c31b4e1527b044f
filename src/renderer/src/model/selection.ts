/**
 * Pure helpers around the one selected call: which call a message belongs to, what a message
 * is at the selected call, and where the next compression is. No DOM, no store: unit-tested.
 */
import type { ChartMarker, MessageState } from '../../../shared/api';

/** Index of the first value ≥ target in a sorted array (its length when none is). */
export function lowerBound(sorted: readonly number[], target: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The call at or after message `index` (the call that first sees it); the last call when the
 * message comes after every call. `stepMessages` is SessionDetail.steps (ascending).
 */
export function stepAtOrAfter(stepMessages: readonly number[], index: number, stepCount = stepMessages.length): number | null {
  const last = Math.min(stepCount, stepMessages.length) - 1;
  if (last < 0) return null;
  return Math.min(lowerBound(stepMessages, index), last);
}

/** The state of message `index` at the selected call, from StepDetail.messageStates (run-length, sorted). */
export function messageStateAt(runs: readonly (readonly [number, number, MessageState])[], index: number): MessageState | null {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const run = runs[mid] as readonly [number, number, MessageState];
    if (index < run[0]) hi = mid - 1;
    else if (index > run[1]) lo = mid + 1;
    else return run[2];
  }
  return null;
}

/** Marker steps of the compressions (any path), ascending and unique. */
export function compressionSteps(markers: readonly ChartMarker[]): number[] {
  const steps = markers.filter((m) => m.kind === 'compression').map((m) => m.step);
  return [...new Set(steps)].sort((a, b) => a - b);
}

/** The next (dir 1) or previous (dir -1) compression from `from`; null when there is none that way. */
export function nextCompression(steps: readonly number[], from: number, dir: 1 | -1): number | null {
  if (dir === 1) {
    const i = lowerBound(steps, from + 1);
    return i < steps.length ? (steps[i] as number) : null;
  }
  const i = lowerBound(steps, from) - 1;
  return i >= 0 ? (steps[i] as number) : null;
}

export const clampStep = (step: number, stepCount: number): number => Math.max(0, Math.min(stepCount - 1, Math.round(step)));
