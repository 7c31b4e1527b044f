/**
 * aider chat history (`.aider.chat.history.md`, docs/reference/formats.md, aider): `# aider chat started at …`
 * starts a session, `#### ` lines are the user, `> ` lines are aider's notices — among them one
 * `> Tokens: 2.4k sent, 104 received.` per LLM call, kept as coarse reported usage, and the
 * `> Model:` header that names the model and edit format — and the rest is the assistant.
 *
 * What aider sent, as far as the log tells (docs/reference/formats.md "What each importer rebuilds"):
 * - `/clear` and `/reset` empty the chat history: a source compaction that drops everything
 *   before it. Other in-chat commands (`/add`, `/run`, …) are not sent; `/ask`, `/code` and
 *   `/architect` send the text after them.
 * - Architect mode: the architect call sees the chat; the editor model is then run on the
 *   architect's answer alone, in a fresh chat — a subagent session here, out of the main window —
 *   and the main chat is told "I made those changes to the files.".
 */
import type { Message, Session, SourceCompaction } from '../model';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';

const START = /^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})/m;
const MODEL = /^> (?:Main model|Model): (\S+) with ([\w-]+) edit format/;
const EDITOR_MODEL = /^> Editor model: (\S+)/;
const TOKENS = /^> Tokens: ([\d.,]+[kKmM]?) sent, ([\d.,]+[kKmM]?) received/;
/** Commands whose text is sent to the model (the rest run locally). */
const SENDING_COMMANDS = new Set(['/ask', '/code', '/architect', '/context']);
const CLEARING_COMMANDS = new Set(['/clear', '/reset']);
/** What aider's architect tells the main chat once the editor has run. */
const EDITOR_DONE = 'I made those changes to the files.';

function detect(sniff: Sniff): boolean {
  return sniff.shape === 'text' && START.test(sniff.head);
}

/** "2.4k" → 2400, "104" → 104, "1.2M" → 1,200,000. */
export function aiderCount(s: string): number {
  const m = /^([\d.,]+)\s*([kKmM]?)$/.exec(s.trim());
  if (!m) return 0;
  const n = Number(m[1]!.replace(/,/g, ''));
  return Math.round(n * (m[2]?.toLowerCase() === 'k' ? 1_000 : m[2]?.toLowerCase() === 'm' ? 1_000_000 : 1));
}

