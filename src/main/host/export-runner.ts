/**
 * The host's exportSession and previewExport off the request thread: the
 * replay a windowed export or a report needs comes from the host's replay path as before (its
 * worker and cache); the build and the redaction scan run in the export worker pool
 * (src/main/export/pool.ts). A newer preview on the same channel (the dialog previews as the user
 * types patterns) supersedes the older: that one answers `cancelled` at once, and its worker is
 * ended, so a stale scan does not hold a thread. The session is not parsed here: the worker reads
 * it from the database itself (given `store`); only with a database a worker cannot open
 * (`:memory:`, tests) is it parsed here and sent. getAccuracy runs in the same pool.
 */
import type { Session } from '../../core/model';
import { ApiError, type AccuracyView, type ExportPreview, type ExportResult, type MethodArgs } from '../../shared/api';
import { ExportPool } from '../export/pool';
import type { StoreRef } from '../export/protocol';
import { previewFor } from './export-preview';
import type { ReplayResult } from '../../core/replay/types';
import { withoutSummary } from '../../core/replay/serialize';
import { exportFor, type BuildFn, type ExportArgs, type ExportRow, type ReplayOf } from './exports';

/** The parsed session, asked for only when there is no database a worker can read it from. */
export type SessionOf = () => Session;
/**
 * The stored row: its naming fields, and what says the stored session changed (a live tail adds
 * messages; a re-import is imported again), which keys the copy a worker holds.
 */
export interface HostRow extends ExportRow {
  readonly importedAt: number;
  readonly messageCount: number;
}

export interface Exporter {
  exportFor(session: SessionOf, row: HostRow, args: MethodArgs<'exportSession'>, replayOf: ReplayOf): Promise<ExportResult>;
  previewFor(session: SessionOf, row: HostRow, args: MethodArgs<'previewExport'>, replayOf: ReplayOf): Promise<ExportPreview>;
  accuracy(session: SessionOf, row: HostRow, tokenizer: string | undefined): Promise<AccuracyView>;
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
 * compressions and the tool-preflight events (windowAt reads nothing else of the events, nor the
 * retention). The guard and
 * warning events of a 10,000-call replay took ~100 ms of this thread to send.
 */
export function replayForWorker(replay: ReplayResult, args: ExportArgs): ReplayResult {
  if (args.to === 'report-json' || args.to === 'report-csv') return replay;
  // The compressions up to the call, and only the last one's summary: sending an event writes its
  // summary's text (core/summarize/summary-text.ts), tens of KB per compression.
  const upTo = args.at === 'end' ? Number.POSITIVE_INFINITY : args.at;
  const compressions = replay.events.filter((e) => e.kind === 'compression' && e.step <= upTo);
  const lastCompression = compressions.at(-1);
  // And the tool-preflight events: an output the replay offloaded or cut is exported as it was counted (core/export/tool-outputs.ts).
  const events = replay.events
    .filter((e) => (e.kind === 'compression' || e.kind === 'tool-preflight') && e.step <= upTo)
    .map((e) => (e.kind !== 'compression' || e === lastCompression ? e : withoutSummary(e)));
  return { ...replay, events, retention: { lost: [] } };
}

/** `store`: the database the workers read sessions from; without it the host sends its parsed ones. */
export function createExporter(pool: ExportPool = new ExportPool(), store?: StoreRef): Exporter {
  const previews = new Map<string, AbortController>();
  // A stamp per session object: the host replaces a session that changes (live tail), never edits it.
  const stamps = new WeakMap<Session, string>();
  let nextStamp = 0;
  const keyOf = (session: Session): string => {
    let k = stamps.get(session);
    if (!k) stamps.set(session, (k = `${session.id}#${nextStamp++}`));
    return k;
  };
  /** What the worker is told of the session: the database and a key naming the stored version, or the parsed object. */
  const sourceOf = (session: SessionOf, row: HostRow): { sessionKey: string; session: Session | null; store: StoreRef | null } => {
    if (store) return { sessionKey: `${row.id}@${row.importedAt}/${row.messageCount}`, session: null, store };
    const s = session();
    return { sessionKey: keyOf(s), session: s, store: null };
  };
  const offThread =
    (host: HostRow, withText: boolean, signal?: AbortSignal): BuildFn<SessionOf> =>
    async (session, row, args, replayOf) => {
      const replay = args.policy ? replayForWorker(await unlessAborted(replayOf(args.policy), signal), args) : null;
      return pool.run(
        { ...sourceOf(session, host), row: { id: row.id, title: row.title, sourcePath: row.sourcePath }, args, replay, withText },
        signal,
      );
    };
  return {
    exportFor: (session, row, args, replayOf) => exportFor(session, row, args, replayOf, offThread(row, true)),
    accuracy: (session, row, tokenizer) => pool.accuracy({ ...sourceOf(session, row), sessionId: row.id, tokenizer }),
    async previewFor(session, row, args, replayOf) {
      const { channel = 'export', ...request } = args;
      previews.get(channel)?.abort(`superseded by a newer preview on channel "${channel}"`);
      const abort = new AbortController();
      previews.set(channel, abort);
      try {
        return await previewFor(session, row, request, replayOf, offThread(row, false, abort.signal));
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
