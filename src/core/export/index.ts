/** Export: transcripts back to the formats people use, and replay reports. */
export {
  exportMessages,
  exportRedacted,
  exportReport,
  sessionInput,
  REPORT_TARGETS,
  TRANSCRIPT_TARGETS,
  type Exported,
  type ExportInput,
  type ReportTarget,
  type TranscriptTarget,
} from './writers';
export { windowAt, type WindowAt } from './window-at';
export {
  BUILTIN_GROUPS,
  createRedactor,
  patternProblems,
  type BuiltinGroup,
  type Redactor,
  type RedactorOptions,
  type SecretFinding,
  type SecretScanner,
} from './redact';
export { exportFileName, withExtension, sanitizeStem } from './file-name';
