/**
 * The import framework: sniff the head (and, when the head cannot settle it, read on until the
 * structure is parsed: sniff.ts `confirmSniff`), pick the format (the first importer in
 * the order of docs/reference/formats.md whose `detect` says yes, or the one the user named), stream the file into
 * that importer, and return every session — or one clear ImportError and nothing at all.
 */
import type { FormatId, Session } from '../model';
import {
  decodeLineBlocks,
  decodeText,
  isStackOverflow,
  lineColumnAt,
  nestsDeeperThan,
  parseJsonOrThrow,
  readAll,
  tooDeepError,
  type BlockedJsonLines,
} from './read';
import { IMPORTERS } from './registry';
import { confirmSniff, sniffSource } from './sniff';
import { ImportError, type ByteSource, type Importer, type ImportInput, type JsonLine, type ParseContext, type Sniff } from './types';

export { IMPORTERS } from './registry';
export { ImportError } from './types';
export type { ByteSource, Importer } from './types';

export interface ImportOptions {
  /** Skip detection and read the file as this format. */
  readonly format?: FormatId;
  /**
   * Keep each message's raw source record (for export and display). `'lines'`: the caller keeps
   * the file's lines itself (the store does); where the importer's records are whole lines
   * (`ImportOutcome.lineRecords`), a message's record is named by `sourceLine` and `mergedLines`
   * instead of being copied into `raw`; elsewhere `raw` is kept as with `true`.
   */
  readonly keepRaw?: boolean | 'lines';
  /** JSONL: skip lines that are not valid JSON instead of failing (reported in the outcome). */
  readonly tolerant?: boolean;
  readonly onProgress?: (p: { bytes: number; sessions: number; messages: number }) => void;
  readonly signal?: AbortSignal;
  /** ParseContext.phaseEnd: a Node host passes a full garbage collection (src/main/store/collect-garbage.ts). */
  readonly onPhaseEnd?: () => void;
}

export interface ImportOutcome {
  readonly format: FormatId;
  readonly sessions: Session[];
  /** Non-fatal findings (unknown line types, orphans, skipped lines), the first few of each. */
  readonly warnings: string[];
  /** Lines skipped in tolerant mode. */
  readonly skippedLines: number;
  /** With `keepRaw: 'lines'`: the records are the file's lines (`sourceLine`, `mergedLines`), not `raw`. */
  readonly lineRecords: boolean;
}

const MAX_WARNINGS = 200;

export function importerFor(format: string): Importer | undefined {
  return IMPORTERS.find((i) => i.id === format);
}

/** The first importer, in detection order, that recognises the sniffed head. */
export function detectImporter(sniff: Sniff): Importer | undefined {
  for (const importer of IMPORTERS) {
    try {
      if (importer.detect(sniff)) return importer;
    } catch {
      // detect must never throw; a buggy one just does not match.
    }
  }
  return undefined;
}

export async function detectFormat(source: ByteSource): Promise<FormatId | undefined> {
  return detectImporter(await confirmSniff(source, await sniffSource(source)))?.id;
}

/**
 * The format of this source when an import with `keepRaw: 'lines'` will name its records by
 * line (`ImportOutcome.lineRecords`): line-delimited input read by an importer with
 * `lineRecords`. Undefined otherwise, or when the head cannot be read (the import says why).
 */
export async function lineRecordsFormat(source: ByteSource, format?: FormatId): Promise<FormatId | undefined> {
  try {
    const head = await sniffSource(source);
    // A JSON document is never line records: settle only what could be JSON lines (a first
    // line longer than the head), which reads no further than its second line.
    const sniff = head.shape === 'jsonl' ? await confirmSniff(source, head) : head;
    const importer = format ? importerFor(format) : detectImporter(sniff);
    return importer?.lineRecords === true && sniff.shape === 'jsonl' ? importer.id : undefined;
  } catch {
    return undefined;
  }
}

