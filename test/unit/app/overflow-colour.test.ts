/**
 * The overflow status is a failure a person must see on either theme: its colour keeps a contrast
 * of at least 3:1 (WCAG's floor for graphics) against both themes' backgrounds and panels, which
 * are read from styles.css so a theme change re-checks it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const css = readFileSync(join(__dirname, '../../../src/renderer/src/styles.css'), 'utf8');
/** STATUS_COLOR of src/renderer/src/colors.ts, read as text (that file belongs to the web build). */
const colours = readFileSync(join(__dirname, '../../../src/renderer/src/colors.ts'), 'utf8');
const statusBlock = /STATUS_COLOR[^{]*\{([^}]*)\}/.exec(colours)![1]!;
const STATUS_COLOR = Object.fromEntries([...statusBlock.matchAll(/(\w+): '([^']+)'/g)].map((m) => [m[1]!, m[2]!])) as Record<
  string,
  string
>;
/** --bg and --panel of the dark :root (first) and the light one (second). */
const themeColours = (name: string): string[] =>
  [...css.matchAll(new RegExp(`--${name}: (#[0-9a-f]{6})`, 'gi'))].map((m) => m[1]!).slice(0, 2);

const luminance = (hex: string): number => {
  const [r, g, b] = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};
const contrast = (a: string, b: string): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};

describe('overflow colour', () => {
  it('keeps 3:1 against both themes', () => {
    const backgrounds = [...themeColours('bg'), ...themeColours('panel')];
    expect(backgrounds).toHaveLength(4);
    for (const bg of backgrounds)
      expect(contrast(STATUS_COLOR.overflow!, bg), `${STATUS_COLOR.overflow!} on ${bg}`).toBeGreaterThanOrEqual(3);
  });
  it('is its own colour, apart from the other statuses', () => {
    const others = Object.entries(STATUS_COLOR)
      .filter(([k]) => k !== 'overflow')
      .map(([, v]) => v.toLowerCase());
    expect(others).not.toContain(STATUS_COLOR.overflow!.toLowerCase());
  });
});
