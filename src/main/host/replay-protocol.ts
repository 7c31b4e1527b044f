/**
 * What the host asks the replay engine (replays.ts), in the worker thread or in its own thread:
 * plain data both ways (typed arrays survive postMessage's structured clone), errors as the
 * contract's codes so a worker's `bad_input` reaches the renderer as `bad_input`.
 */
import type { ReplayResult } from '../../core/replay/types';
import { ApiError, type ApiErrorCode, type ChartView, type CompareView, type ReplayView, type StepDetail } from '../../shared/api';
import type { ReplayInputs, ReplayService } from './replays';

export type ReplayOp =
  | { readonly op: 'chart'; readonly inputs: ReplayInputs; readonly buckets: number }
  | { readonly op: 'detail'; readonly inputs: ReplayInputs; readonly step: number }
  | { readonly op: 'view'; readonly inputs: ReplayInputs }
  | { readonly op: 'result'; readonly inputs: ReplayInputs }
  | { readonly op: 'compare'; readonly a: ReplayInputs; readonly b: ReplayInputs; readonly minDelta: number };

export interface ReplayOpResults {
  chart: ChartView;
  detail: StepDetail;
  view: ReplayView;
  result: ReplayResult;
  compare: CompareView;
}
export type ReplayOpName = ReplayOp['op'];
export type ReplayOpOf<K extends ReplayOpName> = Extract<ReplayOp, { op: K }>;

/** Host → worker. */
export type ToReplayWorker = { readonly type: 'run'; readonly id: number; readonly op: ReplayOp } | { readonly type: 'forget'; readonly sessionId: string };
/** Worker → host. */
export type FromReplayWorker =
  | { readonly id: number; readonly ok: true; readonly value: ReplayOpResults[ReplayOpName] }
  | { readonly id: number; readonly ok: false; readonly code: ApiErrorCode; readonly message: string };

/** Whatever the worker was given when it started. */
export interface ReplayWorkerData {
  readonly dbPath: string;
  readonly nativeBinding?: string;
}

export async function dispatch(service: ReplayService, op: ReplayOp): Promise<ReplayOpResults[ReplayOpName]> {
  switch (op.op) {
    case 'chart':
      return service.chart(op.inputs, op.buckets);
    case 'detail':
      return service.detail(op.inputs, op.step);
    case 'view':
      return service.view(op.inputs);
    case 'result':
      return service.result(op.inputs);
    case 'compare':
      return service.compare(op.a, op.b, { minDelta: op.minDelta });
  }
}

/** An error as it crosses the thread: the contract's code, or `internal` with the message. */
export function errorReply(id: number, e: unknown): FromReplayWorker {
  if (e instanceof ApiError) return { id, ok: false, code: e.code, message: e.message };
  return { id, ok: false, code: 'internal', message: e instanceof Error ? e.message : String(e) };
}
