/**
 * What the export worker (export-worker.ts) is given and answers. The host resolves the replay
 * first (its own replay path and cache, as before) and sends it with the session: the worker only
 * builds and scans, so it needs nothing from the store.
 */
import type { Session } from '../../core/model';
import type { ReplayResult } from '../../core/replay/types';
import type { ApiErrorCode } from '../../shared/api';
import type { Built, ExportArgs, ExportRow } from '../host/exports';

export interface ExportTask {
  readonly session: Session;
  readonly row: ExportRow;
  readonly args: ExportArgs;
  /** The replay under `args.policy`, when the export names one (the window at a call, the report). */
  readonly replay: ReplayResult | null;
  /** False for a preview: the text stays in the worker (it can be megabytes; only its counts are shown). */
  readonly withText: boolean;
}

/** A failure travels as data: an Error crossing the thread boundary would lose its ApiError code. */
export type ExportReply = { readonly ok: true; readonly built: Built } | { readonly ok: false; readonly code: ApiErrorCode; readonly message: string };
