/**
 * What one transcript format says about itself (docs/architecture.md "Add a format"): how it is
 * detected and parsed, which agent writes it, the policy a session of it opens on, where that
 * agent keeps its logs on a machine, and how a file of it that grows is followed (its live tail).
 * Everything here is data or pure code: the hosts (src/main, src/cli) read the files, walk the
 * folders and keep the store; src/core/formats/index.ts lists the formats and derives the rest.
 */
import type { Importer } from '../import/types';
import type { Message, Session, SourceCompaction } from '../model';

/** One format: its importer (id, label, detect, parse) and what the hosts derive from it. */
export interface FormatDescriptor extends Importer {
  /** The agent that writes it, as the library names it (`chat log` for a generic API log). */
  readonly agent: string;
  /** The policy id a session of this format opens on (default `s0`): what its agent would do. */
  readonly defaultPolicy?: string;
  /** Where its agent keeps its session files on this machine (listed by the local-logs view). */
  readonly localLogs?: LocalLogs;
  /** How a file of it that grows is followed without reading it whole again (else the whole file is imported again). */
  readonly tail?: FormatTail;
}

/**
 * An agent's log folder as data: `$env` when set and not empty, else the home folder joined with
 * `home`; then `below` under it. The host resolves and walks it (src/main/host/local-logs.ts).
 */
export interface LocalLogs {
  readonly env?: string;
  readonly home: readonly string[];
  readonly below: readonly string[];
  /** Folders between the root and a session file, at most. */
  readonly maxDepth: number;
  /** Whether a file is a session: its name and the folders between the root and it. */
  readonly accept: (name: string, dirs: readonly string[]) => boolean;
  /**
   * How files are grouped into projects: `folder` — the first folder below the root (its newest
   * file's `cwd` naming it when `cwdInHead`, else `decode(folder)`); `cwd` — the `cwd` written in
   * each file's head (else its folders).
   */
  readonly project:
    { readonly by: 'folder'; readonly cwdInHead?: boolean; readonly decode?: (folder: string) => string } | { readonly by: 'cwd' };
}

// ---------------------------------------------------------------------------------------------
// Live tail: pure code. The host reads the new bytes and keeps the store; a format's tail parser
// is handed the bytes, its own state and a read-only view of the stored session, and answers the
// messages to write and its next state.

/** Bytes [from, to) of the tailed file (fewer when the file is now shorter). */
export type ReadBytes = (from: number, to: number) => Uint8Array;

/** The stored session a tailed file became (one file, one session), read through the host's store. */
export interface StoredSession {
  readonly id: string;
  readonly messageCount: number;
  readonly model: string | null;
  /** Stored messages [from, count), as the store gives them back. */
  messagesFrom(from: number): Message[];
  /** The ids of stored messages [from, to) (all of them: [0, messageCount)). */
  messageIdsBetween(from: number, to: number): readonly string[];
  /** Stored messages last first (index, id, message), read lazily: a caller may stop early. */
  backward(): Iterable<{ readonly index: number; readonly id: string; readonly message: () => Message }>;
  /** The raw record of message `index` as stored (inline, or its source lines joined), or null. */
  rawOf(index: number): string | null;
  /** The session without its messages, as stored. */
  meta(): Omit<Session, 'messages'>;
}

/** Messages an append makes, to be written as a first import of the grown file would store them. */
export interface TailChange {
  /** First message index written: the stored count, or earlier when the last stored messages are replaced. */
  readonly from: number;
  /** Stored messages [from, count) that `changed` replaces. */
  readonly removed: readonly Message[];
  /** Messages [from, …). */
  readonly changed: readonly Message[];
  /**
   * Where each message's raw record goes: `inline` (`Message.raw`), or by the source line that
   * holds it (`lines`: the appended lines' texts by number); `extendsLast`: the first changed
   * message is the last stored one continued on these new lines (its record grows by them).
   */
  readonly records: 'inline' | { readonly lines: LineTexts; readonly extendsLast?: readonly number[] };
  /** Compactions among the new lines (message indices in the whole session): added to the session's. */
  readonly compactions?: readonly SourceCompaction[];
}

/**
 * The appended lines' texts by line number, as the import stores them (no newline, no trailing
 * CR): a string, or its UTF-8 bytes (a view of the appended bytes: nothing decoded or copied).
 */
export interface LineTexts {
  get(line: number): string | Uint8Array | undefined;
}

/** What a line tail answers for an append: its state (lookups it cached) and, when it applies, the change and the state after it. */
export interface LinesAnswer<S> {
  /** The state to keep when the change is not taken (what was looked up, nothing moved on). */
  readonly state: S;
  /**
   * Undefined: the whole file decides (it is imported again). `next`: the state once the change is
   * stored, asked for only then (it may extend what `state` holds rather than copy it).
   */
  readonly change?: TailChange & { readonly next: () => S };
}

