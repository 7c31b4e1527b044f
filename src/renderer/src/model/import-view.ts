/** Display helpers for imports (pure): sizes, durations, and an importer's error split into its parts. */

/** Decimal units, as file managers and `ls -h --si` show them. */
export function fmtBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} KB`;
  return `${Math.round(n)} B`;
}

export function fmtDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** When a file was last written, as a local date and time to the minute. */
export function fmtWhen(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export interface ImportErrorParts {
  readonly file: string;
  readonly line: number | null;
  readonly column: number | null;
  /** What the importer expected (and, in parentheses, what it found). */
  readonly expected: string;
}

/**
 * The importers' messages read `FILE[:LINE[:COLUMN]]: EXPECTED` (core/import/types.ts ImportError).
 * Anything else (a refused path, a lost connection) comes back whole as `expected`, with `file` the
 * file the user picked.
 */
export function importErrorParts(message: string, file: string): ImportErrorParts {
  const m = /^(.+?):(\d+)(?::(\d+))?: ([\s\S]+)$/.exec(message);
  if (m) return { file: m[1]!, line: Number(m[2]), column: m[3] ? Number(m[3]) : null, expected: m[4]! };
  const plain = /^([^:\s][^:]*\.[A-Za-z0-9]+): ([\s\S]+)$/.exec(message);
  if (plain) return { file: plain[1]!, line: null, column: null, expected: plain[2]! };
  return { file, line: null, column: null, expected: message };
}
