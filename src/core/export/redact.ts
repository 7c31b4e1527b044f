/**
 * Redaction on export (S3's PII redaction): API keys and tokens, e-mail addresses, and whatever
 * the user's own regexes match, each replaced by a marker; the count says how many.
 */
const BUILTIN: readonly [string, RegExp][] = [
  ['api-key', /\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})\b/g],
  ['token', /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}/g],
  ['email', /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g],
];

export interface Redactor {
  redact(text: string): string;
  readonly count: number;
}

/** Compiles user patterns (`/re/flags` or plain text); a bad regex is a clear error. */
export function createRedactor(userPatterns: readonly string[] = []): Redactor {
  const user: [string, RegExp][] = userPatterns.map((p) => {
    const m = /^\/(.+)\/([imsuy]*)$/.exec(p);
    try {
      return ['custom', m ? new RegExp(m[1]!, m[2]! + 'g') : new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g')];
    } catch (e) {
      throw new Error(`redaction pattern ${p}: not a valid regular expression (${e instanceof Error ? e.message : String(e)})`);
    }
  });
  let count = 0;
  const all = [...BUILTIN, ...user];
  return {
    redact(text) {
      let out = text;
      for (const [label, re] of all) {
        out = out.replace(re, (match: string, prefix?: unknown) => {
          count++;
          return label === 'token' && typeof prefix === 'string' ? `${prefix}[REDACTED:${label}]` : `[REDACTED:${label}]`;
        });
      }
      return out;
    },
    get count() {
      return count;
    },
  };
}
