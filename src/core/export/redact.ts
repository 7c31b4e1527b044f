/**
 * Redaction on export (S3's PII redaction). Three sources of findings, each replaced by
 * `[REDACTED:<kind>]` and counted:
 * - a secret scanner handed in by the host: secretlint's maintained recommended rule set
 *   (src/main/secret-scan.ts), which knows the exact formats of OpenAI, Anthropic, AWS, GitHub,
 *   GitLab, Slack, npm, private keys and many more; core cannot load it (it needs node:path);
 * - a few patterns that set lacks (generic `sk-` keys, Stripe keys, JWTs, Google API keys,
 *   bearer tokens, e-mail addresses);
 * - the user's own patterns.
 * Every pattern runs on RE2 (src/core/pattern.ts), so redaction is linear in the text.
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */
import { compilePattern, type Pattern } from '../pattern';

export interface SecretFinding {
  /** [start, end) in UTF-16 units of the scanned text. */
  readonly start: number;
  readonly end: number;
  /** Short name for the marker, e.g. `github`, `aws`, `privatekey`. */
  readonly kind: string;
}

/** Finds credentials in a text (the host's: secretlint). */
export type SecretScanner = (text: string) => Promise<readonly SecretFinding[]>;

/**
 * The built-in sets a user can switch off one by one (the export dialog's toggles): credentials
 * (the host's scanner and the key patterns below), bearer tokens, e-mail addresses.
 */
export const BUILTIN_GROUPS = ['keys', 'bearer', 'email'] as const;
export type BuiltinGroup = (typeof BUILTIN_GROUPS)[number];

/**
 * kind, set, pattern, and the literals a match must contain (any one of them): a text holding none
 * of them is skipped without running the regex — most strings of a transcript hold no `@`, no
 * `Bearer`, no `sk-`, and setting up a match per string was most of a large export's redaction time.
 */
const BUILTIN: readonly (readonly [kind: string, group: BuiltinGroup, spec: string, needs: readonly string[]])[] = [
  ['api-key', 'keys', '/\\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/', ['sk-']],
  ['stripe', 'keys', '/\\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/', ['_live_', '_test_']],
  ['jwt', 'keys', '/\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}/', ['eyJ']],
  ['api-key', 'keys', '/\\bAIza[0-9A-Za-z_-]{35}/', ['AIza']],
  ['api-key', 'keys', '/\\bgh[pousr]_[A-Za-z0-9]{30,}/', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_']],
  ['api-key', 'keys', '/\\bxox[abposr]-[A-Za-z0-9-]{10,}/', ['xox']],
  ['aws', 'keys', '/\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b/', ['AKIA', 'ASIA']],
  ['token', 'bearer', '/\\bBearer\\s+[A-Za-z0-9._~+/=-]{16,}/', ['Bearer']],
  ['email', 'email', '/\\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}\\b/', ['@']],
];

interface Rule {
  readonly kind: string;
  readonly pattern: Pattern;
  /** Empty: always run. */
  readonly needs: readonly string[];
}

const compiledBuiltins = (groups: ReadonlySet<BuiltinGroup>): Rule[] =>
  BUILTIN.filter(([, group]) => groups.has(group)).map(([kind, , spec, needs]) => ({ kind, pattern: compilePattern(spec, 'built-in pattern'), needs }));

export interface Redactor {
  /** The texts with every finding replaced; one scanner call for all of them. */
  redact(texts: readonly string[]): Promise<string[]>;
  /** Replacements made so far. */
  readonly count: number;
  /** Replacements made so far, by kind (`email`, `token`, `github`, `custom`, …). */
  readonly byKind: Readonly<Record<string, number>>;
}

export interface RedactorOptions {
  /** The built-in sets in force; all of them when absent. */
  readonly builtins?: readonly BuiltinGroup[];
}

interface Span {
  start: number;
  end: number;
  kind: string;
}

/**
 * Each user pattern checked on its own: null when it compiles, else why not (the dialog marks
 * every bad line, not only the first).
 */
export function patternProblems(userPatterns: readonly string[]): (string | null)[] {
  return userPatterns.map((p) => {
    try {
      compilePattern(p, 'redaction pattern');
      return null;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  });
}

/** The separator between texts handed to the scanner in one call (a boundary no secret spans usefully). */
const SEPARATOR = '\n\n';

/**
 * Compiles user patterns (`/re/flags` or plain text; errors start with "redaction pattern") and
 * returns a redactor. Without a scanner only the built-in and user patterns apply; the scanner
 * belongs to the `keys` set and runs only while that set is on.
 */
export function createRedactor(userPatterns: readonly string[] = [], scanner?: SecretScanner, options: RedactorOptions = {}): Redactor {
  const groups = new Set<BuiltinGroup>(options.builtins ?? BUILTIN_GROUPS);
  const rules: Rule[] = [...compiledBuiltins(groups), ...userPatterns.map((p) => ({ kind: 'custom', pattern: compilePattern(p, 'redaction pattern'), needs: [] }))];
  let count = 0;
  const byKind: Record<string, number> = {};
  return {
    async redact(texts) {
      const spans: Span[][] = texts.map(() => []);
      if (scanner && groups.has('keys') && texts.length > 0) {
        const starts: number[] = [];
        let at = 0;
        for (const t of texts) {
          starts.push(at);
          at += t.length + SEPARATOR.length;
        }
        const findings = await scanner(texts.join(SEPARATOR));
        for (const f of findings) {
          // Map back to each text the finding touches, clipped to it.
          for (let i = 0; i < texts.length; i++) {
            const s = starts[i]!;
            const e = s + texts[i]!.length;
            if (f.end <= s || f.start >= e) continue;
            spans[i]!.push({ start: Math.max(f.start, s) - s, end: Math.min(f.end, e) - s, kind: f.kind });
          }
        }
      }
      return texts.map((text, i) => {
        const found = spans[i]!;
        for (const { kind, pattern, needs } of rules) {
          if (needs.length > 0 && !needs.some((n) => text.includes(n))) continue;
          for (const [s, e] of pattern.ranges(text)) {
            // A bearer token keeps its "Bearer " so the reader sees what was there.
            const skip = kind === 'token' ? (/^Bearer\s+/.exec(text.slice(s, e))?.[0].length ?? 0) : 0;
            found.push({ start: s + skip, end: e, kind });
          }
        }
        if (found.length === 0) return text;
        found.sort((a, b) => a.start - b.start || b.end - a.end);
        let out = '';
        let pos = 0;
        let current: Span | undefined;
        const flush = (): void => {
          if (!current) return;
          out += text.slice(pos, current.start) + `[REDACTED:${current.kind}]`;
          pos = current.end;
          count++;
          byKind[current.kind] = (byKind[current.kind] ?? 0) + 1;
        };
        for (const span of found) {
          if (current && span.start < current.end) {
            // Overlapping findings become one replacement covering both.
            current.end = Math.max(current.end, span.end);
            continue;
          }
          flush();
          current = { ...span };
        }
        flush();
        return out + text.slice(pos);
      });
    },
    get count() {
      return count;
    },
    get byKind() {
      return { ...byKind };
    },
  };
}
