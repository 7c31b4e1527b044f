/**
 * Live tail's fast path for the generic JSONL of `{role, content}` messages (docs/user-guide.md "Live tail";
 * the format: core/import/jsonl.ts). Every line is one message, converted on its own
 * (`chatMessages`): an appended line becomes one new message, numbered as the import numbers it
 * (`file#n`, n = its position among the file's lines, for a line without its own id). Nothing an
 * appended line says reaches back, so the only cases left to the whole-file path are:
 * - a session with no message yet (leading system lines form the system prompt: another one would
 *   extend it);
 * - a line that is not a message (the import refuses the file: the whole-file path says where);
 * - a line without an id when the position of the lines is not known here (no stored message has
 *   a positional id and the file has system-prompt lines).
 */
import { chatMessages, isChatMessage } from '../../core/import/chat-messages';
import type { Session } from '../../core/model';
import type { SessionStore } from './sessions';
import { byLine, onlySession, parseAppended, planAppend, type FastPlan, type OnlySession } from './tail-append';

/** What the fast path keeps between appends (see TailState.jsonl). */
export interface JsonlTail {
  /** Lines in the imported bytes. */
  lines: number;
  /** Message lines before the append (the next line's position); undefined until worked out, null when not known. */
  index: number | null | undefined;
}

/**
 * The plan for the complete lines in `appended` (the bytes after the imported ones of `path`,
 * imported under that name), or undefined when the whole-file path must decide.
 */
export function appendJsonl(store: SessionStore, sourceId: number, path: string, tail: JsonlTail, appended: Buffer): FastPlan | undefined {
  const session = onlySession(store, sourceId);
  if (!session || session.messageCount === 0) return undefined;
  const parsed = parseAppended(appended, tail.lines);
  if (!parsed || !parsed.lines.every((l) => isChatMessage(l.value))) return undefined;
  tail.index ??= position(store, session, path);
  const index = tail.index;
  if (index === null && parsed.lines.some((l) => typeof l.value['id'] !== 'string')) return undefined;
  const at = index ?? 0;
  // Raw records by line, as an import that keeps line records names them (a small file keeps them
  // inline instead; either way the record is the line's text).
  const conv = chatMessages(
    parsed.lines.map((l) => l.value),
    `${path}#`,
    parsed.lines.map((l) => l.line),
    undefined,
    { index: at, systemOpen: false },
  );
  if (conv.systemPrompt !== null || conv.messages.length !== parsed.lines.length) return undefined;
  const plan = planAppend(store, {
    session,
    from: session.messageCount,
    removed: [],
    changed: conv.messages,
    record: byLine(store, sourceId, new Map(parsed.lines.map((l) => [l.line, l.text]))),
  });
  if (!plan) return undefined;
  return {
    ...plan,
    advance: () => {
      tail.lines = parsed.total;
      tail.index = index === null ? null : index + parsed.lines.length;
    },
  };
}

/**
 * The position of the next line among the file's message lines: from the last stored message
 * with a positional id (every line after it is one message), else, when the file has no system
 * prompt lines, the count of messages; else null.
 */
function position(store: SessionStore, session: OnlySession, path: string): number | null {
  const prefix = `${path}#`;
  const rows = store.db
    .prepare('SELECT idx, message_id AS id FROM messages WHERE session_id = ? ORDER BY idx DESC')
    .iterate(session.id) as IterableIterator<{ idx: number; id: string }>;
  for (const row of rows) {
    const rest = row.id.startsWith(prefix) ? row.id.slice(prefix.length) : '';
    if (/^\d+$/.test(rest)) return Number(rest) + 1 + (session.messageCount - 1 - row.idx);
  }
  const meta = JSON.parse(store.db.prepare('SELECT meta FROM sessions WHERE id = ?').pluck().get(session.id) as string) as Omit<
    Session,
    'messages'
  >;
  return meta.systemPrompt === null ? session.messageCount : null;
}
