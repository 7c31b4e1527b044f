/**
 * What the export worker (export-worker.ts) is given and answers. The host resolves the replay
 * first (its own replay path and cache, as before) and sends it; the session the worker reads from
 * the database itself through its own read-only connection (`store`), so the host thread never
 * parses a 100 MB session to export it — or, with a database a worker cannot open (`:memory:`),
 * the host sends the one it parsed.
 */
import type { Session } from '../../core/model';
import type { ReplayResult } from '../../core/replay/types';
import type { AccuracyView, ApiErrorCode } from '../../shared/api';
import type { Built, ExportArgs, ExportRow } from '../host/exports';

/** The database a worker opens read-only to load a session by its id. */
export interface StoreRef {
  readonly dbPath: string;
  readonly nativeBinding?: string;
}

/** getAccuracy in the worker: the session as for an export, then counted under `tokenizer`. */
export interface AccuracyTask {
  readonly sessionKey: string;
  readonly sessionId: string;
  readonly store: StoreRef | null;
  readonly session: Session | null;
  readonly tokenizer: string | undefined;
}

export type AccuracyReply =
  | { readonly ok: true; readonly view: AccuracyView }
  | { readonly ok: false; readonly code: ApiErrorCode; readonly message: string }
  | { readonly ok: false; readonly missing: true };

export interface ExportTask {
  /**
   * Names this very session object (its id and a stamp the host gives each object it holds; a
   * session that changes is a new object). A worker keeps the last sessions it was sent under
   * their keys, so the host sends `session` only when the worker answers `missing`: cloning a
   * 10,000-call session took 30–70 ms of the request thread on every keystroke's preview.
   */
  readonly sessionKey: string;
  /** Null on the first try: the worker uses the session it holds under `sessionKey`. */
  readonly session: Session | null;
  /** When given, a worker that does not hold the session loads `row.id` from this database itself. */
  readonly store?: StoreRef | null;
  readonly row: ExportRow;
  readonly args: ExportArgs;
  /** The replay under `args.policy`, when the export names one (the window at a call, the report). */
  readonly replay: ReplayResult | null;
  /** False for a preview: the text stays in the worker (it can be megabytes; only its counts are shown). */
  readonly withText: boolean;
}

/** A failure travels as data: an Error crossing the thread boundary would lose its ApiError code. */
export type ExportReply =
  | { readonly ok: true; readonly built: Built }
  | { readonly ok: false; readonly code: ApiErrorCode; readonly message: string }
  /** The worker does not hold the session under `sessionKey`: send it again with the session. */
  | { readonly ok: false; readonly missing: true };
