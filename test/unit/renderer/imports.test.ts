/**
 * The import slice: files handed to the page become one job per upload (or one job by path), the
 * progress panel follows the job's events, Cancel cancels the job (or aborts the upload) and is
 * not an error, a failure leaves an error panel until dismissed (and no transient banner), a job
 * that ends before the page learns its id still opens its session, and the agent-logs panel
 * opens what is stored or imports what is not.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, type ApiClient, type EventName, type EventPayload, type LocalLogFile } from '../../../src/shared/api';
import type { FileImporter } from '../../../src/renderer/src/api/files';
import { createAppStore } from '../../../src/renderer/src/store';
import { importErrorParts, fmtBytes, fmtDuration } from '../../../src/renderer/src/model/import-view';
import { fakeApi, flush } from './fake-client';

function setup(kind: FileImporter['kind'] = 'upload') {
  const fake = fakeApi();
  const listeners = new Map<string, ((p: unknown) => void)[]>();
  const calls: { method: string; input: unknown }[] = [];
  let nextJob = 1;
  const overrides: Record<string, unknown> = {
    on: (event: string, l: (p: unknown) => void) => {
      listeners.set(event, [...(listeners.get(event) ?? []), l]);
      return () => {};
    },
    importFiles: (input: unknown) => {
      calls.push({ method: 'importFiles', input });
      return Promise.resolve({ jobId: `job${nextJob++}` });
    },
    cancelImport: (input: unknown) => {
      calls.push({ method: 'cancelImport', input });
      return Promise.resolve({ cancelled: true });
    },
    deleteSession: (input: unknown) => {
      calls.push({ method: 'deleteSession', input });
      return Promise.resolve({ sessions: 1, messages: 0, calls: 0, cachedResults: 0 });
    },
    listSessions: () => Promise.resolve([{ id: 's1' }, { id: 'new' }]),
    listLocalLogs: () => Promise.resolve({ roots: [], groups: [], truncated: 0 }),
  };
  const api = new Proxy(fake.api, {
    get: (t, p: string) => (p in overrides ? overrides[p] : (t as unknown as Record<string, unknown>)[p]),
  }) as ApiClient;
  const emit = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    for (const l of listeners.get(event) ?? []) l(payload);
  };
  const uploads: {
    files: readonly File[];
    onSent?: (s: number, t: number) => void;
    resolve: (v: { jobId: string }) => void;
    reject: (e: unknown) => void;
    aborted: boolean;
  }[] = [];
  const files: FileImporter = {
    kind,
    start(chosen, onSent) {
      let resolve!: (v: { jobId: string }) => void;
      let reject!: (e: unknown) => void;
      const done = new Promise<{ jobId: string }>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const u = { files: chosen, ...(onSent ? { onSent } : {}), resolve, reject, aborted: false };
      uploads.push(u);
      return {
        done,
        abort: () => {
          u.aborted = true;
          reject(new ApiError('cancelled', 'upload cancelled'));
        },
      };
    },
  };
  const store = createAppStore(api, { files, setTimer: () => 0, clearTimer: () => {} });
  return { store, emit, uploads, calls };
}

const file = (name: string, size = 10) => new File(['x'.repeat(size)], name);
const progress = (jobId: string, bytes: number): EventPayload<'importProgress'> => ({
  jobId,
  file: `/srv/uploads/abc-${'f.jsonl'}`,
  bytes,
  totalBytes: 100,
  messages: 1,
  sessions: 1,
  bytesPerSecond: 50,
  etaMs: 1000,
});

describe('import slice: upload, progress, done', () => {
  it("shows the upload, then the import's progress, and opens the session when done", async () => {
    const { store, emit, uploads } = setup();
    void store.getState().init();
    await flush();
    void store.getState().importPageFiles([file('f.jsonl', 100)]);
    expect(store.getState().importProgress).toMatchObject({ phase: 'upload', file: 'f.jsonl', jobId: null });
    uploads[0]!.onSent?.(40, 100);
    expect(store.getState().importProgress).toMatchObject({ phase: 'upload', bytes: 40, totalBytes: 100 });
    uploads[0]!.resolve({ jobId: 'j1' });
    await flush();
    expect(store.getState().importing).toBe('j1');
    emit('importProgress', progress('j1', 30));
    expect(store.getState().importProgress).toMatchObject({
      phase: 'import',
      jobId: 'j1',
      bytes: 30,
      file: 'abc-f.jsonl',
      bytesPerSecond: 50,
      etaMs: 1000,
    });
    emit('importProgress', progress('other', 99));
    expect(store.getState().importProgress?.bytes).toBe(30);
    emit('importDone', { jobId: 'j1', sessionIds: ['new'], reused: false });
    await flush();
    await flush();
    expect(store.getState().importProgress).toBeNull();
    expect(store.getState().currentId).toBe('new');
  });

  it('uploads several files one after the other', async () => {
    const { store, emit, uploads } = setup();
    void store.getState().importPageFiles([file('a.jsonl'), file('b.jsonl')]);
    expect(uploads).toHaveLength(1);
    expect(store.getState().importProgress?.queued).toBe(1);
    uploads[0]!.resolve({ jobId: 'j1' });
    await flush();
    emit('importDone', { jobId: 'j1', sessionIds: ['new'], reused: false });
    await flush();
    expect(uploads).toHaveLength(2);
    expect(uploads[1]!.files[0]!.name).toBe('b.jsonl');
  });

  it('opens the session of a job that ended before the upload answered with its id', async () => {
    const { store, emit, uploads } = setup();
    void store.getState().init();
    await flush();
    void store.getState().importPageFiles([file('tiny.jsonl')]);
    emit('importDone', { jobId: 'j9', sessionIds: ['new'], reused: false });
    uploads[0]!.resolve({ jobId: 'j9' });
    for (let i = 0; i < 5; i++) await flush();
    expect(store.getState().importProgress).toBeNull();
    expect(store.getState().importing).toBeNull();
    expect(store.getState().currentId).toBe('new');
  });

  it('Electron: every file in one job, by path', async () => {
    const { store, uploads } = setup('path');
    void store.getState().importPageFiles([file('a.jsonl'), file('b.jsonl')]);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.files.map((f) => f.name)).toEqual(['a.jsonl', 'b.jsonl']);
    expect(store.getState().importProgress).toMatchObject({ phase: 'import', file: '2 files' });
  });
});

describe('import slice: imports the host started (desktop menu, second launch, OS open-file)', () => {
  it('an unknown job the host announces shows the progress panel, follows its progress, and its done opens the session', async () => {
    const { store, emit, calls } = setup();
    void store.getState().init();
    await flush();
    emit('importProgress', progress('h1', 5)); // before the announcement: not ours yet
    expect(store.getState().importProgress).toBeNull();
    emit('hostImportStarted', { jobId: 'h1', file: 'menu-picked.jsonl', totalBytes: 100 });
    expect(store.getState().importProgress).toMatchObject({ jobId: 'h1', phase: 'import', file: 'menu-picked.jsonl', totalBytes: 100 });
    emit('importProgress', progress('h1', 60));
    expect(store.getState().importProgress).toMatchObject({ jobId: 'h1', bytes: 60 });
    // The page itself started nothing.
    expect(calls.some((c) => c.method === 'importFiles')).toBe(false);
    emit('importDone', { jobId: 'h1', sessionIds: ['new'], reused: false });
    await flush();
    await flush();
    expect(store.getState().importProgress).toBeNull();
    expect(store.getState().importing).toBeNull();
    expect(store.getState().currentId).toBe('new');
  });

  it('its failure opens the error panel; a job that ended before its announcement still opens its session', async () => {
    const { store, emit } = setup();
    void store.getState().init();
    await flush();
    emit('hostImportStarted', { jobId: 'h1', file: 'bad.jsonl', totalBytes: 10 });
    emit('importFailed', { jobId: 'h1', error: 'bad.jsonl:2:1: valid JSON', cancelled: false });
    expect(store.getState().importError).toEqual({ file: 'bad.jsonl', message: 'bad.jsonl:2:1: valid JSON' });
    store.getState().dismissImportError();
    emit('importDone', { jobId: 'h2', sessionIds: ['new'], reused: false });
    emit('hostImportStarted', { jobId: 'h2', file: 'tiny.jsonl', totalBytes: 10 });
    for (let i = 0; i < 5; i++) await flush();
    expect(store.getState().importProgress).toBeNull();
    expect(store.getState().currentId).toBe('new');
  });

  it('while another import is on screen, a host job runs behind it: the list refreshes, the open session stays', async () => {
    const { store, emit, uploads } = setup();
    void store.getState().init();
    await flush();
    void store.getState().importPageFiles([file('mine.jsonl')]);
    uploads[0]!.resolve({ jobId: 'j1' });
    await flush();
    emit('hostImportStarted', { jobId: 'h1', file: 'other.jsonl', totalBytes: 10 });
    expect(store.getState().importProgress?.jobId).toBe('j1');
    emit('importDone', { jobId: 'h1', sessionIds: ['new'], reused: false });
    await flush();
    expect(store.getState().importProgress?.jobId).toBe('j1');
    expect(store.getState().currentId).toBe('s1');
    expect(store.getState().sessions.map((s) => s.id)).toContain('new');
  });
});

describe('import slice: cancel and failure', () => {
  it('Cancel asks the host to cancel the job; the cancelled end is not an error', async () => {
    const { store, emit, uploads, calls } = setup();
    void store.getState().init();
    await flush();
    void store.getState().importPageFiles([file('f.jsonl')]);
    uploads[0]!.resolve({ jobId: 'j1' });
    await flush();
    await store.getState().cancelCurrentImport();
    expect(calls).toContainEqual({ method: 'cancelImport', input: { jobId: 'j1' } });
    emit('importFailed', { jobId: 'j1', error: 'f.jsonl: import cancelled', cancelled: true });
    expect(store.getState().importProgress).toBeNull();
    expect(store.getState().importError).toBeNull();
    expect(store.getState().error).toBeNull();
    expect(store.getState().importing).toBeNull();
  });

  it('Cancel during the upload aborts it, without an error', async () => {
    const { store, uploads } = setup();
    void store.getState().importPageFiles([file('f.jsonl'), file('g.jsonl')]);
    await store.getState().cancelCurrentImport();
    await flush();
    expect(uploads[0]!.aborted).toBe(true);
    expect(uploads).toHaveLength(1);
    expect(store.getState().importProgress).toBeNull();
    expect(store.getState().importError).toBeNull();
  });

  // The cancel race: Cancel pressed as the upload finishes. Each order of events below must end
  // with no session kept, no session opened, no error shown.
  const settle = async () => {
    for (let i = 0; i < 6; i++) await flush();
  };
  const uploaded = async () => {
    const t = setup();
    void t.store.getState().init();
    await flush();
    void t.store.getState().importPageFiles([file('f.jsonl')]);
    return t;
  };
  const nothingKept = (t: Awaited<ReturnType<typeof uploaded>>) => {
    expect(t.store.getState().importProgress).toBeNull();
    expect(t.store.getState().importing).toBeNull();
    expect(t.store.getState().importError).toBeNull();
    expect(t.store.getState().currentId).toBe('s1');
  };

  it('race: the upload answers with its job id just as Cancel is pressed: the import is cancelled', async () => {
    const t = await uploaded();
    t.uploads[0]!.resolve({ jobId: 'j1' }); // too late to abort: the slice has not seen the id yet
    await t.store.getState().cancelCurrentImport();
    await settle();
    expect(t.calls).toContainEqual({ method: 'cancelImport', input: { jobId: 'j1' } });
    t.emit('importProgress', progress('j1', 50));
    expect(t.store.getState().importProgress).toBeNull();
    t.emit('importFailed', { jobId: 'j1', error: 'f.jsonl: import cancelled', cancelled: true });
    await settle();
    nothingKept(t);
    expect(t.calls.some((c) => c.method === 'deleteSession')).toBe(false);
  });

  it("race: the import already finished when the upload's answer arrives after Cancel: its sessions are deleted, not opened", async () => {
    const t = await uploaded();
    t.emit('importProgress', progress('j1', 100));
    t.emit('importDone', { jobId: 'j1', sessionIds: ['new', 'new-sub'], reused: false });
    t.uploads[0]!.resolve({ jobId: 'j1' });
    await t.store.getState().cancelCurrentImport();
    await settle();
    expect(t.calls.filter((c) => c.method === 'deleteSession').map((c) => c.input)).toEqual([{ id: 'new' }, { id: 'new-sub' }]);
    nothingKept(t);
  });

  it('race: the host finishes the job before the cancel reaches it: the session is deleted, not opened', async () => {
    const t = await uploaded();
    t.uploads[0]!.resolve({ jobId: 'j1' });
    await flush();
    expect(t.store.getState().importing).toBe('j1');
    await t.store.getState().cancelCurrentImport();
    t.emit('importDone', { jobId: 'j1', sessionIds: ['new'], reused: false });
    await settle();
    expect(t.calls).toContainEqual({ method: 'deleteSession', input: { id: 'new' } });
    nothingKept(t);
  });

  it('race: a cancelled job that found the file already stored deletes nothing (the session was there before)', async () => {
    const t = await uploaded();
    t.uploads[0]!.resolve({ jobId: 'j1' });
    await t.store.getState().cancelCurrentImport();
    t.emit('importDone', { jobId: 'j1', sessionIds: ['s1'], reused: true });
    await settle();
    expect(t.calls.some((c) => c.method === 'deleteSession')).toBe(false);
    nothingKept(t);
  });

  it('a failed import leaves the error panel (not the banner) until dismissed', async () => {
    const { store, emit, uploads } = setup();
    void store.getState().init();
    await flush();
    void store.getState().importPageFiles([file('broken.jsonl')]);
    uploads[0]!.resolve({ jobId: 'j1' });
    await flush();
    emit('importFailed', { jobId: 'j1', error: 'broken.jsonl:6:22: valid JSON (Expected double-quoted property name)', cancelled: false });
    expect(store.getState().importError).toEqual({
      file: 'broken.jsonl',
      message: 'broken.jsonl:6:22: valid JSON (Expected double-quoted property name)',
    });
    expect(store.getState().error).toBeNull();
    emit('importDone', { jobId: 'other', sessionIds: [], reused: false });
    expect(store.getState().importError).not.toBeNull();
    store.getState().dismissImportError();
    expect(store.getState().importError).toBeNull();
  });

  it('a refused upload (413) shows its message in the error panel', async () => {
    const { store, uploads } = setup();
    void store.getState().importPageFiles([file('huge.jsonl')]);
    uploads[0]!.reject(new ApiError('bad_input', "huge.jsonl: 2048 MiB is over this server's upload limit of 1024 MiB"));
    await flush();
    expect(store.getState().importError?.message).toMatch(/upload limit/);
  });
});

describe('import slice: agent logs', () => {
  const entry = (over: Partial<LocalLogFile>): LocalLogFile => ({
    path: '/h/.claude/projects/p/s.jsonl',
    name: 's.jsonl',
    size: 10,
    mtime: 0,
    sessionIds: [],
    changed: false,
    ...over,
  });

  it("the host's showLocalLogs event opens the panel and lists", async () => {
    const { store, emit } = setup();
    emit('showLocalLogs', {});
    await flush();
    expect(store.getState().localLogsOpen).toBe(true);
    expect(store.getState().localLogs).toEqual({ roots: [], groups: [], truncated: 0 });
  });

  it("opens a stored, unchanged file's session; imports one not stored or changed", async () => {
    const { store, calls } = setup();
    void store.getState().init();
    await flush();
    store.getState().setLocalLogsOpen(true);
    // (Opening waits for the fake's chart, which this test never answers.)
    void store.getState().openLocalLog(entry({ sessionIds: ['new'] }));
    await flush();
    expect(store.getState().currentId).toBe('new');
    expect(store.getState().localLogsOpen).toBe(false);
    expect(calls).toEqual([]);
    await store.getState().openLocalLog(entry({ sessionIds: ['new'], changed: true }));
    expect(calls).toEqual([{ method: 'importFiles', input: { paths: ['/h/.claude/projects/p/s.jsonl'] } }]);
    expect(store.getState().importProgress).toMatchObject({ jobId: 'job1', phase: 'import', file: 's.jsonl' });
  });
});

describe('import view helpers', () => {
  it('splits an importer message into file, line, column and what was expected', () => {
    expect(importErrorParts('broken.jsonl:6:22: valid JSON (x)', 'b')).toEqual({
      file: 'broken.jsonl',
      line: 6,
      column: 22,
      expected: 'valid JSON (x)',
    });
    expect(importErrorParts('/a/b.json:3: a record', 'b')).toEqual({ file: '/a/b.json', line: 3, column: null, expected: 'a record' });
    expect(importErrorParts('x.jsonl: a known transcript format', 'b')).toEqual({
      file: 'x.jsonl',
      line: null,
      column: null,
      expected: 'a known transcript format',
    });
    expect(importErrorParts('the upload failed (connection lost)', 'f.jsonl')).toEqual({
      file: 'f.jsonl',
      line: null,
      column: null,
      expected: 'the upload failed (connection lost)',
    });
  });

  it('formats sizes and durations', () => {
    expect(fmtBytes(60_000_000)).toBe('60.0 MB');
    expect(fmtBytes(512)).toBe('512 B');
    expect(fmtDuration(null)).toBe('—');
    expect(fmtDuration(61_000)).toBe('1 min 1 s');
  });
});
