/** Messages between the host and its import worker thread. */
import type { FormatId } from '../../core/model';
import type { ImportOutcome } from '../../core/import/index';

export interface ImportWorkerRequest {
  readonly path: string;
  readonly format?: FormatId;
}

export type ImportWorkerReply =
  | { readonly type: 'progress'; readonly bytes: number; readonly sessions: number; readonly messages: number }
  | { readonly type: 'done'; readonly outcome: ImportOutcome }
  | { readonly type: 'error'; readonly message: string; readonly badInput: boolean };
