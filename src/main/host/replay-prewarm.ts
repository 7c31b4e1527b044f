/**
 * The replay worker's idle time, spent on what the next replay that summarizes would otherwise do
 * inside a request: reading every message's summary items (decisions, errors, files, facts) and
 * laying the session's message list out for folds (summarize/extractive.ts `prepareMessageList`),
 * which makes each fold of it a scan of integer tables. Measured in one process on the bench's
 * 10,000-call session opened under a policy that does not summarize (openhands-recent): letta
 * picked next replayed in 184–218 ms of CPU instead of 394–471, and the first drag after it in
 * 255–269 instead of 316–334. (A session opened under a policy that summarizes everything, as
 * claude-code does at its compactions, has paid most of it inside its first chart already.)
 *
 * Started after a chart is answered, a slice at a time, each slice on its own turn of the event
 * loop: a request arriving meanwhile is handled before the next slice, and stops the work
 * (`interrupt`) until the worker is idle again (`idle`), when it goes on where it stopped. The
 * list is used for folds only once it is laid out whole, so an interrupted preparation costs a
 * request nothing. Once per session: a live-tail append hands the worker a grown list at every
 * append, and laying each out again would spend the idle time of a tailed session on it; folds
 * inside the list it grew from still use that one's layout (the same message objects), and the
 * rest take the per-message path. Nothing here changes any replay's result, only when the work
 * is done.
 */
import type { Message } from '../../core/model';
import { prepareMessageList } from '../../core/summarize/extractive';

/** Milliseconds per slice: a request arriving meanwhile waits no longer than this (and one message's items). */
const SLICE_MS = 2;

export interface Prewarm {
  /** A request arrived: no slice starts until `idle` is called again. */
  interrupt(): void;
  /** The worker is idle after answering for this session: prepare its list (or go on preparing it), once per session. */
  idle(sessionId: string, list: readonly Message[]): void;
  /** Settles when the work started by the last `idle` stopped, done or interrupted (tests). */
  readonly settled: Promise<void>;
}

export interface PrewarmOptions {
  /** Milliseconds per slice (see SLICE_MS). */
  readonly sliceMs?: number;
  /** Runs the next slice on a later turn (setImmediate: after any message waiting). */
  readonly later?: (run: () => void) => void;
}

export function createPrewarm(options: PrewarmOptions = {}): Prewarm {
  const sliceMs = options.sliceMs ?? SLICE_MS;
  const later = options.later ?? ((run: () => void) => void setImmediate(run));
  // Bumped by every interrupt and idle: a slice scheduled under an older one does nothing.
  let generation = 0;
  let settled: Promise<void> = Promise.resolve();
  /** Sessions whose list was laid out whole (their ids only: a list held here would outlive the session). */
  const done = new Set<string>();
  return {
    interrupt() {
      generation++;
    },
    idle(sessionId, list) {
      const mine = ++generation;
      if (done.has(sessionId)) return;
      settled = new Promise<void>((stopped) => {
        const step = (): void => {
          const until = performance.now() + sliceMs;
          if (mine !== generation) return stopped();
          if (prepareMessageList(list, () => performance.now() >= until)) {
            done.add(sessionId);
            return stopped();
          }
          later(step);
        };
        later(step);
      });
    },
    get settled() {
      return settled;
    },
  };
}
