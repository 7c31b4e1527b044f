/**
 * exportSession and previewExport for the host: the original session, the compacted history of a
 * replay at a call, or the replay's report — one code path, so the preview's file name and counts
 * are exactly what the save produces.
 */
import {
  createRedactor,
  exportFileName,
  exportMessages,
  exportRedacted,
  exportReport,
  sessionInput,
  windowAt,
  type ExportInput,
  type TranscriptTarget,
} from '../../core/export/index';
import { PatternError } from '../../core/pattern';
import { secretlintScanner } from '../secret-scan';
import type { Session } from '../../core/model';
import { ApiError, type ExportResult, type MethodArgs } from '../../shared/api';
import type { ReplayResult } from '../../core/replay/types';

export type ExportArgs = MethodArgs<'exportSession'>;
/** The stored row's naming fields (src/main/store). */
export interface ExportRow {
  readonly id: string;
  readonly title: string | null;
  readonly sourcePath: string;
}
export type ReplayOf = (policy: string) => Promise<ReplayResult>;
/**
 * Builds an export: buildExport in this thread, or the same in the export worker (export-runner.ts),
 * which is handed not a parsed session but how the worker gets it (`S`).
 */
export type BuildFn<S = Session> = (session: S, row: ExportRow, args: ExportArgs, replayOf: ReplayOf) => Promise<Built>;

export interface Built {
  readonly fileName: string;
  readonly mime: string;
  readonly extension: string;
  readonly text: string;
  readonly messages: number | null;
  readonly redactions: number;
  readonly byKind: Readonly<Record<string, number>>;
}

const builtinsOf = (args: ExportArgs) => (args.builtins ? { builtins: args.builtins } : {});

/** The export the request asks for, with what the preview reports about it. */
export async function buildExport(session: Session, row: ExportRow, args: ExportArgs, replayOf: ReplayOf): Promise<Built> {
  const isReport = args.to === 'report-json' || args.to === 'report-csv';
  if (isReport && !args.policy) throw new ApiError('bad_input', `${args.to}: a policy is required (a report describes a replay)`);
  // The same title the library shows: the agent's, else the source file's name, else the id.
  const shown = row.title ?? row.sourcePath.split(/[\\/]/).pop() ?? row.id;
  // A pattern to redact is a request to redact (as `export --redact-pattern` on the command line).
  const redact = args.redact || args.redactPatterns.length > 0;
  try {
    // The file name is shown and saved too: a redacted export redacts it like the rest.
    // Its replacements are counted with the rest: the heading of the file holds the title (already redacted here).
    const titleRedactor = redact ? createRedactor(args.redactPatterns, secretlintScanner, builtinsOf(args)) : null;
    const title = titleRedactor ? (await titleRedactor.redact([shown]))[0]! : shown;
    if (isReport) {
      const e = exportReport(await replayOf(args.policy!), args.to as 'report-json', session);
      return {
        ...e,
        fileName: exportFileName({ title, policy: args.policy!, report: true, extension: e.extension }),
        messages: null,
        byKind: {},
      };
    }
    const to = args.to as TranscriptTarget;
    let input: ExportInput = sessionInput(session);
    let heading = title;
    if (args.policy) {
      const w = windowAt(await replayOf(args.policy), session.messages, args.at);
      input = sessionInput(session, w.messages, w.summary);
      heading = `${title} under ${args.policy} ${args.at === 'end' ? 'at the end' : `at call ${args.at}`}`;
    }
    const e = redact
      ? await exportRedacted(input, to, { patterns: args.redactPatterns, title: heading, scanner: secretlintScanner, ...builtinsOf(args) })
      : { ...exportMessages(input, to, { title: heading }), byKind: {} };
    const fileName = exportFileName({
      title,
      ...(args.policy ? { policy: args.policy } : {}),
      ...(args.policy && args.at !== 'end' ? { call: args.at } : {}),
      format: to,
      extension: e.extension,
    });
    const byKind: Record<string, number> = { ...e.byKind };
    for (const [k, n] of Object.entries(titleRedactor?.byKind ?? {})) byKind[k] = (byKind[k] ?? 0) + n;
    return {
      fileName,
      mime: e.mime,
      extension: e.extension,
      text: e.text,
      messages: input.messages.length,
      redactions: e.redactions + (titleRedactor?.count ?? 0),
      byKind,
    };
  } catch (e) {
    if (e instanceof RangeError || e instanceof PatternError) throw new ApiError('bad_input', e.message);
    throw e;
  }
}

/** `replayOf` runs (or finds in the cache) the replay of the session under a policy and the request's overrides. */
export async function exportFor<S = Session>(
  session: S,
  row: ExportRow,
  args: ExportArgs,
  replayOf: ReplayOf,
  build: BuildFn<S> = buildExport as BuildFn<S>,
): Promise<ExportResult> {
  const b = await build(session, row, args, replayOf);
  return { fileName: b.fileName, mime: b.mime, text: b.text, redactions: b.redactions };
}
