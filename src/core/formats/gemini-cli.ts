/**
 * Gemini CLI's sessions (importer: core/import/gemini-cli.ts; docs/reference/formats.md, Gemini CLI):
 * `~/.gemini/tmp/<project hash>/chats/session-….json(l)` and `/chat save` checkpoints.
 *
 * Live tail of the JSONL session (docs/user-guide.md "Live tail"). The import keeps records by id in first-written
 * order, a record written again replacing its copy in place; each record converts on its own.
 * Gemini CLI writes a turn as new records, and rewrites the call it is running (its results and
 * tokens) under the same id: so an appended record either adds messages after the stored ones or
 * replaces the last record's messages (the last one or two). The appended lines are converted
 * with the importer's own `convert`.
 *
 * The whole-file path decides instead when an appended line could change what
 * came before or the session's fields:
 * - a `$rewindTo` (drops stored records), a `$set` of `messages` (the history rewritten), of
 *   `sessionId`, `startTime` or `summary` (the session's id, start, title), a metadata line;
 *   other `$set` keys (`lastUpdated`) change nothing stored and are passed over;
 * - a record whose id was seen before the append and is not the last stored record's (it would
 *   replace an earlier message, or a skipped info/warning record in its place), or an id like
 *   the import's own keys for records without one (`#n`, `$set-…`; or a record without an id
 *   where the file has such ids); the last record written again when it is a prompt (the title
 *   may come from it);
 * - a model other than the session's (the session's model is its last message's).
 * The ids seen are found in the imported bytes once (as the watch begins, else on the first append), textually (`"id": "…"` at any depth: more
 * than the records' ids, which only sends more appends to the whole-file path); Gemini CLI
 * writes its lines with JSON.stringify, so a key spelled with escapes is not looked for.
 */
import { convert, importer, lineKind } from '../import/gemini-cli';
import { isRecord, str, type Json } from '../import/util';
import type { Message } from '../model';
import { concatBytes, parseAppended, textOf, type NewLine } from './bytes';
import { eachAlone } from './document';
import {
  linesTail,
  type ByteScan,
  type DocumentShape,
  type FormatDescriptor,
  type LinesAnswer,
  type ReadBytes,
  type StoredSession,
} from './types';

declare module '../model' {
  interface FormatIds {
    'gemini-cli': true;
  }
}

/** The record whose messages are the last stored ones, and how many it made. */
interface LastRecord {
  readonly id: string;
  readonly count: number;
}

/** What the fast path keeps between appends. */
interface GeminiTail {
  /** Lines in the imported bytes. */
  readonly lines: number;
  /** Every `"id"` string value in the imported bytes; undefined until read (on the first append). */
  readonly ids: Set<string> | undefined;
  /** The last stored record (null: none that an append may write again); undefined until worked out. */
  readonly last: LastRecord | null | undefined;
}

