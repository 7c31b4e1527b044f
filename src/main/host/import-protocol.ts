/** Messages between the host and its import worker thread. */
import type { FormatId } from '../../core/model';
import type { StoredImport } from '../store/import-file';

export interface ImportWorkerRequest {
  readonly path: string;
  readonly dbPath: string;
  readonly nativeBinding?: string;
  readonly format?: FormatId;
}

export type ImportWorkerReply =
  | { readonly type: 'progress'; readonly bytes: number; readonly sessions: number; readonly messages: number }
  | { readonly type: 'done'; readonly result: StoredImport }
  | { readonly type: 'error'; readonly message: string; readonly badInput: boolean };
