/**
 * Live tail's fast path for Codex rollouts (docs/user-guide.md "Live tail"; the format: core/import/codex.ts).
 * The appended lines are read by the importer's own rollout reader, resumed where the imported
 * lines left it (`continueRollout`): the count of items without an id (generated ids are
 * `file#n`), the assistant message still being built (the next model-side item continues it, a
 * token_count gives it its usage), the model and the reported window. What the resumed reader
 * makes is what a first import of the grown file makes from those lines on.
 *
 * The whole-file path (store/tail.ts) decides instead when an appended line could change what came
 * before, or the reader's state at the end of the imported lines is not known here:
 * - a `compacted` line (it names earlier messages kept verbatim and changes the session's compactions);
 * - a `session_meta` line (it sets the session's id, cwd, start and system prompt);
 * - a turn_context naming another model (the importer gives the last model to every assistant
 *   message without one, earlier ones included);
 * - another reported context window (session metadata);
 * - a token_count that would give its usage to a stored call that is not the last message (the
 *   reader was left waiting for one after a tool output or a user message: rare, Codex writes the
 *   token_count right after the response);
 * - a rollout none of whose stored messages has a generated id (the count of id-less items is
 *   then not known without reading the whole file), or whose state cannot be found within the
 *   last SCAN_LIMIT bytes.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { continueRollout, type CodexContinuation } from '../../core/import/codex';
import { isInputItem, isModelSideItem } from '../../core/import/responses-items';
import type { JsonLine } from '../../core/import/types';
import { isRecord } from '../../core/import/util';
import type { Message, Session } from '../../core/model';
import type { SessionStore } from './sessions';
import { inline, onlySession, parseAppended, planAppend, type FastPlan, type OnlySession } from './tail-append';

/** What the fast path keeps between appends (see TailState.codex). */
export interface CodexTail {
  /** Lines in the imported bytes. */
  lines: number;
  /** The reader's state at the end of them; undefined until worked out (on the first append, and after the whole-file path). */
  from: CodexContinuation | undefined;
}

/** How far back the reader's state is looked for before the whole-file path is left to decide. */
const SCAN_LIMIT = 16 << 20;

/**
 * The plan for the complete lines in `appended` (the bytes after the imported ones of `path`,
 * which was imported under that name), or undefined when the whole-file path must decide.
 */
export function appendCodex(
  store: SessionStore,
  sourceId: number,
  path: string,
  size: number,
  tail: CodexTail,
  appended: Buffer,
): FastPlan | undefined {
  const session = onlySession(store, sourceId);
  if (!session || session.messageCount === 0) return undefined;
  const parsed = parseAppended(appended, tail.lines);
  if (!parsed) return undefined;
  tail.from ??= continuation(store, session, path, size, tail.lines);
  const from = tail.from;
  if (!from) return undefined;
  const lines: JsonLine[] = parsed.lines.map((l) => ({ line: l.line, value: l.value, raw: l.text }));
  const r = continueRollout(lines, path, true, from);
  if (r.compactions > 0 || r.metaLines > 0 || r.model !== from.model || r.window !== from.window) return undefined;
  const last = session.messageCount - 1;
  // The reopened message comes back first (extended, or given its usage); the rest are new.
  if (from.open && r.messages[0]?.id !== from.open.message.id) return undefined;
  const unchanged = from.open !== undefined && r.messages.length === 1 && sameMessage(r.messages[0]!, from);
  const changed = unchanged ? [] : r.messages;
  const plan = planAppend(store, {
    session,
    from: from.open && !unchanged ? last : session.messageCount,
    removed: from.open && !unchanged ? [from.open.message] : [],
    changed,
    record: inline,
  });
  if (!plan) return undefined;
  const end = r.messages[r.messages.length - 1];
  return {
    ...plan,
    advance: () => {
      tail.lines = parsed.total;
      // Waiting for a token_count with no call being built: the call it reports on is stored
      // already, maybe not last. Worked out again (and, while so, left to the whole-file path).
      tail.from =
        r.pending && !r.open
          ? undefined
          : {
              seq: r.seq,
              model: r.model,
              window: r.window,
              ...(r.open && end ? { open: { message: withoutRaw(end), raw: end.raw } } : {}),
            };
    },
  };
}

const withoutRaw = (m: Message): Message => {
  if (m.raw === undefined) return m;
  const { raw: _raw, ...rest } = m;
  return rest;
};

/** The reopened message came back as it was stored (the appended lines only held events): nothing to write. */
function sameMessage(m: Message, from: CodexContinuation): boolean {
  const open = from.open!;
  const stored = from.model !== undefined ? { ...open.message, model: from.model } : open.message;
  return JSON.stringify(withoutRaw(m)) === JSON.stringify(stored) && m.raw === open.raw;
}

