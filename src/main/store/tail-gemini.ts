/**
 * Live tail's fast path for Gemini CLI's JSONL session (docs/user-guide.md "Live tail"; the format:
 * core/import/gemini-cli.ts, docs/reference/formats.md, Gemini CLI). The import keeps records by id in first-written
 * order, a record written again replacing its copy in place; each record converts on its own.
 * Gemini CLI writes a turn as new records, and rewrites the call it is running (its results and
 * tokens) under the same id: so an appended record either adds messages after the stored ones or
 * replaces the last record's messages (the last one or two). The appended lines are converted
 * with the importer's own `convert`.
 *
 * The whole-file path (store/tail.ts) decides instead when an appended line could change what
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
import { closeSync, openSync, readSync } from 'node:fs';
import { convert, lineKind } from '../../core/import/gemini-cli';
import { str } from '../../core/import/util';
import type { Message } from '../../core/model';
import type { SessionStore } from './sessions';
import { inline, onlySession, parseAppended, planAppend, type FastPlan, type NewLine, type OnlySession } from './tail-append';

/** The record whose messages are the last stored ones, and how many it made. */
interface LastRecord {
  readonly id: string;
  readonly count: number;
}

/** What the fast path keeps between appends (see TailState.gemini). */
export interface GeminiTail {
  /** Lines in the imported bytes. */
  lines: number;
  /** Every `"id"` string value in the imported bytes; undefined until read (on the first append). */
  ids: Set<string> | undefined;
  /** The last stored record (null: none that an append may write again); undefined until worked out. */
  last: LastRecord | null | undefined;
}

/** `$set` keys the session is built from (core/import/gemini-cli.ts `build`). */
const SESSION_KEYS = ['messages', 'sessionId', 'startTime', 'summary'];
/** The import's keys for records without an id: an appended id like them could meet one. */
const OWN_KEY = /^(#\d+$|\$set-)/;

/**
 * The plan for the complete lines in `appended` (the bytes after the imported ones of `path`,
 * `size` long), or undefined when the whole-file path must decide.
 */
export function appendGemini(
  store: SessionStore,
  sourceId: number,
  path: string,
  size: number,
  tail: GeminiTail,
  appended: Buffer,
): FastPlan | undefined {
  const session = onlySession(store, sourceId);
  if (!session || session.messageCount === 0) return undefined;
  const parsed = parseAppended(appended, tail.lines);
  if (!parsed) return undefined;
  tail.ids ??= idsIn(path, size);
  tail.last ??= lastRecord(store, session);
  const ids = tail.ids;
  if (!ids) return undefined;
  const last = tail.last;
  // The last stored record written again (it keeps its place: first), then new records in order.
  let reopened: NewLine | undefined;
  const added = new Map<string, NewLine>();
  let anonymous = 0;
  for (const l of parsed.lines) {
    const kind = lineKind(l.value);
    if (kind === 'set') {
      const set = l.value['$set'] as Record<string, unknown>;
      if (SESSION_KEYS.some((k) => k in set)) return undefined;
      continue;
    }
    if (kind !== 'record') return undefined;
    const own = str(l.value['id']);
    if (own !== undefined && OWN_KEY.test(own)) return undefined;
    const key = own ?? `\0${++anonymous}`;
    if (added.has(key)) added.set(key, l);
    else if (own !== undefined && ids.has(own)) {
      if (!last || own !== last.id) return undefined;
      reopened = l;
    } else added.set(key, l);
  }
  const convertLine = (l: NewLine): Message[] => convert(l.value, l.line, true, l.text);
  // A record without an id is keyed `#n` by the import, n counted over the file: an earlier record with such an id would be replaced.
  if (anonymous > 0 && [...ids].some((k) => OWN_KEY.test(k))) return undefined;
  const removed = reopened && last ? storedFrom(store, session, session.messageCount - last.count) : [];
  // A prompt written again may be the one the title comes from (planAppend keeps a title a stored typed prompt gave).
  if (removed.some((m) => m.role === 'user')) return undefined;
  const reopenedMessages = reopened ? convertLine(reopened) : [];
  const records = [...added.entries()].map(([key, l]) => ({ key, messages: convertLine(l) }));
  const changed = [...reopenedMessages, ...records.flatMap((r) => r.messages)];
  // The session's model is its last message's: another one, or none where the removed had one, changes the session row.
  const model = changed
    .map((m) => m.model)
    .filter((x): x is string => !!x)
    .at(-1);
  if (model !== undefined ? model !== session.model : removed.some((m) => m.model !== undefined)) return undefined;
  const plan = planAppend(store, { session, from: session.messageCount - removed.length, removed, changed, record: inline });
  if (!plan) return undefined;
  return {
    ...plan,
    advance: () => {
      tail.lines = parsed.total;
      for (const l of parsed.lines) {
        const own = str(l.value['id']);
        if (own !== undefined) ids.add(own);
      }
      // The last record that made messages is the one a later append may write again.
      const withMessages = records.filter((r) => r.messages.length > 0);
      const end = withMessages.at(-1);
      if (end) tail.last = end.key.startsWith('\0') ? null : { id: end.key, count: end.messages.length };
      else if (reopened && last) tail.last = reopenedMessages.length > 0 ? { id: last.id, count: reopenedMessages.length } : null;
    },
  };
}

/** Stored messages [from, count) as loadSession reads them. */
function storedFrom(store: SessionStore, session: OnlySession, from: number): Message[] {
  const bodies = store.db
    .prepare('SELECT body FROM messages WHERE session_id = ? AND idx >= ? ORDER BY idx')
    .pluck()
    .all(session.id, from) as string[];
  return bodies.map((b) => JSON.parse(b) as Message);
}

/**
 * The record that made the last stored messages: a call with its results makes `id` then
 * `id/results`. Null when it had no id of its own (its message id is then `<type>-<line>`, which
 * an appended record's id would not reopen) or the messages do not say.
 */
function lastRecord(store: SessionStore, session: OnlySession): LastRecord | null {
  const tail = storedFrom(store, session, Math.max(0, session.messageCount - 2));
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
export class IdScan {
  readonly ids = new Set<string>();
  private carry = Buffer.alloc(0);
  feed(chunk: Uint8Array): void {
    const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, b]) : b;
    const nl = bytes.lastIndexOf(10);
    collect(bytes.subarray(0, nl + 1).toString('utf8'), this.ids);
    this.carry = Buffer.from(bytes.subarray(nl + 1));
  }
  /** The ids, once every byte was fed (the last line, without its newline, matched too). */
  done(): Set<string> {
    collect(this.carry.toString('utf8'), this.ids);
    this.carry = Buffer.alloc(0);
    return this.ids;
  }
}

/** Every `"id"` string value in bytes [0, size) of the file (undefined: the file is shorter now); read in 1 MB chunks. */
function idsIn(path: string, size: number): Set<string> | undefined {
  const scan = new IdScan();
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let at = 0; at < size;) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
      if (n === 0) return undefined;
      at += n;
      scan.feed(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
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
