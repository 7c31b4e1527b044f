/**
 * The one way a slice asks the host for something and applies the answer. Answers arrive out of
 * order and late: the user may have opened another session, or asked again with newer inputs,
 * while a request was on its way. `send` applies an answer only while it is still current — the
 * session open when it was sent is still open, and no newer request of the same `lane` was sent
 * since — and otherwise drops it without a trace. A current failure is shown (the window's error
 * line unless the caller says where); a `cancelled` one (the host stopped a superseded request)
 * never is.
 */
import { ApiError } from '../../../shared/api';

/** The text shown for any failure: the error's message, or the thrown value as text. */
export const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The contract's error code of a failure (`bad_input`, `cancelled`, …); null for any other error. */
export const codeOf = (e: unknown): string | null => (e instanceof ApiError ? e.code : null);

/** What `send` needs of the store: the open session, and where a failure is shown by default. */
export interface RequestHost {
  readonly get: () => { currentId: string | null };
  /** The window's error line, or the slice's own error field. */
  readonly showError: (message: string) => void;
}

export interface SendOptions<T> {
  /** Requests of one lane supersede each other: only the latest one's answer is applied. */
  readonly lane?: string;
  /** The session the request is for (default: the one open now); null: not tied to a session. */
  readonly session?: string | null;
  /** Applies a current answer. */
  readonly onAnswer?: (value: T) => void | Promise<void>;
  /** Shows a current failure (default: the host's showError). Never called for `cancelled`. */
  readonly onError?: (message: string, error: unknown) => void;
  /** Runs after a current answer or failure (also a cancelled one): e.g. clears the session's page flags. */
  readonly onSettled?: () => void;
  /** Runs when the request ends, current or not: a flag that belongs to the request, not to a session (a busy button). */
  readonly onEnd?: () => void;
}

export interface Requests {
  /**
   * Sends `call` and applies its answer while current (see the module comment). Resolves true
   * when the answer was applied, false when it was dropped or failed; it never rejects for the
   * request's own failure (onAnswer's own errors do propagate).
   */
  send<T>(call: () => Promise<T>, options?: SendOptions<T>): Promise<boolean>;
  /** Makes every request of `lane` on its way stale (e.g. a new session is being opened). */
  supersede(lane: string): void;
}

export function createRequests(host: RequestHost): Requests {
  const latest = new Map<string, number>();
  const supersede = (lane: string): void => {
    latest.set(lane, (latest.get(lane) ?? 0) + 1);
  };

  // Everything up to the host call runs at once, in the caller's task: the session and the lane's
  // turn are those of the moment the request is sent.
  const sendOnce = async <T>(call: () => Promise<T>, options: SendOptions<T>): Promise<boolean> => {
    const { lane, onAnswer, onError, onSettled } = options;
    const session = options.session === undefined ? host.get().currentId : options.session;
    let mine = 0;
    if (lane !== undefined) {
      supersede(lane);
      mine = latest.get(lane)!;
    }
    const current = (): boolean =>
      (session === null || host.get().currentId === session) && (lane === undefined || latest.get(lane) === mine);
    let value: T;
    try {
      value = await call();
    } catch (e) {
      if (!current()) return false;
      if (codeOf(e) !== 'cancelled') {
        if (onError) onError(describe(e), e);
        else host.showError(describe(e));
      }
      onSettled?.();
      return false;
    }
    if (!current()) return false;
    try {
      await onAnswer?.(value);
    } finally {
      if (current()) onSettled?.();
    }
    return true;
  };

  return {
    supersede,
    async send(call, options = {}) {
      try {
        return await sendOnce(call, options);
      } finally {
        options.onEnd?.();
      }
    },
  };
}
