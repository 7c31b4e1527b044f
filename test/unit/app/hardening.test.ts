/** The window's guards and the CSP decision, with fake web contents and sessions. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cspHeaderFor, withCsp, withoutCspMeta } from '../../../src/main/app/csp';
import { denyAllPermissions, guardContents } from '../../../src/main/app/hardening';
import { DOCUMENTATION_URLS, isDocumentationLink } from '../../../src/main/app/links';

/** A documentation list as a published project would have it (the shipped list is empty: no address yet). */
const DOCS = ['https://docs.example.org/context-scope/', 'https://docs.example.org/context-scope/policies'];
const README_URL = DOCS[0]!;

const POLICY = "default-src 'none'";
const RENDERER = 'file:///opt/app/resources/app.asar/out/renderer';

describe('cspHeaderFor', () => {
  it('applies to the built page and its assets only', () => {
    expect(cspHeaderFor(`${RENDERER}/index.html`, RENDERER, POLICY)).toBe(POLICY);
    expect(cspHeaderFor(`${RENDERER}/assets/index-abc.js`, RENDERER + '/', POLICY)).toBe(POLICY);
  });

  it('leaves the dev server (npm run dev) and other folders alone', () => {
    expect(cspHeaderFor('http://localhost:5173/', RENDERER, POLICY)).toBeUndefined();
    expect(cspHeaderFor('http://localhost:5173/@vite/client', RENDERER, POLICY)).toBeUndefined();
    // A sibling folder whose name starts the same is not the renderer.
    expect(cspHeaderFor(`${RENDERER}-other/index.html`, RENDERER, POLICY)).toBeUndefined();
  });

  it('replaces a CSP header of any case rather than adding a second one', () => {
    const out = withCsp(
      { 'content-security-policy': ["script-src 'unsafe-inline'"], 'x-other': ['1'] },
      `${RENDERER}/index.html`,
      RENDERER,
      POLICY,
    );
    expect(out).toEqual({ 'x-other': ['1'], 'Content-Security-Policy': [POLICY] });
    const dev = { a: ['b'] };
    expect(withCsp(dev, 'http://localhost:5173/', RENDERER, POLICY)).toBe(dev);
  });
});

describe('links that may leave the app', () => {
  it('only the fixed documentation list', () => {
    expect(isDocumentationLink(README_URL, DOCS)).toBe(true);
    for (const u of DOCS) expect(isDocumentationLink(u, DOCS)).toBe(true);
    for (const u of [
      'https://example.com/',
      'http://docs.example.org/context-scope/',
      `${README_URL}x`,
      'https://docs.example.org/context-scope/@evil.example/',
      'https://user@docs.example.org/context-scope/',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'not a url',
    ]) {
      expect(isDocumentationLink(u, DOCS), u).toBe(false);
    }
    // No published address yet: the shipped list opens nothing.
    expect(DOCUMENTATION_URLS).toEqual([]);
    expect(isDocumentationLink(README_URL)).toBe(false);
  });
});

class FakeContents extends EventEmitter {
  openHandler: ((d: { url: string }) => { action: string }) | undefined;
  setWindowOpenHandler(h: (d: { url: string }) => { action: string }): void {
    this.openHandler = h;
  }
}

function fire(contents: FakeContents, name: string, url?: string): boolean {
  let prevented = false;
  contents.emit(name, { preventDefault: () => (prevented = true) }, url);
  return prevented;
}

describe('guardContents', () => {
  const own = 'file:///app/out/renderer/index.html';
  const setup = () => {
    const contents = new FakeContents();
    const opened: string[] = [];
    guardContents(
      contents as never,
      (u) => u === own,
      (u) => opened.push(u),
      DOCS,
    );
    return { contents, opened };
  };

  it('denies navigation, redirects and webviews away from the own page', () => {
    const { contents } = setup();
    expect(fire(contents, 'will-navigate', 'https://evil.example/')).toBe(true);
    expect(fire(contents, 'will-navigate', own)).toBe(false);
    expect(fire(contents, 'will-redirect', 'https://evil.example/')).toBe(true);
    expect(fire(contents, 'will-attach-webview')).toBe(true);
  });

  it('never opens a window; hands documentation links to the OS browser and nothing else', () => {
    const { contents, opened } = setup();
    expect(contents.openHandler!({ url: 'https://evil.example/phish' })).toEqual({ action: 'deny' });
    expect(contents.openHandler!({ url: README_URL })).toEqual({ action: 'deny' });
    expect(opened).toEqual([README_URL]);
  });
});

describe('denyAllPermissions', () => {
  it('refuses requests and answers every check with not granted', () => {
    let request: ((wc: unknown, p: string, cb: (ok: boolean) => void) => void) | undefined;
    let check: ((...a: unknown[]) => boolean) | undefined;
    denyAllPermissions({
      setPermissionRequestHandler: (h: never) => (request = h),
      setPermissionCheckHandler: (h: never) => (check = h),
    } as never);
    const answers: boolean[] = [];
    request!({}, 'media', (ok) => answers.push(ok));
    request!({}, 'notifications', (ok) => answers.push(ok));
    expect(answers).toEqual([false, false]);
    expect(check!({}, 'clipboard-read', 'file://', {})).toBe(false);
  });
});

describe('withoutCspMeta (npm run dev)', () => {
  it("drops the renderer page's CSP meta and nothing else", async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const html = readFileSync(join(__dirname, '..', '..', '..', 'src', 'renderer', 'index.html'), 'utf8');
    expect(html).toMatch(/Content-Security-Policy/);
    const dev = withoutCspMeta(html);
    expect(dev).not.toMatch(/Content-Security-Policy/);
    expect(dev.replace(/\s+/g, '')).toBe(html.replace(/<meta\s+http-equiv="Content-Security-Policy"[^>]*>/, '').replace(/\s+/g, ''));
    expect(dev).toMatch(/<meta name="referrer" content="no-referrer" \/>/);
  });

  it('is a serve-only plugin: the build keeps the meta', async () => {
    const config = (await import('../../../electron.vite.config')).default as unknown as { renderer: { plugins: unknown[] } };
    const plugin = config.renderer.plugins.flat().find((p) => (p as { name?: string }).name === 'ctxscope-dev-csp') as { apply: string };
    expect(plugin.apply).toBe('serve');
  });
});
