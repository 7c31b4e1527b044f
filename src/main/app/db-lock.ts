/**
 * One desktop instance per database. The single-instance lock (single-instance.ts) is per
 * user-data folder, but `--db PATH` can point two instances with different folders at one file:
 * a lock file beside the database (`<db>.app-lock`, holding the owner's pid) refuses the second.
 * A lock left by a process that is gone (a crash) is taken over. The CLI and `ctxscope serve`
 * do not take it: sharing the database with them is by design (SQLite's WAL keeps them apart).
 */
export interface LockFs {
  /** Creates the file only if it does not exist (throws with code EEXIST otherwise). */
  createExclusive(path: string, text: string): void;
  read(path: string): string;
  remove(path: string): void;
}

export type DbLock = { readonly ok: true; release(): void } | { readonly ok: false; readonly heldBy: number };

export function lockDatabase(dbPath: string, pid: number, isAlive: (pid: number) => boolean, fs: LockFs): DbLock {
  const path = `${dbPath}.app-lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.createExclusive(path, String(pid));
      return {
        ok: true,
        release() {
          try {
            if (fs.read(path).trim() === String(pid)) fs.remove(path);
          } catch {
            // Already gone.
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let holder = NaN;
    try {
      holder = Number(fs.read(path).trim());
    } catch {
      // Removed between our attempt and this read: try again.
    }
    if (Number.isInteger(holder) && holder > 0 && holder !== pid && isAlive(holder)) return { ok: false, heldBy: holder };
    try {
      fs.remove(path);
    } catch {
      // Someone else removed it first.
    }
  }
  return { ok: false, heldBy: NaN };
}

/** process.kill(pid, 0) probes without signalling: EPERM means alive but not ours. */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
