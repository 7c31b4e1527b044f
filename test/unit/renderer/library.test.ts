/** The library's rows (search, sort, nesting) and its store slice (open, sort, delete), with a fake host. */
import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../src/shared/api';
import { libraryRows } from '../../../src/renderer/src/model/library-rows';
import { createAppStore } from '../../../src/renderer/src/store';
import { fakeApi, flush, SESSION } from './fake-client';

const s = (id: string, over: Partial<SessionSummary> = {}): SessionSummary => ({ ...SESSION.summary, id, title: id, ...over });
const SESSIONS = [
  s('a', { steps: 5, cwd: '/work/alpha', model: 'claude-sonnet-4-5', importedAt: 1 }),
  s('a-sub', { parentId: 'a', steps: 2, title: 'general-purpose: Find callers', spawnedAt: 3 }),
  s('b', { steps: 50, cwd: '/work/beta', model: 'gpt-5', importedAt: 2 }),
  s('c', { steps: 1, cwd: '/work/gamma', importedAt: 3 }),
];
const ids = (rows: ReturnType<typeof libraryRows>) => rows.map((r) => r.session.id);

describe('library rows', () => {
  it('sorts top-level sessions by a column both ways; subagents stay under their parent', () => {
    const open = new Set(['a']);
    expect(ids(libraryRows(SESSIONS, '', { column: 'calls', dir: -1 }, open))).toEqual(['b', 'a', 'a-sub', 'c']);
    expect(ids(libraryRows(SESSIONS, '', { column: 'calls', dir: 1 }, open))).toEqual(['c', 'a', 'a-sub', 'b']);
    expect(ids(libraryRows(SESSIONS, '', { column: 'project', dir: 1 }, new Set()))).toEqual(['a', 'b', 'c']);
  });

  it('collapsed parents hide their subagents and say how many they have', () => {
    const rows = libraryRows(SESSIONS, '', { column: 'date', dir: 1 }, new Set());
    expect(ids(rows)).toEqual(['a', 'b', 'c']);
    expect(rows[0]).toMatchObject({ children: 1, expanded: false, depth: 0 });
  });

  it('search matches title, project, model; a matching subagent brings its parent, opened', () => {
    expect(ids(libraryRows(SESSIONS, 'beta', { column: 'date', dir: 1 }, new Set()))).toEqual(['b']);
    expect(ids(libraryRows(SESSIONS, 'GPT', { column: 'date', dir: 1 }, new Set()))).toEqual(['b']);
    expect(ids(libraryRows(SESSIONS, 'find callers', { column: 'date', dir: 1 }, new Set()))).toEqual(['a', 'a-sub']);
    expect(ids(libraryRows(SESSIONS, 'nothing-like-this', { column: 'date', dir: 1 }, new Set()))).toEqual([]);
  });
});

describe('library slice', () => {
  function setup(sessions = SESSIONS) {
    const fake = fakeApi();
    let list = [...sessions];
    const deleted: string[] = [];
    const api = new Proxy(fake.api, {
      get(target, prop: string) {
        if (prop === 'listSessions') return () => Promise.resolve(list);
        if (prop === 'getSession')
          return ({ id }: { id: string }) => Promise.resolve({ ...SESSION, summary: list.find((x) => x.id === id) ?? SESSION.summary });
        if (prop === 'deleteSession')
          return ({ id }: { id: string }) => {
            deleted.push(id);
            list = list.filter((x) => x.id !== id && x.parentId !== id);
            return Promise.resolve({ sessions: 2, messages: 14, calls: 7, cachedResults: 3 });
          };
        return Reflect.get(target, prop) as unknown;
      },
    });
    const store = createAppStore(api, { setTimer: () => 0, clearTimer: () => {} });
    return { store, deleted };
  }

  it('a header click sorts by it, a second click reverses', () => {
    const { store } = setup();
    store.getState().sortLibrary('calls');
    expect(store.getState().librarySort).toEqual({ column: 'calls', dir: -1 });
    store.getState().sortLibrary('calls');
    expect(store.getState().librarySort).toEqual({ column: 'calls', dir: 1 });
    store.getState().sortLibrary('title');
    expect(store.getState().librarySort).toEqual({ column: 'title', dir: 1 });
  });

  it('delete asks first, then removes the session; the open one is replaced by another', async () => {
    const { store, deleted } = setup();
    await store.getState().openSession('a');
    await store.getState().openLibrary();
    expect(store.getState().libraryOpen).toBe(true);
    store.getState().askDelete('a');
    expect(store.getState().pendingDelete?.id).toBe('a');
    expect(deleted).toEqual([]);
    store.getState().cancelDelete();
    expect(store.getState().pendingDelete).toBeNull();
    store.getState().askDelete('a');
    await store.getState().confirmDelete();
    await flush();
    expect(deleted).toEqual(['a']);
    expect(store.getState().sessions.map((x) => x.id)).toEqual(['b', 'c']);
    expect(store.getState().lastDeleted).toMatchObject({ title: 'a', messages: 14, cachedResults: 3 });
    expect(store.getState().currentId).toBe('b');
  });

  it('opening from the library opens the session and closes the library; Escape-close keeps the session', async () => {
    const { store } = setup();
    await store.getState().openLibrary();
    await store.getState().openFromLibrary('a-sub');
    expect(store.getState().libraryOpen).toBe(false);
    expect(store.getState().currentId).toBe('a-sub');
    await store.getState().openLibrary();
    store.getState().closeLibrary();
    expect(store.getState().currentId).toBe('a-sub');
  });
});
