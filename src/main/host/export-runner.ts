/**
 * The host's exportSession and previewExport off the request thread (issue 14 item 4): the
 * replay a windowed export or a report needs comes from the host's replay path as before (its
 * worker and cache); the build and the redaction scan run in the export worker pool
 * (src/main/export/pool.ts). A newer preview on the same channel (the dialog previews as the user
 * types patterns) supersedes the older: that one answers `cancelled` at once, and its worker is
 * ended, so a stale scan does not hold a thread.
 */
import type { Session } from '../../core/model';
import { ApiError, type ExportPreview, type ExportResult, type MethodArgs } from '../../shared/api';
import { ExportPool } from '../export/pool';
import { previewFor } from './export-preview';
import type { ReplayResult } from '../../core/replay/types';
import { exportFor, type BuildFn, type ExportArgs, type ExportRow, type ReplayOf } from './exports';

export interface Exporter {
  exportFor(session: Session, row: ExportRow, args: MethodArgs<'exportSession'>, replayOf: ReplayOf): Promise<ExportResult>;
  previewFor(session: Session, row: ExportRow, args: MethodArgs<'previewExport'>, replayOf: ReplayOf): Promise<ExportPreview>;
  close(): Promise<void>;
}

/** Resolves `p`, unless `signal` aborts first: then `cancelled` (the replay itself goes on, for its cache). */
function unlessAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new ApiError('cancelled', String(signal.reason ?? 'cancelled')));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * What the worker needs of a replay: all of it for a report; for the history at a call only the
 * compressions (windowAt reads nothing else of the events, nor the retention). The guard and
 * warning events of a 10,000-call replay took ~100 ms of this thread to send.
 */
export function replayForWorker(replay: ReplayResult, args: ExportArgs): ReplayResult {
  if (args.to === 'report-json' || args.to === 'report-csv') return replay;
  return { ...replay, events: replay.events.filter((e) => e.kind === 'compression'), retention: { lost: [] } };
}

export function createExporter(pool: ExportPool = new ExportPool()): Exporter {
  const previews = new Map<string, AbortController>();
  // A stamp per session object: the host replaces a session that changes (live tail), never edits it.
  const stamps = new WeakMap<Session, string>();
  let nextStamp = 0;
  const keyOf = (session: Session): string => {
    let k = stamps.get(session);
    if (!k) stamps.set(session, (k = `${session.id}#${nextStamp++}`));
    return k;
  };
  const offThread =
    (withText: boolean, signal?: AbortSignal): BuildFn =>
    async (session, row, args, replayOf) => {
      const replay = args.policy ? replayForWorker(await unlessAborted(replayOf(args.policy), signal), args) : null;
      return pool.run({ sessionKey: keyOf(session), session, row, args, replay, withText }, signal);
    };
  return {
    exportFor: (session, row, args, replayOf) => exportFor(session, row, args, replayOf, offThread(true)),
    async previewFor(session, row, args, replayOf) {
      const { channel = 'export', ...request } = args;
      previews.get(channel)?.abort(`superseded by a newer preview on channel "${channel}"`);
      const abort = new AbortController();
      previews.set(channel, abort);
      try {
        return await previewFor(session, row, request, replayOf, offThread(false, abort.signal));
      } finally {
        if (previews.get(channel) === abort) previews.delete(channel);
      }
    },
    async close() {
      for (const a of previews.values()) a.abort('the host closed');
      previews.clear();
      await pool.close();
    },
  };
}
