/**
 * What the host asks the replay engine (replays.ts), in the worker thread or in its own thread:
 * plain data both ways (typed arrays survive postMessage's structured clone), errors as the
 * contract's codes so a worker's `bad_input` reaches the renderer as `bad_input`.
 */
import type { ReplayResult } from '../../core/replay/types';
import type { ChartViewWire } from '../../shared/marker-columns';
import { ApiError, type ApiErrorCode, type CompareView, type JsonText, type ReplayView, type StepDetail } from '../../shared/api';
import { replayKey, type ReplayInputs, type ReplayService } from './replays';
import type { SessionAppend } from './session-append';
import type { SessionDetailBody } from './session-detail';

export type ReplayOp =
  | { readonly op: 'chart'; readonly inputs: ReplayInputs; readonly buckets: number }
  | { readonly op: 'detail'; readonly inputs: ReplayInputs; readonly step: number }
  | { readonly op: 'view'; readonly inputs: ReplayInputs }
  | { readonly op: 'result'; readonly inputs: ReplayInputs }
  | { readonly op: 'compare'; readonly a: ReplayInputs; readonly b: ReplayInputs; readonly minDelta: number }
  /** A session's detail: parsed where the replays parse it, off the thread that answers requests. */
  | {
      readonly op: 'session';
      readonly sessionId: string;
      /** A session being imported is read on by a step first (growing.ts): a window has drawn a chart of what is held. */
      readonly readOn?: boolean;
    };

export interface ReplayOpResults {
  chart: JsonText<ChartViewWire>;
  detail: StepDetail;
  view: ReplayView;
  result: ReplayResult;
  compare: CompareView;
  session: SessionDetailBody;
}
export type ReplayOpName = ReplayOp['op'];
export type ReplayOpOf<K extends ReplayOpName> = Extract<ReplayOp, { op: K }>;

/** Host → worker. */
/**
 * What to forget of a session: its counts and results (exact counts stored since; with the
 * message's `tokenizer`, only that tokenizer's counts and the replays that read them), or
 * everything (re-imported).
 */
export type ForgetWhat = 'counts' | 'session';
export type ToReplayWorker =
  | { readonly type: 'run'; readonly id: number; readonly op: ReplayOp }
  | {
      readonly type: 'forget';
      readonly sessionId: string;
      readonly what: ForgetWhat;
      readonly append?: SessionAppend;
      readonly tokenizer?: string;
    }
  /**
   * A session being imported (`on`), again grown by a chunk that wrote messages from `from` on, or
   * wholly imported (`on` false): the worker holds a prefix of it and reads on by steps (growing.ts).
   */
  | { readonly type: 'growing'; readonly sessionId: string; readonly on: boolean; readonly from?: number };
/**
 * What the worker asks of the host, which holds the one writing connection: count a session
 * exactly under a tokenizer in the background, or keep a summary (a remote one cost money).
 */
export type WorkerNote =
  | { readonly type: 'count'; readonly sessionId: string; readonly tokenizer: string }
  | { readonly type: 'summary'; readonly key: string; readonly value: string };
/** Worker → host: an answer, or a note. */
export type FromReplayWorker =
  | { readonly id: number; readonly ok: true; readonly value: ReplayOpResults[ReplayOpName] }
  | { readonly id: number; readonly ok: false; readonly code: ApiErrorCode; readonly message: string }
  | WorkerNote;

/** Whatever the worker was given when it started. */
export interface ReplayWorkerData {
  readonly dbPath: string;
  readonly nativeBinding?: string;
  /** The host counts exactly in the background: replay on estimates and ask for counts (see ReplayServiceDeps.requestCount). */
  readonly countsInBackground?: boolean;
  /**
   * Two Int32s (Atomics), since no message reaches a thread busy replaying: [0] the id of a run to
   * stop, which the worker's replay loop reads while it runs; [1] the id of the newest run posted,
   * which a warm-up in the worker's idle time reads to stop for a request waiting.
   */
  readonly stop?: SharedArrayBuffer;
}

/** `shouldStop`: the scheduler superseded this request (cooperative cancellation, checked by the replay loop). */
export async function dispatch(service: ReplayService, op: ReplayOp, shouldStop?: () => boolean): Promise<ReplayOpResults[ReplayOpName]> {
  switch (op.op) {
    case 'chart':
      return service.chart(op.inputs, op.buckets, shouldStop);
    case 'detail':
      return service.detail(op.inputs, op.step, shouldStop);
    case 'view':
      return service.view(op.inputs, shouldStop);
    case 'result':
      return service.result(op.inputs, shouldStop);
    case 'compare':
      return service.compare(op.a, op.b, { minDelta: op.minDelta }, shouldStop);
    case 'session':
      return service.session(op.sessionId);
  }
}

/** The session an op reads, if any. */
export const sessionReadBy = (op: ReplayOp): string | undefined =>
  op.op === 'session' ? op.sessionId : op.op === 'compare' ? op.a.sessionId : op.inputs.sessionId;

/** The replays an op needs, by cache key: a newer request needing the same one must not stop it. */
export function replaysOf(op: ReplayOp): string[] {
  if (op.op === 'session') return [];
  return op.op === 'compare' ? [replayKey(op.a), replayKey(op.b)] : [replayKey(op.inputs)];
}

/** An error as it crosses the thread: the contract's code, or `internal` with the message. */
export function errorReply(id: number, e: unknown): FromReplayWorker {
  if (e instanceof ApiError) return { id, ok: false, code: e.code, message: e.message };
  return { id, ok: false, code: 'internal', message: e instanceof Error ? e.message : String(e) };
}
