/** Messages between the host and its import worker thread. */
import type { FormatId } from '../../core/model';
import type { StoredImport } from '../store/import-file';
import type { TailUpdate } from '../store/tail';

export interface ImportWorkerRequest {
  readonly path: string;
  readonly dbPath: string;
  readonly nativeBinding?: string;
  readonly format?: FormatId;
  /** Open a big file of lines progressively (store/progressive.ts): `visible`, then `grown` per chunk. */
  readonly progressive?: boolean;
}

/**
 * A worker started ahead of an import (import-spare.ts): it loads the import's code and opens the
 * store, then waits for its request (`start`).
 */
export interface ImportSpareData {
  readonly role: 'spare';
  readonly dbPath: string;
  readonly nativeBinding?: string;
}

/**
 * `start`: a spare worker's import (its request). `cancel`: the host asks a running import to stop:
 * it deletes what it stored (the visible prefix too) and answers `error` with `cancelled`.
 */
export type ImportWorkerCommand = { readonly type: 'cancel' } | { readonly type: 'start'; readonly request: ImportWorkerRequest };

export type ImportWorkerReply =
  | { readonly type: 'progress'; readonly bytes: number; readonly sessions: number; readonly messages: number }
  /** A progressive import stored its prefix: the sessions can be opened (partial until `done`). */
  | { readonly type: 'visible'; readonly result: StoredImport }
  /** A progressive import stored one more chunk. */
  | { readonly type: 'grown'; readonly update: TailUpdate; readonly bytes: number; readonly totalBytes: number }
  | { readonly type: 'done'; readonly result: StoredImport }
  | { readonly type: 'error'; readonly message: string; readonly badInput: boolean; readonly cancelled?: boolean };
