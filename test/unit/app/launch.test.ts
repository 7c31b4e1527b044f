/** Launch arguments, the single-instance hand-over and macOS open-file, with a fake Electron app. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { parseLaunchArgs } from '../../../src/main/app/args';
import { claimSingleInstance } from '../../../src/main/app/single-instance';

const existing = new Set(['/work/a.jsonl', '/home/u/b.jsonl', '/tmp/db/x.jsonl']);
const isFile = (p: string): boolean => existing.has(p);

describe('parseLaunchArgs', () => {
  it('skips the executable (and the app folder when not packaged), switches and missing paths', () => {
    const argv = ['/usr/bin/electron', '/repo', '--user-data-dir=/tmp/u', 'a.jsonl', '--inspect', 'missing.jsonl', '.'];
    expect(parseLaunchArgs(argv, { packaged: false, cwd: '/work', isFile })).toEqual({ dbPath: undefined, files: ['/work/a.jsonl'] });
    expect(parseLaunchArgs(['/opt/Context Scope/ctxscope', '/home/u/b.jsonl'], { packaged: true, cwd: '/', isFile }).files).toEqual([
      '/home/u/b.jsonl',
    ]);
  });

  it('takes --db PATH and --db=PATH, resolved against the launch folder', () => {
    expect(parseLaunchArgs(['e', '.', '--db', 'my.db', 'a.jsonl'], { packaged: false, cwd: '/work', isFile })).toEqual({
      dbPath: '/work/my.db',
      files: ['/work/a.jsonl'],
    });
    expect(parseLaunchArgs(['exe', '--db=/tmp/db/s.db'], { packaged: true, cwd: '/work', isFile }).dbPath).toBe('/tmp/db/s.db');
  });
});

class FakeApp extends EventEmitter {
  quitCalled = false;
  constructor(
    private readonly lock: boolean,
    readonly isPackaged = true,
  ) {
    super();
  }
  requestSingleInstanceLock(): boolean {
    return this.lock;
  }
  quit(): void {
    this.quitCalled = true;
  }
}
const asApp = (a: FakeApp) => a as unknown as Parameters<typeof claimSingleInstance>[0];

describe('claimSingleInstance', () => {
  it('a second instance quits at once and never opens anything', () => {
    const app = new FakeApp(false);
    const inst = claimSingleInstance(asApp(app), { isFile, focus: () => {} });
    expect(inst.primary).toBe(false);
    expect(app.quitCalled).toBe(true);
    expect(app.listenerCount('second-instance')).toBe(0);
  });

  it('files of a second launch open in the first window, which is focused', () => {
    const app = new FakeApp(true);
    let focused = 0;
    const opened: string[][] = [];
    const inst = claimSingleInstance(asApp(app), { isFile, focus: () => focused++ });
    inst.ready((p) => opened.push(p));
    app.emit('second-instance', {}, ['/opt/cs/ctxscope', 'b.jsonl', 'nope.jsonl'], '/home/u');
    expect(opened).toEqual([['/home/u/b.jsonl']]);
    expect(focused).toBe(1);
    expect(app.quitCalled).toBe(false);
  });

  it('macOS open-file before the window is ready waits, then is handed over', () => {
    const app = new FakeApp(true);
    const opened: string[][] = [];
    const inst = claimSingleInstance(asApp(app), { isFile, focus: () => {} });
    let prevented = false;
    app.emit('open-file', { preventDefault: () => (prevented = true) }, '/work/a.jsonl');
    expect(prevented).toBe(true);
    expect(opened).toEqual([]);
    inst.ready((p) => opened.push(p));
    expect(opened).toEqual([['/work/a.jsonl']]);
    app.emit('open-file', { preventDefault: () => {} }, '/home/u/b.jsonl');
    expect(opened).toEqual([['/work/a.jsonl'], ['/home/u/b.jsonl']]);
  });
});
