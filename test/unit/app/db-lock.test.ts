/** One desktop instance per database: the lock file beside it, with an in-memory file system. */
import { describe, expect, it } from 'vitest';
import { lockDatabase, processIsAlive, type LockFs } from '../../../src/main/app/db-lock';

function memoryFs(): LockFs & { files: Map<string, string> } {
  const files = new Map<string, string>();
  return {
    files,
    createExclusive(path, text) {
      if (files.has(path)) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
      files.set(path, text);
    },
    read(path) {
      const t = files.get(path);
      if (t === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return t;
    },
    remove(path) {
      files.delete(path);
    },
  };
}

describe('lockDatabase', () => {
  it('the first instance takes the lock, a second live one is refused with its pid', () => {
    const fs = memoryFs();
    const alive = new Set([100, 200]);
    const first = lockDatabase('/d/ctx.db', 100, (p) => alive.has(p), fs);
    expect(first.ok).toBe(true);
    expect(fs.files.get('/d/ctx.db.app-lock')).toBe('100');
    expect(lockDatabase('/d/ctx.db', 200, (p) => alive.has(p), fs)).toEqual({ ok: false, heldBy: 100 });
    // Another database is another lock.
    expect(lockDatabase('/d/other.db', 200, (p) => alive.has(p), fs).ok).toBe(true);
  });

  it('a lock left by a crashed process is taken over', () => {
    const fs = memoryFs();
    fs.files.set('/d/ctx.db.app-lock', '4242');
    const lock = lockDatabase('/d/ctx.db', 100, (p) => p === 100, fs);
    expect(lock.ok).toBe(true);
    expect(fs.files.get('/d/ctx.db.app-lock')).toBe('100');
  });

  it('release removes only its own lock', () => {
    const fs = memoryFs();
    const lock = lockDatabase('/d/ctx.db', 100, () => true, fs);
    if (!lock.ok) throw new Error('expected the lock');
    fs.files.set('/d/ctx.db.app-lock', '300'); // taken over meanwhile
    lock.release();
    expect(fs.files.get('/d/ctx.db.app-lock')).toBe('300');
    fs.files.set('/d/ctx.db.app-lock', '100');
    lock.release();
    expect(fs.files.has('/d/ctx.db.app-lock')).toBe(false);
  });

  it('processIsAlive knows this process', () => {
    expect(processIsAlive(process.pid)).toBe(true);
  });
});
