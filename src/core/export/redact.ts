/**
 * Redaction on export (S3's PII redaction). Three sources of findings, each replaced by
 * `[REDACTED:<kind>]` and counted:
 * - a secret scanner handed in by the host: secretlint's maintained recommended rule set
 *   (src/main/secret-scan.ts), which knows the exact formats of OpenAI, Anthropic, AWS, GitHub,
 *   GitLab, Slack, npm, private keys and many more; core cannot load it (it needs node:path);
 * - what that set lacks or misses: private key blocks whole or cut short, of any algorithm
 *   (key-blocks.ts); generic `sk-` keys, Stripe, JWTs, Google API keys, SendGrid, Twilio, Discord,
 *   Mailgun, Azure connection strings; credentials in URLs of any scheme; env-style
 *   `*PASSWORD*=` / `*SECRET*=` / `*TOKEN*=` assignments; `Bearer` and `Basic` authorization;
 *   e-mail addresses (docs/SECURITY.md lists each with an example);
 * - the user's own patterns.
 * Invisible characters (zero-width space and the like) are taken out before matching, so a key
 * split by one is still found. Every pattern runs on RE2 (src/core/pattern.ts) and the key-block
 * finder is a single forward scan, so redaction is linear in the text.
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */
import { compilePattern } from '../pattern';
import { privateKeyBlocks } from './key-blocks';

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
 * (the host's scanner and the key patterns below), authorization headers (`Bearer`, `Basic`),
 * e-mail addresses.
 */
export const BUILTIN_GROUPS = ['keys', 'bearer', 'email'] as const;
export type BuiltinGroup = (typeof BUILTIN_GROUPS)[number];

/**
 * kind, set, pattern, what a match must contain (any one of them), and the capture groups that say
 * what is replaced (the first that took part; the whole match when none is given). A text holding
 * none of the needs is skipped without running the regex — most strings of a transcript hold no
 * `@`, no `Bearer`, no `sk-`, and setting up a match per string was most of a large export's
 * redaction time. A need is a literal, or for a shape with no distinctive literal (Discord, Twilio,
 * the newer Mailgun keys) `runAfter`: a literal followed by a run of a character class — run on
 * every text, the RE2 automata of those counted repetitions took 60 times as long as all the other
 * rules together.
 */
type Need = string | ((text: string) => boolean);

/**
 * A Discord token's middle part between its dots. A JavaScript regex, as a need only: it starts
 * with a literal and tries at most nine characters from each dot, so it is linear; the RE2 rule
 * still decides the match.
 */
const DISCORD_MIDDLE = /\.[A-Za-z0-9_-]{6,7}\./;

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

/**
 * True when `literal` occurs followed by `length` characters of a class (then `end`, when given).
 * Each occurrence looks at no more than `length + 1` characters after it: linear in the text.
 */
function runAfter(literal: string, inClass: (c: number) => boolean, length: number, end?: string): (text: string) => boolean {
  return (text) => {
    for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
      const from = at + literal.length;
      let i = from;
      while (i < text.length && i - from < length && inClass(text.charCodeAt(i))) i++;
      if (i - from === length && (end === undefined || text.startsWith(end, i))) return true;
    }
    return false;
  };
}
type Builtin = readonly [kind: string, group: BuiltinGroup, spec: string, needs: readonly Need[], groups?: readonly number[]];
const BUILTIN: readonly Builtin[] = [
  ['api-key', 'keys', '/\\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/', ['sk-']],
  ['stripe', 'keys', '/\\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/', ['_live_', '_test_']],
  ['jwt', 'keys', '/\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}/', ['eyJ']],
  ['api-key', 'keys', '/\\bAIza[0-9A-Za-z_-]{35}/', ['AIza']],
  ['api-key', 'keys', '/\\bgh[pousr]_[A-Za-z0-9]{30,}/', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_']],
  ['api-key', 'keys', '/\\bxox[abposr]-[A-Za-z0-9-]{10,}/', ['xox']],
  ['aws', 'keys', '/\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b/', ['AKIA', 'ASIA']],
  // SendGrid: `SG.` + 22 + `.` + 43 characters of base64url — `-` and `_` included in both parts.
  ['sendgrid', 'keys', '/\\bSG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}/', ['SG.']],
  // Twilio account and API key SIDs (`AC`/`SK` + 32 hex digits).
  ['twilio', 'keys', '/\\b(?:AC|SK)[0-9a-f]{32}\\b/', [runAfter('AC', isHex, 32), runAfter('SK', isHex, 32)]],
  // Discord bot tokens: base64 of the bot's id, a timestamp, an HMAC, joined by dots.
  ['discord', 'keys', '/\\b[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6,7}\\.[A-Za-z0-9_-]{27,40}\\b/', [(t) => DISCORD_MIDDLE.test(t)]],
  // Mailgun: the legacy `key-` + 32, and the current 32-8-8 hex form.
  ['mailgun', 'keys', '/\\bkey-[0-9A-Za-z]{32}\\b/', ['key-']],
  ['mailgun', 'keys', '/\\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\\b/', [runAfter('-', isHex, 8, '-')]],
  // Azure storage / Service Bus connection strings.
  ['azure', 'keys', '/\\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=([^;\\s"\'\\\\]+)/', ['AccountKey=', 'SharedAccess'], [1]],
  // Credentials in a URL of any scheme (`redis://:pw@`, `amqp://u:pw@`): the password; a bare
  // user part only when it is long enough to be a token (`https://ghp_…@github.com`).
  [
    'url-credentials',
    'keys',
    '/\\b[A-Za-z][A-Za-z0-9+.-]*:\\/\\/(?:[^\\s\\/?#@:"\'<>]*:([^\\s\\/?#@"\'<>]+)|([A-Za-z0-9_.~%-]{16,}))@/',
    ['://'],
    [1, 2],
  ],
  // Env-style assignments whose NAME says it holds a secret: `PASSWORD=`, `DB_PASSWORD=`,
  // `SECRET_KEY=`, `GITHUB_TOKEN=` (upper case, as in `.env` files and shells; `MAX_TOKENS=` is not one).
  [
    'env-secret',
    'keys',
    '/\\b[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN)(?:_[A-Z0-9_]*)?[ \\t]*=[ \\t]*(?:"([^"\\n\\\\]+)"|\'([^\'\\n\\\\]+)\'|([^\\s"\'\\\\]+))/',
    ['PASSWORD', 'PASSWD', 'SECRET', 'TOKEN'],
    [1, 2, 3],
  ],
  ['token', 'bearer', '/\\bBearer\\s+([A-Za-z0-9._~+/=-]{16,})/', ['Bearer'], [1]],
  ['basic-auth', 'bearer', '/\\bBasic\\s+([A-Za-z0-9+/=]{8,})/', ['Basic'], [1]],
  ['email', 'email', '/\\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}\\b/', ['@']],
];

interface Rule {
  readonly kind: string;
  /** A built-in or user pattern, or a finder written by hand (key-blocks.ts). */
  readonly find: (text: string) => Array<readonly [number, number]>;
  /** Empty: always run. */
  readonly needs: readonly Need[];
}

const compiledBuiltins = (groups: ReadonlySet<BuiltinGroup>): Rule[] => [
  ...(groups.has('keys') ? [{ kind: 'privatekey', find: privateKeyBlocks, needs: ['PRIVATE KEY'] }] : []),
  ...BUILTIN.filter(([, group]) => groups.has(group)).map(([kind, , spec, needs, captures]): Rule => {
    const pattern = compilePattern(spec, 'built-in pattern');
    return { kind, find: (t) => pattern.ranges(t, captures), needs };
  }),
];

/**
 * Characters that show as nothing: zero-width space, non-joiner and joiner, word joiner,
 * invisible operators, BOM, soft hyphen, Mongolian vowel separator, and the bidi marks and
 * controls. A key split by one of them (`sk-ab\u200bcd…`) is still a key to whoever pastes it, so
 * they are taken out before matching and the spans mapped back onto the text as it was.
 */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** The text without invisible characters, and for each of its positions (and its end) the position in `text`. */
function visible(text: string): { text: string; at: ((i: number) => number) | null } {
  if (!INVISIBLE.test(text)) return { text, at: null };
  const map: number[] = [];
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (INVISIBLE.test(text[i]!)) continue;
    map.push(i);
    out += text[i]!;
  }
  map.push(text.length);
  return { text: out, at: (i) => map[i]! };
}

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
  const rules: Rule[] = [
    ...compiledBuiltins(groups),
    ...userPatterns.map((p): Rule => {
      const pattern = compilePattern(p, 'redaction pattern');
      return { kind: 'custom', find: (t) => pattern.ranges(t), needs: [] };
    }),
  ];
  let count = 0;
  const byKind: Record<string, number> = {};
  return {
    async redact(originals) {
      // Matching runs on the texts without invisible characters; spans are mapped back (see `visible`).
      const seen = originals.map(visible);
      const texts = seen.map((v) => v.text);
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
      return originals.map((original, i) => {
        const text = texts[i]!;
        const found = spans[i]!;
        for (const { kind, find, needs } of rules) {
          if (needs.length > 0 && !needs.some((n) => (typeof n === 'string' ? text.includes(n) : n(text)))) continue;
          for (const [s, e] of find(text)) found.push({ start: s, end: e, kind });
        }
        const at = seen[i]!.at;
        // Back onto the text as it was: a span ends right after its last visible character.
        if (at) for (const f of found) [f.start, f.end] = [at(f.start), f.end > f.start ? at(f.end - 1) + 1 : at(f.start)];
        if (found.length === 0) return original;
        // `user:pw@host.example` reads as an e-mail address too: inside a URL's credentials the
        // URL rule's span (the password alone) is the one kept, so the host stays readable.
        const inUrl = found.filter((f) => f.kind === 'url-credentials');
        if (inUrl.length > 0)
          for (let k = found.length - 1; k >= 0; k--)
            if (found[k]!.kind === 'email' && inUrl.some((u) => found[k]!.start < u.end && u.start < found[k]!.end)) found.splice(k, 1);
        found.sort((a, b) => a.start - b.start || b.end - a.end);
        let out = '';
        let pos = 0;
        let current: Span | undefined;
        const flush = (): void => {
          if (!current) return;
          out += original.slice(pos, current.start) + `[REDACTED:${current.kind}]`;
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
        return out + original.slice(pos);
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
