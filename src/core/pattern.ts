/**
 * User patterns (`--needle`, `--redact-pattern`, the app's needles): `/re/flags` or plain text.
 *
 * A regex runs on re2js (RE2 semantics), whose matching time is linear in the text for every
 * pattern. The JavaScript engine backtracks: `/(\w+\s?)+$/` on one long line took minutes and froze
 * the host. RE2 has no backreferences and no lookaround (they are what makes backtracking
 * necessary); a pattern using them is refused with an error that names the construct.
 * Flags: `i` (case-insensitive), `m` (^ and $ at line ends), `s` (. matches newline); `g` and
 * `u` are accepted and change nothing (every match is found; matching is always by code point).
 */
import { RE2JS } from 're2js';

export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

export interface Pattern {
  /** The spec as the user wrote it. */
  readonly source: string;
  readonly isRegex: boolean;
  /** True when the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /**
   * Every non-overlapping match, as [start, end) offsets in UTF-16 units, left to right. With
   * `groups` (a regex's capture groups), the span of the first of them that took part in each
   * match instead of the whole match: what a built-in rule replaces of what it recognised.
   */
  ranges(text: string, groups?: readonly number[]): Array<readonly [number, number]>;
}

/** The same shape as a replay needle (src/core/replay/retention.ts `Needle`). */
export interface Needle {
  readonly key: string;
  test(text: string): boolean;
}

const REGEX_SPEC = /^\/(.+)\/([a-z]*)$/s;

/** What RE2 cannot run, named for the error message; undefined when the source has none. */
export function unsupportedSyntax(source: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const d = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(d)) return `backreferences (\\${d})`;
      if (!inClass && d === 'k' && source[i + 2] === '<') return 'named backreferences (\\k<name>)';
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(' && source[i + 1] === '?') {
      const rest = source.slice(i + 2, i + 4);
      if (rest.startsWith('=')) return 'lookahead (?=…)';
      if (rest.startsWith('!')) return 'negative lookahead (?!…)';
      if (rest === '<=') return 'lookbehind (?<=…)';
      if (rest === '<!') return 'negative lookbehind (?<!…)';
    }
  }
  return undefined;
}

function compileRegex(spec: string, body: string, flags: string, what: string): RE2JS {
  let bits = 0;
  for (const f of flags) {
    if (f === 'i') bits |= RE2JS.CASE_INSENSITIVE;
    else if (f === 'm') bits |= RE2JS.MULTILINE;
    else if (f === 's') bits |= RE2JS.DOTALL;
    else if (f !== 'g' && f !== 'u') throw new PatternError(`${what} ${spec}: flag "${f}" is not supported (use i, m, s)`);
  }
  const unsupported = unsupportedSyntax(body);
  if (unsupported)
    throw new PatternError(
      `${what} ${spec}: ${unsupported} not supported — patterns run on RE2 so that matching takes linear time; rewrite without it`,
    );
  try {
    return RE2JS.compile(RE2JS.translateRegExp(body), bits);
  } catch (e) {
    const reason = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
    throw new PatternError(`${what} ${spec}: not a valid regular expression (${reason})`);
  }
}

/**
 * Compiles `/re/flags` (a regex) or anything else (plain text, matched literally). `what` names
 * the option in errors, e.g. "needle" or "redaction pattern".
 */
export function compilePattern(spec: string, what = 'pattern'): Pattern {
  if (spec.length === 0) throw new PatternError(`${what}: expected text or /regex/, got an empty string`);
  const m = REGEX_SPEC.exec(spec);
  if (!m) {
    return {
      source: spec,
      isRegex: false,
      test: (text) => text.includes(spec),
      ranges(text) {
        const out: Array<readonly [number, number]> = [];
        for (let at = text.indexOf(spec); at >= 0; at = text.indexOf(spec, at + spec.length)) out.push([at, at + spec.length]);
        return out;
      },
    };
  }
  const re = compileRegex(spec, m[1]!, m[2]!, what);
  return {
    source: spec,
    isRegex: true,
    test: (text) => re.test(text),
    ranges(text, groups) {
      const out: Array<readonly [number, number]> = [];
      const matcher = re.matcher(text);
      let from = 0;
      while (from <= text.length && matcher.find(from)) {
        const start = matcher.start();
        const end = matcher.end();
        const group = groups?.find((g) => matcher.start(g) >= 0);
        if (group !== undefined) {
          const [gs, ge] = [matcher.start(group), matcher.end(group)];
          if (ge > gs) out.push([gs, ge]);
        } else if (end > start) out.push([start, end]);
        // An empty match moves on by one so that the scan always ends.
        from = end > start ? end : end + 1;
      }
      return out;
    },
  };
}

/**
 * A replay needle on RE2: the drop-in for `parseNeedle` in src/core/replay/retention.ts (same
 * argument, same `{ key, test }` result, the same "needle SPEC: …" error prefix the CLI maps to
 * a usage error).
 */
export function parseNeedle(spec: string): Needle {
  const p = compilePattern(spec, 'needle');
  return { key: spec, test: (t) => p.test(t) };
}

/** Replaces every match of every pattern (in order) by `replacement(match)`; counts replacements. */
export function replaceAll(
  text: string,
  patterns: readonly Pattern[],
  replacement: (match: string) => string,
): { text: string; count: number } {
  let out = text;
  let count = 0;
  for (const p of patterns) {
    const ranges = p.ranges(out);
    if (ranges.length === 0) continue;
    let next = '';
    let at = 0;
    for (const [s, e] of ranges) {
      next += out.slice(at, s) + replacement(out.slice(s, e));
      at = e;
    }
    out = next + out.slice(at);
    count += ranges.length;
  }
  return { text: out, count };
}
