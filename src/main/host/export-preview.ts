/**
 * previewExport: what the export dialog shows before saving — the file name, the messages in the
 * export and the redaction count by kind — from the same builder the save uses (exports.ts), so
 * the preview cannot promise something the file does not hold.
 */
import { patternProblems } from '../../core/export/index';
import type { Session } from '../../core/model';
import type { ExportPreview } from '../../shared/api';
import { buildExport, type BuildFn, type ExportArgs, type ExportRow, type ReplayOf } from './exports';

/** A user pattern that does not compile is reported on its line and left out of the counts. */
export async function previewFor<S = Session>(
  session: S,
  row: ExportRow,
  args: ExportArgs,
  replayOf: ReplayOf,
  build: BuildFn<S> = buildExport as BuildFn<S>,
): Promise<ExportPreview> {
  const problems = patternProblems(args.redactPatterns);
  const usable = args.redactPatterns.filter((_, i) => problems[i] === null);
  const b = await build(session, row, { ...args, redactPatterns: usable }, replayOf);
  return {
    fileName: b.fileName,
    extension: b.extension,
    messages: b.messages,
    redactions: b.redactions,
    byKind: b.byKind,
    patternProblems: problems,
  };
}
