/**
 * The colour scheme the page shows: styles.css follows prefers-color-scheme, and the chart's
 * canvas, marker layer, legend and exports draw with that scheme's palette (colors.ts PALETTE).
 */
import { useSyncExternalStore } from 'react';
import type { Theme } from './colors';

let lightQuery: MediaQueryList | null = null;

/** The scheme now (dark where the browser cannot tell). */
export function themeNow(): Theme {
  lightQuery ??= typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: light)') : null;
  return lightQuery?.matches ? 'light' : 'dark';
}

function onThemeChange(changed: () => void): () => void {
  themeNow();
  lightQuery?.addEventListener('change', changed);
  return () => lightQuery?.removeEventListener('change', changed);
}

/** The scheme now, re-rendering when the system switches it. */
export function useTheme(): Theme {
  return useSyncExternalStore(onThemeChange, themeNow, () => 'dark');
}