/** A ByteSource over a string (tests, pasted text, the browser). */
export function stringSource(name: string, text: string): ByteSource {
  const bytes = new TextEncoder().encode(text);
  return {
    name,
    size: bytes.length,
    async *chunks() {
      // Several chunks, so tests exercise the chunk boundaries too.
      const step = 1 << 16;
      for (let i = 0; i < bytes.length; i += step) yield bytes.subarray(i, i + step);
    },
  };
}

export async function importSource(source: ByteSource, options: ImportOptions = {}): Promise<ImportOutcome> {
  const head = await sniffSource(source);
  if (head.head.trim() === '') throw new ImportError(source.name, 'a transcript, found an empty file');
  let bytes = 0;
  let lastReport = 0;
  let messages = 0;
  let sessions = 0;
  const report = (force = false): void => {
    if (!options.onProgress) return;
    if (!force && bytes - lastReport < 1 << 20) return;
    lastReport = bytes;
    options.onProgress({ bytes, sessions, messages });
  };
  const onBytes = (b: number): void => {
    bytes = b;
    report();
  };
  // A document is read (and parsed) here once when its head was not enough to detect it.
  const sniff = options.format === 'aider' ? head : await confirmSniff(source, head, options.signal, onBytes);
  const importer = options.format ? importerFor(options.format) : detectImporter(sniff);
  if (!importer) {
    if (options.format)
      throw new ImportError(source.name, `a known format, got "${options.format}" (known: ${IMPORTERS.map((i) => i.id).join(', ')})`);
    // A whole file that starts like JSON but does not parse is broken JSON, not an unknown
    // format: say where it breaks (line and column) rather than "unknown shape".
    const t = sniff.head.trimStart();
    // Read through the strict decoder, so an invalid byte is named as such (with its offset)
    // before the JSON parser stumbles on its replacement character.
    if (sniff.complete && sniff.shape === 'json' && sniff.value === undefined && (t.startsWith('{') || t.startsWith('[')))
      parseJsonOrThrow(source.name, await readAll(source, options.signal));
    // A byte that is not UTF-8 (0xff, a stray continuation byte) is named by its offset, not
    // reported as text of an unknown shape: the strict decoder streams the file to it (this path
    // runs only once detection failed, and only when the lenient head shows a replaced byte).
    if (sniff.head.includes('\uFFFD')) for await (const piece of decodeText(source, options.signal)) void piece;
    const shape = sniff.shape === 'text' ? 'text' : sniff.shape === 'jsonl' ? 'JSON lines' : 'JSON';
    // Where the content starts, and what it starts with: the first thing a reader looks at.
    const at = sniff.head.search(/\S/);
    const where = lineColumnAt(sniff.head, Math.max(0, at));
    const starts = JSON.stringify(sniff.head.slice(Math.max(0, at), Math.max(0, at) + 24));
    throw new ImportError(
      source.name,
      `a known transcript format, found ${shape} of an unknown shape starting ${starts} (known: ${IMPORTERS.map((i) => i.id).join(', ')}; choose one with --format)`,
      where.line,
      where.column,
    );
  }

  const warnings: string[] = [];
  let warningCount = 0;
  // Records by line number only where every record is one line of a line-delimited file.
  const lineRecords = options.keepRaw === 'lines' && importer.lineRecords === true && sniff.shape === 'jsonl';
  const ctx: ParseContext = {
    name: source.name,
    keepRaw: options.keepRaw === true || (options.keepRaw === 'lines' && !lineRecords),
    lineRecords,
    warn(message, line) {
      warningCount++;
      if (warnings.length < MAX_WARNINGS) warnings.push(line !== undefined ? `${source.name}:${line}: ${message}` : message);
    },
    progress(m, s) {
      messages = m;
      sessions = s;
    },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onPhaseEnd ? { phaseEnd: options.onPhaseEnd } : {}),
  };
  let skippedLines = 0;
  const skipped: string[] = [];
  let input: ImportInput;
  if (sniff.shape === 'jsonl' && importer.id !== 'aider') {
    const tolerant = options.tolerant ?? false;
    const name = source.name;
    // Lines are cut out of whole-line blocks in place (no carry to concatenate) and parsed one at
    // a time as the importer asks for them; an importer that reads blocks (see lineBlocks) waits
    // on one promise per block, not one per line.
    function* parsedLines(block: string, firstLine: number): Generator<JsonLine> {
      let line = firstLine - 1;
      const n = block.length;
      for (let start = 0; start < n;) {
        let nl = block.indexOf('\n', start);
        const unterminated = nl < 0;
        if (unterminated) nl = n;
        line++;
        const end = nl > start && block.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        const from = start;
        start = nl + 1;
        if (end === from) continue;
        const t = block.slice(from, end);
        let value: unknown;
        try {
          // JSON.parse accepts surrounding whitespace: no trim (and no copy) on the hot path.
          value = JSON.parse(t);
        } catch (e) {
          if (/^\s*$/.test(t)) continue;
          if (tolerant) {
            skippedLines++;
            if (skipped.length < 5) skipped.push(`line ${line}: ${e instanceof Error ? e.message : String(e)}`);
            continue;
          }
          if (unterminated)
            throw new ImportError(
              name,
              'a complete last line: the file ends mid-record (truncated, or still being written; --tolerant skips it)',
              line,
            );
          value = parseJsonOrThrow(name, t, line - 1);
        }
        yield { line, value, raw: t };
      }
    }
    async function* blocks(): AsyncGenerator<Iterable<JsonLine>> {
      let lines = 0;
      for await (const block of decodeLineBlocks(source, options.signal, onBytes)) {
        const first = lines + 1;
        // Counted up front, so a block's line numbers do not depend on when it is iterated.
        for (let nl = block.indexOf('\n'); nl >= 0; nl = block.indexOf('\n', nl + 1)) lines++;
        if (block.charCodeAt(block.length - 1) !== 10) lines++;
        yield parsedLines(block, first);
      }
    }
    const stream = blocks();
    const jsonl: BlockedJsonLines = {
      blocks: () => stream,
      async *[Symbol.asyncIterator]() {
        for await (const block of stream) yield* block;
      },
    };
    input = { kind: 'jsonl', lines: jsonl };
  } else if (sniff.shape === 'text' || importer.id === 'aider') {
    input = { kind: 'text', text: await readAll(source, options.signal, onBytes) };
  } else {
    // A value parsed by confirmSniff was read through the checked decoder; the head's was not
    // (it replaces invalid bytes), so the file is still read once to check its encoding.
    const confirmed = sniff !== head && sniff.value !== undefined;
    const text = confirmed ? '' : await readAll(source, options.signal, onBytes);
    input = { kind: 'json', value: sniff.value !== undefined ? sniff.value : parseJsonOrThrow(source.name, text) };
  }

  let result: Session[];
  try {
    result = await importer.parse(input, ctx);
  } catch (e) {
    // Recursion through input nested thousands deep: refused at the documented depth, with its line.
    if (isStackOverflow(e)) throw await tooDeepError(source, sniff.shape === 'jsonl');
    throw e;
  }
  // Tool schemas are kept as values and written out again later (store, token counts).
  if (result.some((s) => s.tools.some((t) => nestsDeeperThan(t.parameters)))) throw await tooDeepError(source, sniff.shape === 'jsonl');
  if (options.signal?.aborted) throw new ImportError(source.name, 'import cancelled');
  if (skippedLines > 0)
    warnings.unshift(`${source.name}: skipped ${skippedLines} line(s) that are not valid JSON; first: ${skipped.join('; ')}`);
  if (warningCount > warnings.length) warnings.push(`… and ${warningCount - warnings.length} more warning(s)`);
  sessions = result.length;
  messages = result.reduce((n, s) => n + s.messages.length, 0);
  report(true);
  return { format: importer.id, sessions: result, warnings, skippedLines, lineRecords };
}