/** A line's JSON object; undefined for a blank line or one that is not (the import skipped or refused it: no state either way). */
function parseLine(bytes: Buffer): Record<string, unknown> | undefined {
  const t = bytes.toString('utf8').trim();
  if (t === '') return undefined;
  try {
    const value: unknown = JSON.parse(t);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The complete lines before byte `end` (the file's first `lines` lines), last first, parsed; a
 * line that is not a JSON object is passed over. `complete` once the file's start was reached;
 * reading stops at SCAN_LIMIT bytes.
 */
class LinesBackward {
  complete = false;
  constructor(
    private readonly path: string,
    private readonly end: number,
    private readonly lines: number,
  ) {}

  *[Symbol.iterator](): Generator<{ line: number; value: Record<string, unknown> }> {
    if (this.end === 0) {
      this.complete = true;
      return;
    }
    const fd = openSync(this.path, 'r');
    try {
      // The bytes end with a newline: without it, every newline going back starts a line, and
      // the last line is line `lines`.
      let line = this.lines;
      let after = Buffer.alloc(0);
      for (let to = this.end - 1; ;) {
        if (this.end - to > SCAN_LIMIT) return;
        const at = Math.max(0, to - (1 << 20));
        const buf = Buffer.allocUnsafe(to - at);
        for (let got = 0; got < buf.length;) {
          const n = readSync(fd, buf, got, buf.length - got, at + got);
          if (n === 0) return;
          got += n;
        }
        const text = after.length > 0 ? Buffer.concat([buf, after]) : buf;
        to = at;
        let stop = text.length;
        for (;;) {
          const nl = stop > 0 ? text.lastIndexOf(10, stop - 1) : -1;
          // The line goes on before these bytes: read more first.
          if (nl < 0 && at > 0) break;
          const parsed = parseLine(text.subarray(nl + 1, stop));
          if (parsed) yield { line, value: parsed };
          line--;
          if (nl < 0) {
            this.complete = true;
            return;
          }
          stop = nl;
        }
        after = Buffer.from(text.subarray(0, stop));
      }
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * The reader's state at the end of the first `lines` lines (`size` bytes) of the file, from the
 * stored session and the file's last lines: the last stored message with a generated id gives
 * the count of id-less items up to its line, the lines after it give the rest; the last lines
 * say whether a call is being built (a model-side item after the last input item, token_count
 * and compaction) or a token_count is awaited.
 */
function continuation(store: SessionStore, session: OnlySession, path: string, size: number, lines: number): CodexContinuation | undefined {
  const prefix = `${path}#`;
  let generated: { n: number; line: number } | undefined;
  const rows = store.db
    .prepare('SELECT message_id AS id, body FROM messages WHERE session_id = ? ORDER BY idx DESC')
    .iterate(session.id) as IterableIterator<{ id: string; body: string }>;
  for (const row of rows) {
    const rest = row.id.startsWith(prefix) ? row.id.slice(prefix.length) : '';
    if (!/^\d+$/.test(rest)) continue;
    const line = (JSON.parse(row.body) as Message).sourceLine;
    if (line === undefined) break;
    generated = { n: Number(rest), line };
    break;
  }
  if (!generated) return undefined;
  let seq = generated.n;
  /** What the last lines say: undefined until known. */
  let open: boolean | undefined;
  let pending: boolean | undefined;
  const back = new LinesBackward(path, size, lines);
  /** Every line after the generated id's was seen (the count of id-less items is whole). */
  let counted = false;
  for (const { line, value } of back) {
    if (line <= generated.line) counted = true;
    if (counted && pending !== undefined) break;
    const type = value['type'];
    const p = isRecord(value['payload']) ? value['payload'] : {};
    if (type === 'response_item' && line > generated.line && typeof p['id'] !== 'string') seq++;
    if (pending !== undefined) continue;
    const closes = type === 'compacted' || (type === 'event_msg' && p['type'] === 'token_count' && isRecord(p['info']));
    if (closes) {
      open ??= false;
      pending = false;
    } else if (type === 'response_item' && isModelSideItem(p)) {
      // After an input item, a model-side item awaits its token_count for a call not last.
      pending = true;
      open ??= true;
    } else if (type === 'response_item' && isInputItem(p)) open ??= false;
  }
  // Stopped short (SCAN_LIMIT, or the file shrank meanwhile): the count is not known.
  if (!counted && !back.complete) return undefined;
  if (pending === undefined) {
    // The file's start was reached: nothing awaited, nothing built (a partial scan is not known).
    if (!back.complete) return undefined;
    pending = false;
    open = false;
  }
  if (pending && !open) return undefined;
  const meta = JSON.parse(store.db.prepare('SELECT meta FROM sessions WHERE id = ?').pluck().get(session.id) as string) as Omit<
    Session,
    'messages'
  >;
  const base = { seq, model: session.model ?? undefined, window: meta.reportedContextWindow };
  if (!open) return base;
  const lastIdx = session.messageCount - 1;
  const body = store.db.prepare('SELECT body FROM messages WHERE session_id = ? AND idx = ?').pluck().get(session.id, lastIdx) as string;
  const message = JSON.parse(body) as Message;
  if (message.role !== 'assistant') return undefined;
  // The open call's model is the session's (the reader adds it when the call is finished).
  const { model: _model, ...bare } = message;
  return { ...base, open: { message: bare, raw: store.rawOf(session.id, lastIdx) ?? undefined } };
}
