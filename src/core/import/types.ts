import type { FormatId, Session } from '../model';

/** Bytes of a transcript, from any host (file stream in Node, a Blob in a browser, a string in tests). */
export interface ByteSource {
  /** File name or path, used in every error message. */
  readonly name: string;
  /** Total size in bytes when known (for progress). */
  readonly size?: number;
  /**
   * Streams the content from the start. Called once per import (plus once for the head). A chunk
   * is valid until the next one is asked for: a source may refill one buffer, so a reader copies
   * what it keeps.
   */
  chunks(): AsyncIterable<Uint8Array>;
  /** The longest line a line-by-line read accepts (default MAX_LINE_BYTES in read.ts; tests scale it down). */
  readonly maxLineBytes?: number;
}

/** What detection sees: the decoded head of the file (~64 KB) and what could be parsed of it. */
export interface Sniff {
  readonly name: string;
  /** Decoded head text (BOM removed). */
  readonly head: string;
  /** The whole file fits in the head. */
  readonly complete: boolean;
  /** `json` = one JSON value (head parses, or starts with `{`/`[` and is not line-delimited); `jsonl` = line-delimited; `text` = neither. */
  readonly shape: 'json' | 'jsonl' | 'text';
  /** Parsed JSON value when the whole document is in the head and parses. */
  readonly value?: unknown;
  /** For JSONL: the parsed values of up to 50 complete head lines (unparsable lines skipped). */
  readonly lines: readonly unknown[];
}

/** One line of a JSONL stream, already parsed. */
export interface JsonLine {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly value: unknown;
  /** The raw line text (without the newline), for `keepRaw`. */
  readonly raw: string;
}

/** What a parser receives: the shape the framework read. */
export type ImportInput =
  | { readonly kind: 'jsonl'; readonly lines: AsyncIterable<JsonLine> }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string };

export interface ParseContext {
  readonly name: string;
  /** Keep each message's raw source record in `Message.raw`. */
  readonly keepRaw: boolean;
  /**
   * The caller keeps the file's lines itself (an importer with `lineRecords`, JSONL input): a
   * message's record is its `sourceLine`, so `raw` stays unset; a message merged from several
   * lines lists the others in `mergedLines`.
   */
  readonly lineRecords: boolean;
  /** Report a non-fatal finding (unknown line type, orphan, ...). Counted and listed, never fatal. */
  warn(message: string, line?: number): void;
  /** Progress callback: messages normalised so far. */
  progress(messages: number, sessions: number): void;
  readonly signal?: AbortSignal;
  /**
   * Called by an importer of a big input between two phases, when what the first one left behind
   * is garbage: the host may collect it before the next phase allocates on top of it (ImportOptions.onPhaseEnd).
   */
  phaseEnd?(): void;
}

export interface Importer {
  readonly id: FormatId;
  readonly label: string;
  /** Cheap, never throws: is this file of my format? */
  detect(sniff: Sniff): boolean;
  /**
   * Normalises the input into sessions. Throws `ImportError` (with file, line, column and what was
   * expected) when the input is of this format but broken. Unknown line types are `ctx.warn`ed.
   */
  parse(input: ImportInput, ctx: ParseContext): Promise<Session[]>;
  /**
   * On JSONL input, every message's raw record is its own `sourceLine` (plus `mergedLines`):
   * with `lineRecords` set, the importer leaves `raw` to the caller's copy of the lines.
   */
  readonly lineRecords?: true;
}

/** A clear, user-facing import error: file, line (column where it applies), what was expected. */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly expected: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`${file}${line !== undefined ? `:${line}` : ''}${column !== undefined ? `:${column}` : ''}: ${expected}`);
    this.name = 'ImportError';
  }
}