/** Fed every imported byte when the host reads them all (the watch's start, a whole-file update). */
export interface ByteScan {
  feed(chunk: Uint8Array): void;
  done(): unknown;
}

/** A format whose files grow by lines (JSONL, text). */
export interface LinesTail<S = unknown> {
  /** A scan the host feeds the imported bytes with, when it reads them; its result reaches `start`. */
  readonly scan?: () => ByteScan;
  /**
   * The state at the end of the imported bytes (`size` of them, `lines` lines, ending with a
   * newline), or undefined when appends cannot take the fast path. `scanned`: the scan's result
   * when the host fed it every imported byte; `name`: the file's name as imported.
   */
  start(c: {
    readonly lines: number;
    readonly size: number;
    readonly name: string;
    readonly scanned: unknown;
    readonly read: ReadBytes;
    /** Whether the import read the file as one JSON document (a line file whose one line is long may be). */
    readonly document: boolean | undefined;
  }): S | undefined;
  /**
   * What the state needs of the stored session before an append, read in slices while nothing is
   * appended (the host runs it once a watch has started, one slice per turn of its event loop,
   * never beside an append): the first append then does not read it all on the thread that
   * answers the window. Yields between slices; returns the state to use.
   */
  readonly prepare?: (state: S, session: StoredSession) => Generator<void, S, void>;
  /** The append of `appended` (complete lines after the imported bytes). */
  append(c: {
    readonly state: S;
    readonly appended: Uint8Array;
    readonly session: StoredSession;
    readonly name: string;
    /** Bytes imported before the append. */
    readonly size: number;
    readonly read: ReadBytes;
  }): LinesAnswer<S> | Promise<LinesAnswer<S>>;
}

/** What a document format's conversion of new elements may read. */
export interface ConvertContext {
  /** The source's name (the import names messages and sessions after it). */
  readonly path: string;
  readonly skeleton: Record<string, unknown>;
  /** The format's own state (`scan`), when it keeps one. */
  readonly state: unknown;
}

/**
 * One shape of a JSON document its agent writes again whole at every change, usually with more
 * elements at the end of an array (the host's walk, src/main/store/tail-document.ts, finds them).
 */
export interface DocumentShape {
  /** Keys of the root object whose arrays grow (`''`: the root is the array). */
  readonly arrays: readonly string[];
  /** The growing array whose elements are the conversation (the others are only checked). */
  readonly conversation: string;
  /**
   * The skeleton (the document with its growing arrays empty) as compared between writes: what
   * the session is built from. Undefined when the fast path does not apply to this document.
   */
  readonly skeleton: (doc: unknown) => unknown;
  /**
   * Whether a new write's skeleton `now` may follow the imported one `old` (without it: they must
   * be equal), for a skeleton holding a list that grows beside the conversation. `convert` then reads `now`.
   */
  readonly follows?: (old: Record<string, unknown>, now: Record<string, unknown>, state: unknown) => boolean;
  /**
   * The messages each of `elements` (conversation elements `first`, `first + 1`, …) makes by the
   * importer's own rules, or undefined when they depend on what came before (the whole file decides).
   */
  readonly convert: (elements: readonly unknown[], first: number, c: ConvertContext) => (readonly Message[])[] | undefined;
  /** Each element converts alone, so the last one written again in place replaces its own messages. */
  readonly reopen: boolean;
  /** `convert` does not read the elements' indices: a root array's imported content may be found by its closing bracket. */
  readonly indexFree?: boolean;
  /** State read from the imported bytes for `convert` (undefined: no fast path for them). */
  readonly scan?: (b: Uint8Array) => unknown;
  /** Moves the state on by the elements a fast update stored. */
  readonly extend?: (state: unknown, elements: readonly unknown[]) => void;
  /** Whether the session's own fields (its model above all) stay as stored when `removed` give way to `changed`. */
  readonly keepsSession: (
    session: { readonly model: string | null },
    skeleton: Record<string, unknown>,
    removed: readonly Message[],
    changed: readonly Message[],
  ) => boolean;
}

/** A format whose files are one JSON document written again whole (one or more shapes of it). */
export interface DocumentTail {
  readonly shapes: readonly DocumentShape[];
}

/** How a growing file of a format is followed: by lines, as a document, or both (the file's shape decides). */
export interface FormatTail {
  readonly lines?: LinesTail;
  readonly document?: DocumentTail;
}

/** A line tail with its own state type, as the registry holds it (the host never looks inside the state). */
export const linesTail = <S>(tail: LinesTail<S>): LinesTail => tail as unknown as LinesTail;
