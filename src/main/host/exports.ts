/** exportSession for the host: the original session, or the compacted history of a replay at a step. */
import { exportMessages, exportReport, sessionInput, windowAt } from '../../core/export/index';
import type { Session } from '../../core/model';
import { ApiError, type ExportResult, type MethodArgs } from '../../shared/api';
import type { ReplayResult } from '../../core/replay/types';

/** `replayOf` runs (or finds in the cache) the replay of the session under a policy and the request's overrides. */
export async function exportFor(session: Session, sourcePath: string, args: MethodArgs<'exportSession'>, replayOf: (policy: string) => Promise<ReplayResult>): Promise<ExportResult> {
  const base = (sourcePath.split(/[\\/]/).pop() ?? 'session').replace(/\.[^.]+$/, '');
  const isReport = args.to === 'report-json' || args.to === 'report-csv';
  if (isReport && !args.policy) throw new ApiError('bad_input', `${args.to}: a policy is required (a report describes a replay)`);
  try {
    if (!args.policy) {
      const e = exportMessages(sessionInput(session), args.to as 'openai', { redact: args.redact, patterns: args.redactPatterns, title: base });
      return { fileName: `${base}.${args.to}.${e.extension}`, mime: e.mime, text: e.text, redactions: e.redactions };
    }
    const result = await replayOf(args.policy);
    if (isReport) {
      const e = exportReport(result, args.to as 'report-json');
      return { fileName: `${base}.${args.policy}.${args.to}.${e.extension}`, mime: e.mime, text: e.text, redactions: 0 };
    }
    const w = windowAt(result, session.messages, args.at);
    const e = exportMessages(sessionInput(session, w.messages, w.summary), args.to as 'openai', { redact: args.redact, patterns: args.redactPatterns, title: `${base} under ${args.policy} at step ${args.at}` });
    return { fileName: `${base}.${args.policy}.${args.at}.${args.to}.${e.extension}`, mime: e.mime, text: e.text, redactions: e.redactions };
  } catch (e) {
    if (e instanceof RangeError || (e instanceof Error && /^redaction pattern/.test(e.message))) throw new ApiError('bad_input', e.message);
    throw e;
  }
}