interface Current {
  started?: number;
  model?: string;
  editorModel?: string;
  /** The session's edit format is `architect`. */
  architect: boolean;
  messages: Message[];
  compactions: SourceCompaction[];
  editors: Session[];
  /** Where the last assistant message went (main chat or an editor's), for the token line after it. */
  last?: Message[];
  /** This turn: assistant answers so far, architect mode, the editor chat opened for it. */
  answers: number;
  turnArchitect: boolean;
  editor?: Session & { messages: Message[] };
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'text') throw new ImportError(ctx.name, 'an aider chat history (Markdown)');
  const sessions: Session[] = [];
  let cur: Current | null = null;
  let mode: 'user' | 'assistant' | null = null;
  let buf: string[] = [];
  let line = 0;
  let startLine = 0;
  const stamp = (c: Current) => (c.started !== undefined ? { timestamp: c.started } : {});
  /** The editor ran on the architect's answer: the main chat hears that the changes were made. */
  const endTurn = (c: Current): void => {
    if (c.editor)
      c.messages.push({
        id: `${ctx.name}#${startLine}-done`,
        role: 'user',
        parts: [{ kind: 'text', text: EDITOR_DONE }],
        sourceLine: startLine,
        ...stamp(c),
      });
    c.editor = undefined;
    c.answers = 0;
  };
  const flush = (): void => {
    if (!cur || !mode) return;
    const text = buf.join('\n').trim();
    buf = [];
    const role = mode;
    mode = null;
    if (!text) return;
    const message: Message = {
      id: `${ctx.name}#${startLine}`,
      role,
      parts: [{ kind: 'text', text }],
      sourceLine: startLine,
      ...stamp(cur),
    };
    if (role === 'user') {
      endTurn(cur);
      cur.messages.push(message);
      return;
    }
    cur.answers++;
    if (cur.turnArchitect && cur.answers > 1) {
      // An editor call: a fresh chat holding the architect's answer, then the editor's own turns.
      if (!cur.editor) {
        const plan = [...cur.messages].reverse().find((m) => m.role === 'assistant');
        const planText = plan?.parts[0]?.kind === 'text' ? plan.parts[0].text : '';
        cur.editor = {
          id: `${ctx.name}#editor-${startLine}`,
          format: 'aider',
          ...((cur.editorModel ?? cur.model) ? { model: (cur.editorModel ?? cur.model)! } : {}),
          systemPrompt: null,
          tools: [],
          messages: [
            {
              id: `${ctx.name}#${startLine}-plan`,
              role: 'user',
              parts: [{ kind: 'text', text: planText }],
              sourceLine: startLine,
              ...stamp(cur),
            },
          ],
          sourceCompactions: [],
          subagents: [],
          warnings: [],
        };
        cur.editors.push(cur.editor);
      }
      cur.editor.messages.push(message);
      cur.last = cur.editor.messages;
      return;
    }
    cur.messages.push(message);
    cur.last = cur.messages;
  };
  const close = (): void => {
    flush();
    if (!cur) return;
    endTurn(cur);
    if (cur.messages.length || cur.editors.length) {
      sessions.push({
        id: `${ctx.name}#${sessions.length + 1}`,
        format: 'aider',
        ...(cur.model ? { model: cur.model } : {}),
        systemPrompt: null,
        tools: [],
        messages: cur.messages,
        sourceCompactions: cur.compactions,
        subagents: cur.editors,
        ...(cur.started !== undefined ? { startedAt: cur.started } : {}),
        warnings: [],
      });
    }
  };
  for (const raw of input.text.split('\n')) {
    line++;
    const start = START.exec(raw);
    if (start) {
      close();
      cur = {
        started: Date.parse(start[1]!.replace(' ', 'T') + 'Z'),
        architect: false,
        messages: [],
        compactions: [],
        editors: [],
        answers: 0,
        turnArchitect: false,
      };
      continue;
    }
    if (!cur) continue;
    if (raw.startsWith('#### ')) {
      const text = raw.slice(5);
      if (mode !== 'user' && text.startsWith('/')) {
        // An in-chat command: only some send their text to the model.
        flush();
        const [command = '', ...rest] = text.split(' ');
        if (CLEARING_COMMANDS.has(command)) {
          endTurn(cur);
          const dropped = cur.messages.slice(cur.compactions.at(-1)?.atMessage ?? 0).map((m) => m.id);
          cur.compactions.push({ atMessage: cur.messages.length, trigger: 'manual', droppedIds: dropped, sourceLine: line });
          continue;
        }
        if (!SENDING_COMMANDS.has(command)) continue;
        mode = 'user';
        startLine = line;
        cur.turnArchitect = command === '/architect' || (cur.architect && command !== '/ask' && command !== '/code');
        buf.push(rest.join(' '));
        continue;
      }
      if (mode !== 'user') {
        flush();
        mode = 'user';
        startLine = line;
        cur.turnArchitect = cur.architect;
      }
      buf.push(text);
      continue;
    }
    if (raw.startsWith('> ')) {
      flush();
      const model = MODEL.exec(raw);
      if (model) {
        cur.model = model[1]!;
        cur.architect = model[2] === 'architect';
        continue;
      }
      const editor = EDITOR_MODEL.exec(raw);
      if (editor) {
        cur.editorModel = editor[1]!;
        continue;
      }
      const tokens = TOKENS.exec(raw);
      const list = cur.last;
      if (tokens && list && list.length > 0 && list.at(-1)!.role === 'assistant') {
        // The token line closes one LLM call: it belongs to the assistant message just before it.
        list[list.length - 1] = {
          ...list.at(-1)!,
          usage: {
            convention: 'openai',
            input: aiderCount(tokens[1]!),
            cacheRead: 0,
            cacheWrite: 0,
            output: aiderCount(tokens[2]!),
            coarse: true,
          },
        };
      }
      continue;
    }
    if (mode === 'user' && raw.trim() === '') {
      flush();
      continue;
    }
    if (mode !== 'assistant') {
      flush();
      mode = 'assistant';
      startLine = line;
    }
    buf.push(raw);
  }
  close();
  if (sessions.length === 0) throw new ImportError(ctx.name, 'an aider session (`# aider chat started at …` followed by messages)');
  return sessions;
}

export const importer: Importer = { id: 'aider', label: 'aider chat history (Markdown)', detect, parse };
