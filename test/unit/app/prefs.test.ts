/** The preferences file (window bounds, theme, recent files) and where the window opens. */
import { describe, expect, it } from 'vitest';
import { addRecent, DEFAULT_PREFS, MAX_RECENT, parsePrefs, PrefsStore } from '../../../src/main/app/prefs';
import { boundsToSave, DEFAULT_SIZE, initialBounds, MIN_SIZE } from '../../../src/main/app/window-state';

describe('parsePrefs', () => {
  it('reads a valid file', () => {
    const p = parsePrefs(
      JSON.stringify({ window: { x: 10, y: 20, width: 1200, height: 800, maximized: true }, theme: 'light', recent: ['/a.jsonl'] }),
    );
    expect(p).toEqual({ window: { x: 10, y: 20, width: 1200, height: 800, maximized: true }, theme: 'light', recent: ['/a.jsonl'] });
  });

  it('a missing, broken or ill-typed file gives the defaults', () => {
    for (const text of [undefined, '', '{not json', '[]', '{"theme":"purple"}', '{"window":{"width":"big","height":1}}']) {
      expect(parsePrefs(text), String(text)).toEqual(DEFAULT_PREFS);
    }
  });

  it('keeps at most MAX_RECENT recent files', () => {
    const recent = Array.from({ length: 30 }, (_, i) => `/f${i}.jsonl`);
    expect(parsePrefs(JSON.stringify({ recent })).recent).toHaveLength(MAX_RECENT);
  });
});

describe('addRecent', () => {
  it('puts the file first, once, and drops the oldest past the cap', () => {
    expect(addRecent(['/a', '/b', '/c'], '/b')).toEqual(['/b', '/a', '/c']);
    const full = Array.from({ length: MAX_RECENT }, (_, i) => `/f${i}`);
    const next = addRecent(full, '/new');
    expect(next[0]).toBe('/new');
    expect(next).toHaveLength(MAX_RECENT);
    expect(next).not.toContain(`/f${MAX_RECENT - 1}`);
  });
});

describe('PrefsStore', () => {
  it('writes every change and survives a file that cannot be read or written', () => {
    let text: string | undefined;
    const store = new PrefsStore({ read: () => text, write: (t) => (text = t) });
    store.update({ theme: 'dark' });
    expect(new PrefsStore({ read: () => text, write: () => {} }).get().theme).toBe('dark');
    const broken = new PrefsStore({
      read: () => {
        throw new Error('EACCES');
      },
      write: () => {
        throw new Error('EROFS');
      },
    });
    expect(broken.get()).toEqual(DEFAULT_PREFS);
    expect(() => broken.update({ theme: 'light' })).not.toThrow();
    expect(broken.get().theme).toBe('light');
  });
});

describe('initialBounds', () => {
  const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];
  it('the default size when nothing is remembered', () => {
    expect(initialBounds(undefined, screen)).toEqual({ ...DEFAULT_SIZE, maximized: false });
  });

  it('the remembered bounds when they are on a display', () => {
    expect(initialBounds({ x: 100, y: 50, width: 1200, height: 800, maximized: false }, screen)).toEqual({
      x: 100,
      y: 50,
      width: 1200,
      height: 800,
      maximized: false,
    });
  });

  it('drops the position of a window left on a display that is gone, keeps its size', () => {
    expect(initialBounds({ x: 2500, y: 100, width: 1200, height: 800, maximized: true }, screen)).toEqual({
      width: 1200,
      height: 800,
      maximized: true,
    });
    // Only its last 30 px on screen: the title bar cannot be grabbed, so it is not reachable.
    expect(initialBounds({ x: 1890, y: 100, width: 1200, height: 800, maximized: false }, screen).x).toBeUndefined();
  });

  it('never below the minimum size', () => {
    const b = initialBounds({ x: 0, y: 0, width: 300, height: 250, maximized: false }, screen);
    expect([b.width, b.height]).toEqual([MIN_SIZE.width, MIN_SIZE.height]);
  });

  it('saves whole pixels and the maximized flag', () => {
    expect(boundsToSave({ x: 10.4, y: 20.6, width: 1000.2, height: 700.7 }, true)).toEqual({
      x: 10,
      y: 21,
      width: 1000,
      height: 701,
      maximized: true,
    });
  });
});
