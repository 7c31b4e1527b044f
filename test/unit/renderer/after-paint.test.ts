/** afterPaint: after the next frame, once — or after a timeout when no frame comes (a hidden page). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { afterPaint, afterPaintIdle } from '../../../src/renderer/src/after-paint';

const g = globalThis as { requestAnimationFrame?: unknown };
let frames: (() => void)[] = [];
beforeEach(() => {
  vi.useFakeTimers();
  frames = [];
  g.requestAnimationFrame = (fn: () => void) => frames.push(fn);
});
afterEach(() => {
  vi.useRealTimers();
  delete g.requestAnimationFrame;
});

describe('afterPaint', () => {
  it('runs after the frame is drawn, and only once when the fallback timeout fires too', () => {
    const fn = vi.fn();
    afterPaint(fn, 100);
    vi.advanceTimersByTime(50);
    expect(fn).not.toHaveBeenCalled();
    for (const f of frames.splice(0)) f();
    // The frame's callback queues a timeout: the paint happens between the two.
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(100);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('runs after the fallback timeout when no frame is drawn', () => {
    const fn = vi.fn();
    afterPaint(fn, 100);
    vi.advanceTimersByTime(99);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('runs at once where nothing draws frames', () => {
    delete g.requestAnimationFrame;
    const fn = vi.fn();
    afterPaint(fn);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

describe('afterPaintIdle', () => {
  const gi = globalThis as { requestIdleCallback?: unknown };
  afterEach(() => {
    delete gi.requestIdleCallback;
  });

  it('waits for the frame, then for the page to be idle (with the timeout it gives the browser)', () => {
    const idle: { fn: () => void; timeout: number | undefined }[] = [];
    gi.requestIdleCallback = (fn: () => void, o?: { timeout?: number }) => idle.push({ fn, timeout: o?.timeout });
    const fn = vi.fn();
    afterPaintIdle(fn, 250);
    expect(idle).toHaveLength(0);
    for (const f of frames.splice(0)) f();
    vi.advanceTimersByTime(0);
    expect(fn).not.toHaveBeenCalled();
    expect(idle).toEqual([{ fn: expect.any(Function) as unknown, timeout: 250 }]);
    idle[0]!.fn();
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('runs after the paint where the browser has no idle callbacks', () => {
    const fn = vi.fn();
    afterPaintIdle(fn);
    for (const f of frames.splice(0)) f();
    vi.advanceTimersByTime(0);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
