/**
 * The generic JSONL of `{role, content}` messages (importer: core/import/jsonl.ts).
 *
 * Live tail: every line is one message, converted on its own (`chatMessages`): an appended line
 * becomes one new message, numbered as the import numbers it (`file#n`, n = its position among the
 * file's lines, for a line without its own id). Nothing an appended line says reaches back, so the
 * only cases left to the whole-file path are:
 * - a session with no message yet (leading system lines form the system prompt: another one would
 *   extend it);
 * - a line that is not a message (the import refuses the file: the whole-file path says where);
 * - a line without an id when the position of the lines is not known here (no stored message has
 *   a positional id and the file has system-prompt lines).
 */
import { chatMessages, isChatMessage } from '../import/chat-messages';
import { importer } from '../import/jsonl';
import { parseAppended } from './bytes';
import { linesTail, type FormatDescriptor, type StoredSession } from './types';

declare module '../model' {
  interface FormatIds {
    jsonl: true;
  }
}

/** What the fast path keeps between appends. */
interface JsonlTail {
  /** Lines in the imported bytes. */
  readonly lines: number;
  /** Message lines before the append (the next line's position); undefined until worked out, null when not known. */
  readonly index: number | null | undefined;
}

/**
 * The position of the next line among the file's message lines: from the last stored message
 * with a positional id (every line after it is one message), else, when the file has no system
 * prompt lines, the count of messages; else null.
 */
function position(session: StoredSession, name: string): number | null {
  const prefix = `${name}#`;
  for (const row of session.backward()) {
    const rest = row.id.startsWith(prefix) ? row.id.slice(prefix.length) : '';
    if (/^\d+$/.test(rest)) return Number(rest) + 1 + (session.messageCount - 1 - row.index);
  }
  return session.meta().systemPrompt === null ? session.messageCount : null;
}

export const format: FormatDescriptor = {
  ...importer,
  agent: 'chat log',
  tail: {
    lines: linesTail<JsonlTail>({
      start: ({ lines }) => ({ lines, index: undefined }),
      append: ({ state, appended, session, name }) => {
        if (session.messageCount === 0) return { state };
        const parsed = parseAppended(appended, state.lines);
        if (!parsed || !parsed.lines.every((l) => isChatMessage(l.value))) return { state };
        const index = state.index === undefined ? position(session, name) : state.index;
        const looked = { ...state, index };
        if (index === null && parsed.lines.some((l) => typeof l.value['id'] !== 'string')) return { state: looked };
        // Raw records by line, as an import that keeps line records names them (a small file keeps
        // them inline instead; either way the record is the line's text).
        const conv = chatMessages(
          parsed.lines.map((l) => l.value),
          `${name}#`,
          parsed.lines.map((l) => l.line),
          undefined,
          { index: index ?? 0, systemOpen: false },
        );
        if (conv.systemPrompt !== null || conv.messages.length !== parsed.lines.length) return { state: looked };
        return {
          state: looked,
          change: {
            from: session.messageCount,
            removed: [],
            changed: conv.messages,
            records: { lines: new Map(parsed.lines.map((l) => [l.line, l.text])) },
            next: () => ({ lines: parsed.total, index: index === null ? null : index + parsed.lines.length }),
          },
        };
      },
    }),
  },
};
