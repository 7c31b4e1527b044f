/**
 * The chart in both colour schemes (the page follows prefers-color-scheme): in each, the
 * reported-prompt dots are on the canvas in their palette colour, and that colour, the agent's
 * compaction markers and the window line stand at least 3:1 against the page's background (WCAG
 * 2.x contrast ratio, as test/unit/renderer/chart-contrast.test.ts derives it); the SVG export's
 * legend swatches are filled and stroked with the very colours of the marks they name.
 * Screenshots of the chart in each scheme go to test-results/ (or E2E_SHOTS) to look at.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const shots = process.env.E2E_SHOTS || join(root, 'test-results');

/** WCAG 2.x relative luminance of `#rrggbb` or `rgb(r, g, b)`. */
function luminance(color) {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  const rgb = hex ? hex.slice(1).map((h) => parseInt(h, 16)) : /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(color)?.slice(1).map(Number);
  if (!rgb) throw new Error(`not a colour: ${color}`);
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const hexRgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

async function inScheme(browser, url, scheme, assert) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1440, height: 900 }, colorScheme: scheme });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.getByTestId('replay-totals').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="region-bars"] canvas').waitFor({ timeout: 30_000 });
    // The page's own background, as the browser computes it.
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: light)').matches), scheme === 'light');

    // The SVG export of this scheme: marks and their legend swatches.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-chart-svg').click()]);
    const xml = await readFile(await download.path(), 'utf8');
    const svg = await page.evaluate((x) => {
      const doc = new DOMParser().parseFromString(x, 'image/svg+xml');
      const legend = (label) => doc.querySelector(`g.legend-item[data-label="${label}"]`);
      const swatch = (label) => {
        const m = legend(label)?.querySelector('rect, path');
        return m ? { fill: m.getAttribute('fill'), stroke: m.getAttribute('stroke') } : null;
      };
      return {
        background: doc.querySelector('svg > rect')?.getAttribute('fill'),
        reported: doc.querySelector('path.reported')?.getAttribute('fill'),
        source: doc.querySelector('path[data-marker="source"]')?.getAttribute('stroke'),
        window: doc.querySelector('path[data-line="window"]')?.getAttribute('stroke'),
        history: doc.querySelector('path[data-region="history"]')?.getAttribute('fill'),
        legendReported: swatch('reported prompt'),
        legendSource: swatch('agent compacted'),
        legendWindow: swatch('window'),
        legendHistory: swatch('history'),
      };
    }, xml);
    assert.ok(svg.reported, 'the sample has reported prompt sizes: the SVG draws their dots');
    assert.ok(svg.source, "the sample has the agent's compactions: the SVG draws their markers");
    assert.equal(svg.legendReported?.fill, svg.reported, "the reported-prompt swatch is filled with the dots' colour");
    assert.equal(svg.legendSource?.stroke, svg.source, "the agent-compacted swatch is the markers' colour");
    assert.equal(svg.legendWindow?.stroke, svg.window);
    assert.equal(svg.legendHistory?.fill, svg.history);
    for (const [name, color] of Object.entries({ reported: svg.reported, source: svg.source, window: svg.window })) {
      const ratio = contrast(color, svg.background);
      assert.ok(ratio >= 3, `${scheme}: ${name} ${color} on the SVG's ${svg.background} is ${ratio.toFixed(2)}:1, under 3:1`);
      const onPage = contrast(color, background);
      assert.ok(onPage >= 3, `${scheme}: ${name} ${color} on the page's ${background} is ${onPage.toFixed(2)}:1, under 3:1`);
    }

    // The canvas: pixels exactly of the dots' colour are there (the dots are drawn in it), and
    // the marker layer strokes the agent's compactions in the SVG's colour.
    const [r, g, b] = hexRgb(svg.reported);
    const dots = await page.locator('[data-testid="region-bars"] canvas').evaluate(
      (c, rgb) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] === rgb[0] && d[i + 1] === rgb[1] && d[i + 2] === rgb[2] && d[i + 3] === 255) n++;
        return n;
      },
      [r, g, b],
    );
    assert.ok(dots >= 4, `${scheme}: the canvas holds reported-prompt dots in ${svg.reported} (${dots} pixels)`);
    const layerSource = await page
      .locator('[data-testid="chart-markers"] path')
      .evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke')));
    assert.ok(
      layerSource.includes(svg.source),
      `${scheme}: the window's marker layer strokes compactions in ${svg.source} (${layerSource.join(', ')})`,
    );

    await mkdir(shots, { recursive: true });
    await page.locator('.chart-area').screenshot({ path: join(shots, `themes-${scheme}-chart.png`) });
    return svg;
  } finally {
    await context.close();
  }
}

export async function testBothSchemesDrawEveryMarkVisibly({ page, url, assert }) {
  const browser = page.context().browser();
  const dark = await inScheme(browser, url, 'dark', assert);
  const light = await inScheme(browser, url, 'light', assert);
  // The light scheme is not the dark one's near-white marks again.
  assert.notEqual(light.reported, dark.reported);
  assert.notEqual(light.source, dark.source);
}
