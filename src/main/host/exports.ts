/** exportSession for the host: the original session, or the compacted history of a replay at a step. */
import { createRedactor, exportMessages, exportRedacted, exportReport, sessionInput, windowAt, type ExportInput, type Exported, type TranscriptTarget } from '../../core/export/index';
import { PatternError } from '../../core/pattern';
import { secretlintScanner } from '../secret-scan';
import type { Session } from '../../core/model';
import { ApiError, type ExportResult, type MethodArgs } from '../../shared/api';
import type { ReplayResult } from '../../core/replay/types';

const write = (input: ExportInput, to: TranscriptTarget, args: MethodArgs<'exportSession'>, title: string): Promise<Exported> | Exported =>
  args.redact ? exportRedacted(input, to, { patterns: args.redactPatterns, title, scanner: secretlintScanner }) : exportMessages(input, to, { title });

/** `replayOf` runs (or finds in the cache) the replay of the session under a policy and the request's overrides. */
export async function exportFor(session: Session, sourcePath: string, args: MethodArgs<'exportSession'>, replayOf: (policy: string) => Promise<ReplayResult>): Promise<ExportResult> {
  const name = (sourcePath.split(/[\\/]/).pop() ?? 'session').replace(/\.[^.]+$/, '');
  const isReport = args.to === 'report-json' || args.to === 'report-csv';
  if (isReport && !args.policy) throw new ApiError('bad_input', `${args.to}: a policy is required (a report describes a replay)`);
  try {
    // The file name is shown and saved too: a redacted export redacts it like the rest.
    const base = args.redact ? (await createRedactor(args.redactPatterns, secretlintScanner).redact([name]))[0]! : name;
    if (!args.policy) {
      const e = await write(sessionInput(session), args.to as TranscriptTarget, args, base);
      return { fileName: `${base}.${args.to}.${e.extension}`, mime: e.mime, text: e.text, redactions: e.redactions };
    }
    const result = await replayOf(args.policy);
    if (isReport) {
      const e = exportReport(result, args.to as 'report-json');
      return { fileName: `${base}.${args.policy}.${args.to}.${e.extension}`, mime: e.mime, text: e.text, redactions: 0 };
    }
    const w = windowAt(result, session.messages, args.at);
    const e = await write(sessionInput(session, w.messages, w.summary), args.to as TranscriptTarget, args, `${base} under ${args.policy} at step ${args.at}`);
    return { fileName: `${base}.${args.policy}.${args.at}.${args.to}.${e.extension}`, mime: e.mime, text: e.text, redactions: e.redactions };
  } catch (e) {
    if (e instanceof RangeError || e instanceof PatternError) throw new ApiError('bad_input', e.message);
    throw e;
  }
}
