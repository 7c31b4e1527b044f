/**
 * The backgrounds the chart colours are checked against (colors.ts THEME_BACKGROUND,
 * test/unit/renderer/chart-contrast.test.ts) are the ones styles.css paints: `--bg` of the dark
 * scheme and of the light one (prefers-color-scheme).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** colors.ts THEME_BACKGROUND (this project cannot import renderer files; chart-contrast.test.ts pins the same values there). */
const THEME_BACKGROUND = { dark: '#101318', light: '#f8f9fb' };

describe('theme backgrounds', () => {
  it('are --bg of each scheme in styles.css', () => {
    const css = readFileSync(join(__dirname, '../../../src/renderer/src/styles.css'), 'utf8');
    const dark = /:root \{\s*--bg: (#[0-9a-f]{6})/i.exec(css)?.[1];
    const light = /prefers-color-scheme: light\) \{\s*:root \{\s*--bg: (#[0-9a-f]{6})/i.exec(css)?.[1];
    expect({ dark, light }).toEqual(THEME_BACKGROUND);
  });
});
