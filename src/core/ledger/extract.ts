/**
 * What a message tells the model, as items the loss ledger lists when the message leaves the
 * window (docs/probe.md §Loss ledger): file paths, commands run, error messages, identifiers
 * (functions, classes, tickets, URLs), numbers with units, decisions and the user's instructions.
 *
 * Paths and identifiers are the facts retention already tracks (../summarize/facts.ts), so the
 * ledger and retention agree on what a fact is; the other kinds are read here. Every regex is
 * linear: no nested or overlapping quantifiers, and lines are bounded before they are matched.
 */
import type { Message } from '../model';
import { extractFacts } from '../summarize/facts';

export const LEDGER_KINDS = ['path', 'command', 'error', 'identifier', 'number', 'decision', 'instruction'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** Where in its message an item was read: a masked message loses its tool results only. */
export type ItemOrigin = 'text' | 'call' | 'result';

export interface ExtractedItem {
  readonly kind: LedgerKind;
  /** The item as written (an error is its line, a decision or instruction its sentence). */
  readonly value: string;
  readonly origin: ItemOrigin;
  /**
   * The facts (paths, identifiers, numbers as ../summarize/facts.ts reads them) a later message
   * would repeat when it refers to this item again; a command is also referred to by itself.
   */
  readonly refs: readonly string[];
}

/** Longest line or sentence an item keeps: enough to recognise it, bounded for the ledger's size. */
const MAX_VALUE = 200;
/** At most this many error lines per part: a failing test run prints hundreds. */
const MAX_ERRORS = 8;

const URL = /\bhttps?:\/\/[^\s"'`<>()[\]{}]{3,300}/g;
// A directory or a path without an extension (facts.ts reads those with one): rooted (/, ./, ~/)
// or with two separators, so "and/or" or "24/7" is not one.
const DIR_PATH =
  /(?:^|[\s"'`(=:,!])((?:\.{1,2}\/|~\/|\/)[\w.-]+(?:\/[\w.-]+)*\/?|[\w.-]+\/[\w.-]+(?:\/[\w.-]+)+\/?)(?=$|[\s"'`),:;]|\.(?:\s|$))/g;
// A name called or defined: `name(` (not "error(s)").
const CALL = /(?<!\w)([A-Za-z_]\w{1,40})\((?!s\))/g;
// A file name without a directory: a known extension (a name with dots in it, a dotfile).
const FILE_NAME =
  /(?<![\w./-])((?:[\w-]+\.)+(?:tsx?|jsx?|mjs|cjs|py|go|rs|java|kt|swift|rb|php|vue|svelte|md|rst|json|ya?ml|toml|ini|cfg|lock|sql|sh|css|scss|html|xml|csv|log|txt|c|h|cpp|hpp|ico|png|jpe?g|gif|svg)|\.(?:gitignore|gitattributes|env|npmrc|nvmrc|editorconfig|prettierrc|eslintrc|dockerignore))(?![\w/-])/g;
/** A path in backticks, even with one separator (`src/marshmallow`). */
const TICKED_PATH = /`(\.{0,2}\/?[\w.-]+\/[\w./-]*)`/g;
/** The info string of a fenced block (```mswea_bash_command) is markup. */
const FENCE_INFO = /```[\w-]*/g;
/** A line of `ls -l`: its last field is a file or directory name, with or without an extension. */
const LS_LONG = /^[-dlcbps][rwxsStT-]{9}[@+.]?\s+\d+\s/;
/** Products named like a file (Next.js 15.5.2 is a framework, not a file). */
const PRODUCT = /^(?:Next|Node|Vue|Nuxt|Express|Three|Chart|Ember|Backbone|Alpine|Solid|Deno|React)\.js$/;
/** A line of `tree`: the name after the branch. */
const TREE_LINE = /^[│|\s]*[├└`|]──\s+(\S[^\n]{0,200})$/;
/** A column of names separated by two spaces or a tab (plain `ls`, `ls -F`): a name, a directory by its `/`. */
const LS_NAME = /^[\w@+-][\w.@+-]{0,100}\/?$|^\.[\w.-]{1,100}\/?$/;
/** Constants and environment variables (MY_ENV_VAR): capitals with an underscore can only be code. */
const CONST_NAME = /\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g;
/** A dotted module a Python import names (`from marshmallow.fields import`). */
const MODULE = /\b(?:from|import)\s+([A-Za-z_]\w{0,40}(?:\.[A-Za-z_]\w{0,40}){1,6})\b/g;
/** Product names written like code (an inner capital) that are not names in the code. */
const BRAND = /^(?:TypeScript|JavaScript|GitHub|GitLab|PostgreSQL|MySQL|MongoDB|PyPI|macOS|iOS|OpenAI|YouTube|PowerShell|WebSocket|LaTeX)$/;
const DUNDER = /\b(__\w{1,30}__)\b/g;
/** Markup tags (<tool_use_error>, <output>) are structure, not names. */
const TAG = /<\/?[A-Za-z_][\w-]{0,40}>/g;
// An error line: an exception class, a "error:"/"fatal:" prefix, a failing test, a missing file.
const ERROR_LINE =
  /(?:\b[A-Z][A-Za-z]{0,40}(?:Error|Exception)\b|\b[Ee]rror(?::[ \t]*\S|\[|\(s\))|\bERROR\b|\bFAIL(?:ED)?\b|\b[Ff]atal:|\bpanic:|command not found|No such file or directory|Permission denied|has not been|\bnot found\b|[Cc]annot (?:read|find|resolve)|\bfailed\b)/;
/** A line of source code (a listing, a diff), possibly numbered: a `raise ValueError` in it is code, not an error. */
const CODE_LINE =
  /^\s*(?:\d{1,6}(?::|→|\s)\s*)?[-+]?\s*(?:raise|except|class|def|import|from|throw|catch|try|return|if|elif|else|function|const|let|var|\/\/|#|\*)\b/;
// A number with a unit (time, size, count, money, percent).
// A range (150-200 words) is one number; one qualifying word may stand between number and unit
// ("1458 more lines").
const NUMBER_UNIT =
  /(?:^|[^\w.$-])(\$\d{1,12}(?:\.\d{1,6})?|\d{1,12}(?:[.,]\d{1,6})?(?:[-–]\d{1,12}(?:[.,]\d{1,6})?)?(?:\s?(?:%|ms|µs|ns|s|secs?|seconds?|mins?|minutes?|h|hours?|days?|[KMGT]i?B|kB|bytes?|tokens?|(?:(?:more|new|total|other)\s)?(?:lines?|files?|tests?|errors?|warnings?)|chars?|characters?|words?|req\/s|rps|px|USD|MHz|GHz|x)))(?![\w%])/g;
/** At most this many numbers per part: a log prints a timing per line. */
const MAX_NUMBERS = 6;
// A choice of approach: the words that announce one, "we should <do X>" and "to fix this, …", and
// "let me update X to …" (a change with its purpose; "let me fix the file" alone is a step, not a choice).
const DECISION =
  /\b(?:decided|decide to|chose|choose to|opted|went with|go with|going with|settled on|we(?:'ll| will) use|I(?:'ll| will) use|the approach is|the fix is|to fix (?:this|the|it)\b|we should (?:ensure|make|use|change|replace|instead)|let(?:'s| me) (?:update|change|modify|rewrite|replace)\b[^.]{0,80}\bto\b)/i;
const INSTRUCTION =
  /\b(?:always|never|don't|do not|must not|mustn't|must|make sure|avoid|only use|should not|shouldn't|please (?:use|keep|do|make|add|run|don't))\b/i;
/**
 * A user's sentence or list item that starts with an imperative verb of method (numbered workflow
 * steps, "Use … tools", "Return a summary …") tells the agent how to work, as "always" does.
 */
const IMPERATIVE =
  /^\s*(?:(?:\d{1,2}[.)]|[-*])\s+)?(?:Analy[sz]e|Create|Edit|Use|Return|Verify|Test|Run|Keep|Write|Add|Check|Follow|Include|Prefer|Ask)\s/;
/** A tool call whose arguments carry one of these runs a command. */
const COMMAND_KEYS = ['command', 'cmd', 'script'] as const;
/** A fenced block of one of these languages in an agent's text is a command it runs (mini-swe-agent, aider). */
const SHELL_FENCE = /```(?:bash|sh|shell|console|zsh|mswea_bash_command)[ \t]*\n([^`]{1,4000})```/g;

function clip(s: string): string {
  const t = s.trim().replace(/\s+/g, ' ');
  return t.length > MAX_VALUE ? t.slice(0, MAX_VALUE - 1) + '…' : t;
}

/** Sentences of a prose text (bounded): split on line ends and sentence ends. */
function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line.length > 4 * MAX_VALUE * 4) continue;
    for (const s of line.split(/(?<=[.!?])\s+/)) if (s.trim().length >= 8) out.push(s);
  }
  return out;
}

function factRefs(text: string): string[] {
  return extractFacts(text).map((f) => f.key);
}

/** The command of a tool call's arguments (JSON text), or null when it runs none. */
export function commandOf(args: string): string | null {
  if (!args.includes('"')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const o = parsed as Record<string, unknown>;
  for (const k of COMMAND_KEYS) {
    const v = o[k];
    if (typeof v === 'string' && v.trim()) return v;
    // Codex: ["bash", "-lc", "npm test"] — the shell's script is the command.
    if (Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length > 0) {
      const parts = v as string[];
      const script =
        parts.length >= 3 && /^(?:ba|z)?sh$/.test(parts[0]!.split('/').pop()!) && parts[1]!.startsWith('-') ? parts[2]! : parts.join(' ');
      if (script.trim()) return script;
    }
  }
  return null;
}

/** Error lines of a text: the first MAX_ERRORS distinct ones that are not source code. */
function errorLines(text: string, isError: boolean): string[] {
  const out: string[] = [];
  let firstLine: string | null = null;
  for (const raw of text.split('\n')) {
    const line = (raw.length > 2000 ? raw.slice(0, 2000) : raw).replace(TAG, '');
    if (firstLine === null && line.trim()) firstLine = line;
    if (!ERROR_LINE.test(line) || CODE_LINE.test(line)) continue;
    const v = clip(line);
    if (v.length >= 6 && !out.includes(v)) out.push(v);
    if (out.length >= MAX_ERRORS) break;
  }
  // A result the tool flagged as an error says what failed in its first line, whatever the words.
  if (out.length === 0 && isError && firstLine !== null) out.push(clip(firstLine));
  return out;
}

/**
 * The names a directory listing shows: a long listing (`ls -l`, its last field, a symlink by its own
 * name), a `tree` (the name after each branch) and plain `ls` columns (a line of three or more names
 * two spaces or a tab apart); never `.` and `..`.
 */
function listedNames(text: string): string[] {
  // Most parts are prose: no branch, no column gap, no permissions column — nothing to split.
  if (!text.includes('──') && !/ {2}|\t/.test(text) && !/^[-dlcbps][rwxsStT-]{9}/m.test(text)) return [];
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    if (raw.length > 1000) continue;
    const tree = raw.includes('──') ? TREE_LINE.exec(raw) : null;
    if (tree) {
      const name = tree[1]!.trim();
      if (!name.includes(' ')) out.push(name);
      continue;
    }
    const columns = raw.includes('  ') || raw.includes('\t') ? raw.trim().split(/\t+\s*|\s{2,}/) : [];
    if (columns.length >= 3 && columns.every((c) => LS_NAME.test(c) && c !== '.' && c !== '..')) {
      for (const c of columns) out.push(c.replace(/\/$/, ''));
      continue;
    }
    if (!LS_LONG.test(raw)) continue;
    const fields = raw.trim().split(/\s+/);
    const arrow = fields.indexOf('->');
    const name = arrow > 0 ? fields[arrow - 1]! : fields[fields.length - 1]!;
    if (name !== '.' && name !== '..' && fields.length >= 8) out.push(name);
  }
  return out;
}

type Add = (kind: LedgerKind, value: string, origin: ItemOrigin, refs: readonly string[]) => void;

/** Paths and identifiers: retention's facts, directories, URLs and names called or defined. */
function namesOfText(raw: string, origin: ItemOrigin, add: Add): void {
  const untagged = raw.includes('<') ? raw.replace(TAG, ' ') : raw;
  const text = untagged.includes('```') ? untagged.replace(FENCE_INFO, ' ') : untagged;
  const urls: string[] = [];
  if (text.includes('://')) for (const m of text.matchAll(URL)) urls.push(m[0].replace(/[.,;:]+$/, ''));
  // A URL is one identifier; its own path is not read again as a path.
  const rest = urls.length > 0 ? text.replace(URL, ' ') : text;
  const facts = extractFacts(rest);
  const paths: string[] = [];
  for (const f of facts) if (f.kind === 'path') paths.push(f.key);
  const push = (p: string): void => {
    if (!paths.includes(p)) paths.push(p);
  };
  if (rest.includes('/')) for (const m of rest.matchAll(DIR_PATH)) push(m[1]!.replace(/\.+$/, ''));
  if (rest.includes('`')) for (const m of rest.matchAll(TICKED_PATH)) push(m[1]!);
  if (rest.includes('.'))
    for (const m of rest.matchAll(FILE_NAME)) if (!PRODUCT.test(m[1]!) && !paths.some((p) => p.endsWith('/' + m[1]!))) push(m[1]!);
  for (const name of listedNames(rest)) push(name);
  const modules = rest.includes('import') ? [...rest.matchAll(MODULE)].map((m) => m[1]!) : [];
  for (const p of paths) if (!PRODUCT.test(p) && !modules.includes(p)) add('path', p, origin, [p]);
  // A name inside a path (useTodos in useTodos.ts) is the path's.
  const inPath = (name: string): boolean => paths.some((p) => p.includes(name)) || modules.some((m) => m !== name && m.includes(name));
  for (const m of modules) add('identifier', m, origin, [m]);
  for (const f of facts)
    if ((f.kind === 'identifier' || f.kind === 'name') && !inPath(f.key) && !BRAND.test(f.key)) add('identifier', f.key, origin, [f.key]);
  if (rest.includes('_')) for (const m of rest.matchAll(CONST_NAME)) if (!inPath(m[1]!)) add('identifier', m[1]!, origin, [m[1]!]);
  if (rest.includes('(')) for (const m of rest.matchAll(CALL)) if (!inPath(m[1]!)) add('identifier', m[1]!, origin, [m[1]!]);
  if (rest.includes('__')) for (const m of rest.matchAll(DUNDER)) add('identifier', m[1]!, origin, [m[1]!]);
  for (const u of urls) add('identifier', u, origin, [u]);
}

function itemsOfText(text: string, origin: ItemOrigin, role: Message['role'], add: Add): void {
  namesOfText(text, origin, add);
  if (/\d/.test(text)) {
    let n = 0;
    for (const m of text.matchAll(NUMBER_UNIT)) {
      add('number', m[1]!.trim(), origin, factRefs(m[1]!));
      if (++n >= MAX_NUMBERS) break;
    }
  }
  // Errors are what tools and users report, never the agent's own words about one.
  if (origin === 'result' || role === 'user' || role === 'tool')
    for (const e of errorLines(text, false)) add('error', e, origin, factRefs(e));
  if (origin === 'text' && (role === 'assistant' || role === 'user')) {
    for (const s of sentences(text)) {
      if (DECISION.test(s)) add('decision', clip(s), origin, factRefs(s));
      // Instructions are the user's: an assistant saying "never" is not one.
      if (role === 'user' && (INSTRUCTION.test(s) || IMPERATIVE.test(s))) add('instruction', clip(s), origin, factRefs(s));
    }
  }
  if (role === 'assistant' && text.includes('```'))
    for (const m of text.matchAll(SHELL_FENCE)) if (m[1]!.trim()) add('command', clip(m[1]!), 'call', [clip(m[1]!)]);
}

/** Every item of one message, distinct by kind and value, in order of appearance. */
export function extractItems(m: Message): ExtractedItem[] {
  const out: ExtractedItem[] = [];
  const seen = new Set<string>();
  const add: Add = (kind, value, origin, refs) => {
    if (value.length < 3) return;
    const key = kind + '\0' + value;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ kind, value, origin, refs });
  };
  for (const p of m.parts) {
    switch (p.kind) {
      case 'text':
        // A tool's output logged as a plain tool message is a result.
        itemsOfText(p.text, m.role === 'tool' ? 'result' : 'text', m.role, add);
        break;
      case 'reasoning':
        itemsOfText(p.text, 'text', 'assistant', add);
        break;
      case 'tool_call': {
        const cmd = commandOf(p.args);
        if (cmd !== null) add('command', clip(cmd), 'call', [clip(cmd)]);
        // JSON keys of the arguments are structure, not facts (extractFacts drops them).
        namesOfText(p.args, 'call', add);
        break;
      }
      case 'tool_result': {
        const errors = errorLines(p.text, p.isError);
        for (const e of errors) add('error', e, 'result', factRefs(e));
        namesOfText(p.text, 'result', add);
        let n = 0;
        if (/\d/.test(p.text))
          for (const x of p.text.matchAll(NUMBER_UNIT)) {
            add('number', x[1]!.trim(), 'result', factRefs(x[1]!));
            if (++n >= MAX_NUMBERS) break;
          }
        break;
      }
      case 'media':
        break;
    }
  }
  return out;
}

const cache = new WeakMap<Message, readonly ExtractedItem[]>();

/** extractItems, cached per message (the ledger asks again at every compression that removes it). */
export function itemsOfMessage(m: Message): readonly ExtractedItem[] {
  let items = cache.get(m);
  if (!items) {
    items = extractItems(m);
    cache.set(m, items);
  }
  return items;
}

const namesCache = new WeakMap<Message, readonly string[]>();

/**
 * Only the paths and names a message writes (no sentences, errors or numbers), cached: what the
 * ledger's "needed later" looks for in every message the user or the agent wrote, at a fraction
 * of `itemsOfMessage`'s work.
 */
export function namesOfMessage(m: Message): readonly string[] {
  let names = namesCache.get(m);
  if (!names) {
    const out: string[] = [];
    const add: Add = (kind, value) => {
      if ((kind === 'path' || kind === 'identifier') && value.length >= 3) out.push(value);
    };
    for (const p of m.parts) {
      if (p.kind === 'text' || p.kind === 'reasoning' || p.kind === 'tool_result') namesOfText(p.text, 'text', add);
      else if (p.kind === 'tool_call') namesOfText(p.args, 'call', add);
    }
    names = [...new Set(out)];
    namesCache.set(m, names);
  }
  return names;
}