/** `$set` keys the session is built from (core/import/gemini-cli.ts `build`). */
const SESSION_KEYS = ['messages', 'sessionId', 'startTime', 'summary'];
/** The import's keys for records without an id: an appended id like them could meet one. */
const OWN_KEY = /^(#\d+$|\$set-)/;

/** The fast path's answer for the complete lines in `appended` (after the `size` imported bytes). */
function appendGemini(
  tail: GeminiTail,
  appended: Uint8Array,
  session: StoredSession,
  size: number,
  read: ReadBytes,
): LinesAnswer<GeminiTail> {
  if (session.messageCount === 0) return { state: tail };
  const parsed = parseAppended(appended, tail.lines);
  if (!parsed) return { state: tail };
  const looked: GeminiTail = {
    lines: tail.lines,
    ids: tail.ids ?? idsIn(read, size),
    last: tail.last === undefined ? lastRecord(session) : tail.last,
  };
  const ids = looked.ids;
  if (!ids) return { state: looked };
  const last = looked.last;
  // The last stored record written again (it keeps its place: first), then new records in order.
  let reopened: NewLine | undefined;
  const added = new Map<string, NewLine>();
  let anonymous = 0;
  for (const l of parsed.lines) {
    const kind = lineKind(l.value);
    if (kind === 'set') {
      const set = l.value['$set'] as Record<string, unknown>;
      if (SESSION_KEYS.some((k) => k in set)) return { state: looked };
      continue;
    }
    if (kind !== 'record') return { state: looked };
    const own = str(l.value['id']);
    if (own !== undefined && OWN_KEY.test(own)) return { state: looked };
    const key = own ?? `\0${++anonymous}`;
    if (added.has(key)) added.set(key, l);
    else if (own !== undefined && ids.has(own)) {
      if (!last || own !== last.id) return { state: looked };
      reopened = l;
    } else added.set(key, l);
  }
  const convertLine = (l: NewLine): Message[] => convert(l.value, l.line, true, l.text);
  // A record without an id is keyed `#n` by the import, n counted over the file: an earlier record with such an id would be replaced.
  if (anonymous > 0 && [...ids].some((k) => OWN_KEY.test(k))) return { state: looked };
  const removed = reopened && last ? session.messagesFrom(session.messageCount - last.count) : [];
  // A prompt written again may be the one the title comes from (planAppend keeps a title a stored typed prompt gave).
  if (removed.some((m) => m.role === 'user')) return { state: looked };
  const reopenedMessages = reopened ? convertLine(reopened) : [];
  const records = [...added.entries()].map(([key, l]) => ({ key, messages: convertLine(l) }));
  const changed = [...reopenedMessages, ...records.flatMap((r) => r.messages)];
  // The session's model is its last message's: another one, or none where the removed had one, changes the session row.
  const model = changed
    .map((m) => m.model)
    .filter((x): x is string => !!x)
    .at(-1);
  if (model !== undefined ? model !== session.model : removed.some((m) => m.model !== undefined)) return { state: looked };
  return {
    state: looked,
    change: {
      from: session.messageCount - removed.length,
      removed,
      changed,
      records: 'inline',
      next: () => {
        for (const l of parsed.lines) {
          const own = str(l.value['id']);
          if (own !== undefined) ids.add(own);
        }
        // The last record that made messages is the one a later append may write again.
        const withMessages = records.filter((r) => r.messages.length > 0);
        const end = withMessages.at(-1);
        let next = last;
        if (end) next = end.key.startsWith('\0') ? null : { id: end.key, count: end.messages.length };
        else if (reopened && last) next = reopenedMessages.length > 0 ? { id: last.id, count: reopenedMessages.length } : null;
        return { lines: parsed.total, ids, last: next };
      },
    },
  };
}

/**
 * The record that made the last stored messages: a call with its results makes `id` then
 * `id/results`. Null when it had no id of its own (its message id is then `<type>-<line>`, which
 * an appended record's id would not reopen) or the messages do not say.
 */
function lastRecord(session: StoredSession): LastRecord | null {
  const tail = session.messagesFrom(Math.max(0, session.messageCount - 2));
  const m = tail.at(-1);
  if (!m) return null;
  const generated = (x: Message): boolean =>
    x.sourceLine !== undefined && /^(user|gemini|model|undefined)-\d+$/.test(x.id) && x.id.endsWith(`-${x.sourceLine}`);
  if (m.role === 'tool' && m.id.endsWith('/results')) {
    const id = m.id.slice(0, -'/results'.length);
    const call = tail.length === 2 ? tail[0]! : undefined;
    return call && call.id === id && call.role === 'assistant' && !generated(call) ? { id, count: 2 } : null;
  }
  return generated(m) ? null : { id: m.id, count: 1 };
}

/** `"id": "<value>"` anywhere in a line (JSON.stringify writes no space; a reader might). */
const ID = /"id"\s*:\s*"((?:[^"\\\n]|\\.)*)"/g;

/**
 * Every `"id"` string value in bytes fed to it, decoded: whole lines are matched (a chunk may end
 * inside a character or a line). The tail feeds it the file as it hashes it when the watch
 * begins, so the first append does not read the file again.
 */
class IdScan implements ByteScan {
  readonly ids = new Set<string>();
  private carry: Uint8Array = new Uint8Array(0);
  feed(chunk: Uint8Array): void {
    const bytes = this.carry.length > 0 ? concatBytes([this.carry, chunk]) : chunk;
    const nl = bytes.lastIndexOf(10);
    collect(textOf(bytes, 0, nl + 1), this.ids);
    this.carry = bytes.slice(nl + 1);
  }
  /** The ids, once every byte was fed (the last line, without its newline, matched too). */
  done(): Set<string> {
    collect(textOf(this.carry), this.ids);
    this.carry = new Uint8Array(0);
    return this.ids;
  }
}

