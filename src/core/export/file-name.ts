/**
 * File names for exports: derived from the session's title (or id), one extension, safe to save
 * on Windows, macOS and Linux. A title is untrusted text from a transcript: it may hold path
 * separators, control characters, bidi overrides that disguise the extension, a reserved device
 * name (`CON`, `NUL`…), or already end in the source file's extension (which gave names like
 * `session.jsonl.jsonl`).
 */

/**
 * Longest title kept, and longest whole name before the extension, in code points: file systems
 * cap a name at 255 bytes and UTF-8 takes up to 4 per code point.
 */
const MAX_TITLE = 60;
const MAX_NAME = 120;
/** Windows device names, refused as a name before its first dot whatever the extension. */
const RESERVED = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
/** Extensions of the files transcripts and exports come in: stripped from the end of a title. */
const KNOWN_EXTENSION = /\.(?:jsonl|ndjson|json|md|markdown|csv|txt|log)$/i;
// Controls, path separators, characters Windows refuses, and bidi / zero-width formatting marks.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f/\\<>:"|?*\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]+/g;

/** A title made safe to be the first part of a file name; `fallback` when nothing is left. */
export function sanitizeStem(title: string, fallback = 'session', max = MAX_TITLE): string {
  let s = title.normalize('NFC').replace(UNSAFE, '-').replace(/\s+/g, ' ').trim();
  // Hidden files and `..`: no leading dots; Windows drops trailing dots and spaces.
  s = s.replace(/^[.\s-]+/, '');
  while (KNOWN_EXTENSION.test(s)) s = s.replace(KNOWN_EXTENSION, '');
  const points = Array.from(s);
  if (points.length > max) s = points.slice(0, max).join('');
  s = s.replace(/[.\s-]+$/, '');
  if (s.length === 0) s = fallback;
  if (RESERVED.test(s.split('.')[0]!.trim())) s = `_${s}`;
  return s;
}

/**
 * `name` with exactly one `.extension` at its end: a name the user typed is cleaned like a title
 * and the extension is added unless it is already there.
 */
export function withExtension(name: string, extension: string): string {
  const ext = extension.replace(/^\.+/, '').toLowerCase();
  let stem = name.normalize('NFC').trim();
  if (stem.toLowerCase().endsWith(`.${ext}`)) stem = stem.slice(0, -(ext.length + 1));
  return `${sanitizeStem(stem, 'export', MAX_NAME)}.${ext}`;
}

export interface FileNameParts {
  /** The session's title (first prompt, instance id, file name…); the id when it has none. */
  readonly title: string;
  /** Set when the export is a replay's compacted history or report. */
  readonly policy?: string;
  /** The call the compacted history is taken at; absent for the whole session or the end. */
  readonly call?: number;
  readonly report?: boolean;
  /** Named only when the extension alone does not tell it (`openai` and `anthropic` are both .json). */
  readonly format?: string;
  readonly extension: string;
}

/** `Fix the login bug.claude-code.call-412.openai.json`, `41.jsonl`, `Fix the login bug.s3.report.csv`. */
export function exportFileName(p: FileNameParts): string {
  const parts = [sanitizeStem(p.title)];
  if (p.policy) parts.push(sanitizeStem(p.policy, 'policy'));
  if (p.call !== undefined) parts.push(`call-${p.call}`);
  if (p.report) parts.push('report');
  if (p.format && p.format !== p.extension) parts.push(sanitizeStem(p.format, 'export'));
  return withExtension(parts.join('.'), p.extension);
}
