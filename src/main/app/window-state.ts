/**
 * Where the window opens: the remembered bounds when they still fall on a display (a monitor
 * may have been unplugged since), else the default size centred by the OS.
 */
import type { WindowBounds } from './prefs';

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export const DEFAULT_SIZE = { width: 1440, height: 900 } as const;
export const MIN_SIZE = { width: 960, height: 600 } as const;
/** How much of the title bar must be on a display for the window to be reachable. */
const REACHABLE = 64;

function overlaps(a: Rect, b: Rect): boolean {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + REACHABLE, b.y + b.height) - Math.max(a.y, b.y);
  return w >= REACHABLE && h > 0;
}

export interface InitialBounds {
  readonly width: number;
  readonly height: number;
  readonly x?: number;
  readonly y?: number;
  readonly maximized: boolean;
}

export function initialBounds(saved: WindowBounds | undefined, workAreas: readonly Rect[]): InitialBounds {
  if (!saved) return { ...DEFAULT_SIZE, maximized: false };
  const width = Math.max(MIN_SIZE.width, saved.width);
  const height = Math.max(MIN_SIZE.height, saved.height);
  if (saved.x === undefined || saved.y === undefined) return { width, height, maximized: saved.maximized };
  const rect = { x: saved.x, y: saved.y, width, height };
  if (!workAreas.some((area) => overlaps(rect, area))) return { width, height, maximized: saved.maximized };
  return { ...rect, maximized: saved.maximized };
}

/** What to remember of a window: its normal (not maximized) bounds and whether it was maximized. */
export function boundsToSave(normal: Rect, maximized: boolean): WindowBounds {
  return {
    x: Math.round(normal.x),
    y: Math.round(normal.y),
    width: Math.round(normal.width),
    height: Math.round(normal.height),
    maximized,
  };
}