/** Every `"id"` string value in bytes [0, size) of the file (undefined: the file is shorter now); read in 1 MB chunks. */
function idsIn(read: ReadBytes, size: number): Set<string> | undefined {
  const scan = new IdScan();
  for (let at = 0; at < size;) {
    const b = read(at, Math.min(size, at + (1 << 20)));
    if (b.length === 0) return undefined;
    at += b.length;
    scan.feed(b);
  }
  return scan.done();
}

function collect(text: string, ids: Set<string>): void {
  for (const m of text.matchAll(ID)) {
    const raw = m[1]!;
    // Decoded only when it holds an escape (a JSON.parse per id is most of the scan's time).
    if (!raw.includes('\\')) {
      ids.add(raw);
      continue;
    }
    try {
      ids.add(JSON.parse(`"${raw}"`) as string);
    } catch {
      // Not a JSON string: not an id the import would read.
    }
  }
}

/**
 * Live tail of the JSON session (`{sessionId, projectHash, startTime, lastUpdated, messages[]}`;
 * the walk: src/main/store/tail-document.ts). Gemini CLI
 * writes the whole document again at each change: a turn adds records at the end of `messages`,
 * and the running call is written again in place with its results and tokens (the last element
 * written again). Each record converts on its own with the importer's `convert`; `lastUpdated`
 * changes at every write and nothing stored comes from it. The session's model is its last
 * message's: another one (or none where the replaced record had one) takes the whole-file path,
 * as do the other keys (the id, start time and summary are the session's).
 *
 * A checkpoint (`/chat save <tag>`: `checkpoint-<tag>.json`, a bare `[{role: user|model,
 * parts[]}]`) is saved again whole with more turns: each new element converts alone as the
 * import converts it (its role as its type). An element that is not such a record (the import then
 * refuses the file) takes the whole-file path, to say so.
 */
const geminiDocument: DocumentShape = {
  arrays: ['messages'],
  conversation: 'messages',
  skeleton: (doc) => {
    if (!isRecord(doc) || typeof doc['sessionId'] !== 'string' || !('projectHash' in doc)) return undefined;
    const { lastUpdated: _volatile, ...kept } = doc;
    return kept;
  },
  // The import keeps the records that are objects, without line numbers or raw records (a document).
  convert: eachAlone((element) => (isRecord(element) ? convert(element, undefined, true, undefined) : [])),
  reopen: true,
  keepsSession: (session, _skeleton, removed, changed) => {
    const model = changed
      .map((m) => m.model)
      .filter((x): x is string => !!x)
      .at(-1);
    return model !== undefined ? model === session.model : !removed.some((m) => m.model !== undefined);
  },
};

/** An element of a checkpoint as the import requires every one to be (else it refuses the file). */
const isCheckpointRecord = (m: unknown): m is Json =>
  isRecord(m) && (m['role'] === 'user' || m['role'] === 'model') && Array.isArray(m['parts']);

const geminiCheckpointDocument: DocumentShape = {
  arrays: [''],
  conversation: '',
  skeleton: (doc) => (Array.isArray(doc) ? doc : undefined),
  convert: (elements) =>
    elements.every(isCheckpointRecord) ? elements.map((m) => convert({ ...m, type: m['role'] }, undefined, true, undefined)) : undefined,
  reopen: true,
  keepsSession: geminiDocument.keepsSession,
};

export const format: FormatDescriptor = {
  ...importer,
  agent: 'Gemini CLI',
  localLogs: {
    home: ['.gemini'],
    below: ['tmp'],
    // tmp/<project hash>/chats/session-….json(l) and checkpoints; logs.json holds prompts only.
    maxDepth: 2,
    accept: (name, dirs) => dirs.length >= 1 && (name.endsWith('.json') || name.endsWith('.jsonl')) && name !== 'logs.json',
    project: { by: 'folder' },
  },
  tail: {
    lines: linesTail<GeminiTail>({
      // The ids in the file are read on the pass that hashes it as the watch begins (a JSONL file, by its name).
      scan: () => new IdScan(),
      start: ({ lines, document, scanned, name }) =>
        document === false
          ? { lines, ids: scanned instanceof Set && name.endsWith('.jsonl') ? (scanned as Set<string>) : undefined, last: undefined }
          : undefined,
      append: ({ state, appended, session, size, read }) => appendGemini(state, appended, session, size, read),
    }),
    document: { shapes: [geminiDocument, geminiCheckpointDocument] },
  },
};
