/**
 * Codex CLI rollouts (importer: core/import/codex.ts): `~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`.
 *
 * Live tail (docs/user-guide.md "Live tail"):
 * The appended lines are read by the importer's own rollout reader, resumed where the imported
 * lines left it (`continueRollout`): the count of items without an id (generated ids are
 * `file#n`), the assistant message still being built (the next model-side item continues it, a
 * token_count gives it its usage), the model and the reported window. What the resumed reader
 * makes is what a first import of the grown file makes from those lines on.
 *
 * The whole-file path decides instead when an appended line could change what came
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
import { continueRollout, importer, type CodexContinuation } from '../import/codex';
import { isInputItem, isModelSideItem } from '../import/responses-items';
import type { JsonLine } from '../import/types';
import { isRecord } from '../import/util';
import type { Message } from '../model';
import { concatBytes, parseAppended, textOf } from './bytes';
import { linesTail, type FormatDescriptor, type LinesAnswer, type ReadBytes, type StoredSession } from './types';

declare module '../model' {
  interface FormatIds {
    codex: true;
  }
}

/** What the fast path keeps between appends. */
interface CodexTail {
  /** Lines in the imported bytes. */
  readonly lines: number;
  /** The reader's state at the end of them; undefined until worked out (on the first append, and after the whole-file path). */
  readonly from: CodexContinuation | undefined;
}

/** How far back the reader's state is looked for before the whole-file path is left to decide. */
const SCAN_LIMIT = 16 << 20;

/** The fast path's answer for the complete lines in `appended` (after the imported ones of the file imported as `name`). */
function appendCodex(
  tail: CodexTail,
  appended: Uint8Array,
  session: StoredSession,
  name: string,
  size: number,
  read: ReadBytes,
): LinesAnswer<CodexTail> {
  if (session.messageCount === 0) return { state: tail };
  const parsed = parseAppended(appended, tail.lines);
  if (!parsed) return { state: tail };
  const from = tail.from ?? continuation(session, name, read, size, tail.lines);
  const looked = { ...tail, from };
  if (!from) return { state: looked };
  const lines: JsonLine[] = parsed.lines.map((l) => ({ line: l.line, value: l.value, raw: l.text }));
  const r = continueRollout(lines, name, true, from);
  if (r.compactions > 0 || r.metaLines > 0 || r.model !== from.model || r.window !== from.window) return { state: looked };
  const last = session.messageCount - 1;
  // The reopened message comes back first (extended, or given its usage); the rest are new.
  if (from.open && r.messages[0]?.id !== from.open.message.id) return { state: looked };
  const unchanged = from.open !== undefined && r.messages.length === 1 && sameMessage(r.messages[0]!, from);
  const changed = unchanged ? [] : r.messages;
  const end = r.messages[r.messages.length - 1];
  return {
    state: looked,
    change: {
      from: from.open && !unchanged ? last : session.messageCount,
      removed: from.open && !unchanged ? [from.open.message] : [],
      changed,
      records: 'inline',
      next: () => ({
        lines: parsed.total,
        // Waiting for a token_count with no call being built: the call it reports on is stored
        // already, maybe not last. Worked out again (and, while so, left to the whole-file path).
        from:
          r.pending && !r.open
            ? undefined
            : {
                seq: r.seq,
                model: r.model,
                window: r.window,
                ...(r.open && end ? { open: { message: withoutRaw(end), raw: end.raw } } : {}),
              },
      }),
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
function parseLine(bytes: Uint8Array): Record<string, unknown> | undefined {
  const t = textOf(bytes).trim();
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
    private readonly read: ReadBytes,
    private readonly end: number,
    private readonly lines: number,
  ) {}

  *[Symbol.iterator](): Generator<{ line: number; value: Record<string, unknown> }> {
    if (this.end === 0) {
      this.complete = true;
      return;
    }
    // The bytes end with a newline: without it, every newline going back starts a line, and
    // the last line is line `lines`.
    let line = this.lines;
    let after: Uint8Array = new Uint8Array(0);
    for (let to = this.end - 1; ;) {
      if (this.end - to > SCAN_LIMIT) return;
      const at = Math.max(0, to - (1 << 20));
      const buf = this.read(at, to);
      // The file is shorter now: no state from it.
      if (buf.length < to - at) return;
      const text = after.length > 0 ? concatBytes([buf, after]) : buf;
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
      after = text.slice(0, stop);
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
function continuation(session: StoredSession, name: string, read: ReadBytes, size: number, lines: number): CodexContinuation | undefined {
  const prefix = `${name}#`;
  let generated: { n: number; line: number } | undefined;
  for (const row of session.backward()) {
    const rest = row.id.startsWith(prefix) ? row.id.slice(prefix.length) : '';
    if (!/^\d+$/.test(rest)) continue;
    const line = row.message().sourceLine;
    if (line === undefined) break;
    generated = { n: Number(rest), line };
    break;
  }
  if (!generated) return undefined;
  let seq = generated.n;
  /** What the last lines say: undefined until known. */
  let open: boolean | undefined;
  let pending: boolean | undefined;
  const back = new LinesBackward(read, size, lines);
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
  const meta = session.meta();
  const base = { seq, model: session.model ?? undefined, window: meta.reportedContextWindow };
  if (!open) return base;
  const lastIdx = session.messageCount - 1;
  const message = session.messagesFrom(lastIdx)[0]!;
  if (message.role !== 'assistant') return undefined;
  // The open call's model is the session's (the reader adds it when the call is finished).
  const { model: _model, ...bare } = message;
  return { ...base, open: { message: bare, raw: session.rawOf(lastIdx) ?? undefined } };
}

export const format: FormatDescriptor = {
  ...importer,
  agent: 'Codex',
  defaultPolicy: 'codex',
  localLogs: {
    env: 'CODEX_HOME',
    home: ['.codex'],
    below: ['sessions'],
    // sessions/YYYY/MM/DD/rollout-….jsonl
    maxDepth: 3,
    accept: (name) => name.endsWith('.jsonl'),
    project: { by: 'cwd' },
  },
  tail: {
    lines: linesTail<CodexTail>({
      start: ({ lines }) => ({ lines, from: undefined }),
      append: ({ state, appended, session, name, size, read }) => appendCodex(state, appended, session, name, size, read),
    }),
  },
};
