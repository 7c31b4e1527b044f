/**
 * Live tail, the host's side (`watchSession`): watches the source file of the sessions a window
 * asked to follow and, when it changes, brings the store up to date (store/tail.ts), forgets what
 * the host cached of those sessions and tells the window (`sessionUpdated`).
 *
 * - fs.watch fires within milliseconds of a write; changes are debounced (an agent writes a
 *   response as several lines in a burst) and updates of one file never overlap (a change during
 *   an update runs one more update after it).
 * - A stat poll backs it up: fs.watch is not delivered on every file system (network mounts,
 *   some containers), and it follows the inode, so a file replaced by a rename goes unnoticed
 *   until the poll sees another inode, size or mtime (then the watcher is set up again).
 * - A file that stops parsing (half-written JSON document) keeps the stored session as it was;
 *   the next change tries again.
 */
import { watch, statSync, type FSWatcher, type Stats } from 'node:fs';
import { countsKey } from '../../core/tokens/version';
import { ApiError, type EventSink } from '../../shared/api';
import type { SessionStore } from '../store/sessions';
import { closeTail, openTail, prepareTail, sourceOfSession, TailError, updateTail, type TailState } from '../store/tail';
import type { SessionAppend } from './session-append';

/** Quiet time after the last change before an update runs. */
export const TAIL_DEBOUNCE_MS = 50;
/** The stat poll that backs fs.watch up (and replaces it where it cannot be set up). */
const POLL_MS = 1000;
const POLL_ONLY_MS = 250;
/**
 * Quiet time after a fast-path update before the exact recount of what it estimated starts. A
 * recount tokenizes the whole session on every core: started at once, it competes with the chart
 * replay the window asks for on the same update (on a 100 MB session it doubled the time to the
 * extended chart). Updates in a burst push it back; it waits at most RECOUNT_MAX_WAIT_MS.
 */
export const RECOUNT_DELAY_MS = 2000;
const RECOUNT_MAX_WAIT_MS = 10_000;

export interface TailHostOptions {
  readonly store: SessionStore;
  readonly emit: EventSink;
  /**
   * Drops what the host cached of a session (parsed session, counts, replays) after it changed;
   * `append`, when given, turns a session held into the stored one (cheaper than a reload).
   */
  readonly invalidate: (sessionId: string, append?: SessionAppend) => void;
  /**
   * Asks for an exact count of a session under a tokenizer in the background (the fast path
   * extends stored exact counts with scaled estimates for the new messages).
   */
  readonly recount?: (sessionId: string, tokenizer: string) => void;
  /** Quiet time before the recount (RECOUNT_DELAY_MS unless given; tests shorten it). */
  readonly recountDelayMs?: number;
  /** Where an update's failure is reported (it never stops the watch). */
  readonly onError?: (message: string) => void;
}

interface Watch {
  readonly path: string;
  /** Sessions followed in this file, with how many windows follow each (serve: several tabs). */
  readonly sessions: Map<string, number>;
  state: Promise<TailState>;
  watcher: FSWatcher | undefined;
  poll: ReturnType<typeof setInterval>;
  timer: ReturnType<typeof setTimeout> | undefined;
  running: boolean;
  again: boolean;
  seen: Pick<Stats, 'ino' | 'size' | 'mtimeMs'> | undefined;
  closed: boolean;
  /** The format's `prepare` ran to its end on the state (store/tail.ts prepareTail). */
  prepared: boolean;
}

const statOf = (path: string): Pick<Stats, 'ino' | 'size' | 'mtimeMs'> | undefined => {
  try {
    const s = statSync(path);
    return { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
};

/** A poll never keeps the process alive by itself (the host's server or window does). */
const unref = <T extends { unref(): unknown }>(t: T): T => {
  t.unref();
  return t;
};

export class TailService {
  /** By path: one watch per file, however many of its sessions are followed. */
  private readonly watches = new Map<string, Watch>();
  /** Recounts waiting for quiet, by session: the timer and when the first update asked. */
  private readonly recounts = new Map<string, { timer: ReturnType<typeof setTimeout>; since: number }>();

  constructor(private readonly options: TailHostOptions) {}

  /** Starts (`on`) or stops following a session's source file; answers whether it is followed. */
  async watchSession(sessionId: string, on: boolean): Promise<{ watching: boolean; path: string | null }> {
    const src = sourceOfSession(this.options.store, sessionId);
    if (!src) throw new ApiError('not_found', `no session with id "${sessionId}"`);
    const existing = this.watches.get(src.path);
    if (!on) {
      const n = existing?.sessions.get(sessionId) ?? 0;
      if (n > 1) existing?.sessions.set(sessionId, n - 1);
      else existing?.sessions.delete(sessionId);
      if (existing && existing.sessions.size === 0) this.stop(existing);
      return { watching: false, path: src.path };
    }
    if (existing) {
      existing.sessions.set(sessionId, (existing.sessions.get(sessionId) ?? 0) + 1);
      return { watching: true, path: src.path };
    }
    const state = openTail(this.options.store, sessionId);
    // A missing file is the caller's error, answered now; nothing is watched.
    try {
      await state;
    } catch (e) {
      throw new ApiError('bad_input', e instanceof Error ? e.message : String(e));
    }
    if (this.watches.has(src.path)) return this.watchSession(sessionId, on);
    const w: Watch = {
      path: src.path,
      sessions: new Map([[sessionId, 1]]),
      state,
      watcher: undefined,
      poll: unref(setInterval(() => this.check(w), POLL_MS)),
      timer: undefined,
      running: false,
      again: false,
      seen: statOf(src.path),
      closed: false,
      prepared: false,
    };
    this.watches.set(src.path, w);
    this.rewatch(w);
    // What the file gained since its import shows at once.
    this.schedule(w);
    return { watching: true, path: src.path };
  }

  /** (Re)sets the fs.watch of a file; where it cannot be set up, the poll runs faster instead. */
  private rewatch(w: Watch): void {
    w.watcher?.close();
    w.watcher = undefined;
    try {
      w.watcher = watch(w.path, { persistent: false }, () => this.schedule(w));
      w.watcher.on('error', () => {
        w.watcher?.close();
        w.watcher = undefined;
      });
    } catch {
      clearInterval(w.poll);
      w.poll = unref(setInterval(() => this.check(w), POLL_ONLY_MS));
    }
  }

  /** The poll: a new inode (file replaced), size or mtime schedules an update. */
  private check(w: Watch): void {
    const now = statOf(w.path);
    const before = w.seen;
    if (!now || (before && now.ino === before.ino && now.size === before.size && now.mtimeMs === before.mtimeMs)) return;
    if (before && now.ino !== before.ino) this.rewatch(w);
    this.schedule(w);
  }

  private schedule(w: Watch): void {
    if (w.closed) return;
    if (w.timer !== undefined) clearTimeout(w.timer);
    w.timer = setTimeout(() => {
      w.timer = undefined;
      void this.run(w);
    }, TAIL_DEBOUNCE_MS);
  }

  private async run(w: Watch): Promise<void> {
    if (w.running) {
      w.again = true;
      return;
    }
    w.running = true;
    w.seen = statOf(w.path);
    try {
      const update = await updateTail(this.options.store, await w.state);
      if (update && !w.closed) {
        for (const id of update.deleted) {
          this.options.invalidate(id);
          w.sessions.delete(id);
        }
        for (const s of update.sessions) {
          const w = s.written;
          this.options.invalidate(
            s.id,
            w && {
              from: s.changedFrom,
              previous: w.previous,
              messages: w.messages,
              ...(w.compactions ? { compactions: w.compactions } : {}),
            },
          );
          this.options.emit('sessionUpdated', { sessionId: s.id, steps: s.steps, messages: s.messages, rewritten: update.rewritten });
          if (update.fast) this.scheduleRecount(s.id);
        }
      }
    } catch (e) {
      const first = [...w.sessions.keys()][0];
      if (e instanceof TailError && e.reopen && first !== undefined) {
        // Imported again (same sessions, new source row): follow on from what is stored now.
        w.state = openTail(this.options.store, first);
        w.state.catch(() => undefined);
        w.again = true;
        w.prepared = false;
      } else this.options.onError?.(`live tail of ${w.path}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      if (!this.release(w) && !w.prepared && !w.closed) void this.prepare(w);
    }
  }

  /** The watch's lock let go: an update that arrived meanwhile runs next (true), or none waits. */
  private release(w: Watch): boolean {
    w.running = false;
    if (!w.again) return false;
    w.again = false;
    this.schedule(w);
    return true;
  }

  /**
   * After the first update, while nothing is appended: what the format's appends read of the
   * stored session, read a slice per turn of the event loop (store/tail.ts prepareTail), under the
   * watch's lock — an append that arrives meanwhile stops it and runs next.
   */
  private async prepare(w: Watch): Promise<void> {
    if (w.running) return;
    w.running = true;
    try {
      w.prepared = await prepareTail(this.options.store, await w.state, () => w.closed || w.again);
    } catch {
      // The next update reads what it needs itself.
      w.prepared = true;
    } finally {
      this.release(w);
    }
  }

  /** The recount of a session's extended counts, once updates leave it quiet (RECOUNT_DELAY_MS). */
  private scheduleRecount(sessionId: string): void {
    if (!this.options.recount) return;
    const pending = this.recounts.get(sessionId);
    const since = pending?.since ?? Date.now();
    if (pending) clearTimeout(pending.timer);
    const delay = Math.max(0, Math.min(this.options.recountDelayMs ?? RECOUNT_DELAY_MS, since + RECOUNT_MAX_WAIT_MS - Date.now()));
    const timer = unref(
      setTimeout(() => {
        this.recounts.delete(sessionId);
        // A session deleted meanwhile (file rewritten) has no counts left: nothing is asked.
        for (const t of this.extendedCounts(sessionId)) this.options.recount?.(sessionId, t);
      }, delay),
    );
    this.recounts.set(sessionId, { timer, since });
  }

  /**
   * Tokenizers whose stored counts of a session are not the chars/4 estimates. Counts are stored
   * under `tokenizer@vN` (core/tokens/version.ts): the key is not a tokenizer name (a count of
   * `calibrated@v1` fails), and counts of another version are never read, so none is asked for.
   */
  private extendedCounts(sessionId: string): string[] {
    const suffix = countsKey('');
    const keys = this.options.store.db
      .prepare('SELECT tokenizer FROM token_counts WHERE session_id = ?')
      .pluck()
      .all(sessionId) as string[];
    return keys
      .filter((k) => k.endsWith(suffix))
      .map((k) => k.slice(0, -suffix.length))
      .filter((t) => t !== 'chars4');
  }

  private stop(w: Watch): void {
    w.closed = true;
    w.watcher?.close();
    clearInterval(w.poll);
    if (w.timer !== undefined) clearTimeout(w.timer);
    this.watches.delete(w.path);
    // A document's arrays, kept for a watch begun again (not while an update may still move them on).
    if (!w.running)
      w.state.then(
        (s) => closeTail(this.options.store, s),
        () => undefined,
      );
  }

  close(): void {
    for (const w of [...this.watches.values()]) this.stop(w);
    for (const r of this.recounts.values()) clearTimeout(r.timer);
    this.recounts.clear();
  }
}
