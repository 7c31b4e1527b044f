/**
 * aider chat history (`.aider.chat.history.md`, FORMATS.md §7): `# aider chat started at …`
 * starts a session, `#### ` lines are the user, `> ` lines are aider's notices — among them one
 * `> Tokens: 2.4k sent, 104 received.` per LLM call, kept as coarse reported usage — and the rest
 * is the assistant.
 */
import type { Message, Session } from '../model';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';

const START = /^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})/m;

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

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'text') throw new ImportError(ctx.name, 'an aider chat history (Markdown)');
  const sessions: Session[] = [];
  let cur: { started?: number; messages: Message[] } | null = null;
  let mode: 'user' | 'assistant' | null = null;
  let buf: string[] = [];
  let line = 0;
  let startLine = 0;
  const flush = (): void => {
    if (!cur || !mode) return;
    const text = buf.join('\n').trim();
    if (text) cur.messages.push({ id: `${ctx.name}#${startLine}`, role: mode, parts: [{ kind: 'text', text }], sourceLine: startLine, ...(cur.started !== undefined ? { timestamp: cur.started } : {}) });
    buf = [];
    mode = null;
  };
  const close = (): void => {
    flush();
    if (cur && cur.messages.length) sessions.push({ id: `${ctx.name}#${sessions.length + 1}`, format: 'aider', systemPrompt: null, tools: [], messages: cur.messages, sourceCompactions: [], subagents: [], ...(cur.started !== undefined ? { startedAt: cur.started } : {}), warnings: [] });
  };
  for (const raw of input.text.split('\n')) {
    line++;
    const start = START.exec(raw);
    if (start) {
      close();
      cur = { started: Date.parse(start[1]!.replace(' ', 'T') + 'Z'), messages: [] };
      continue;
    }
    if (!cur) continue;
    if (raw.startsWith('#### ')) {
      if (mode !== 'user') {
        flush();
        mode = 'user';
        startLine = line;
      }
      buf.push(raw.slice(5));
      continue;
    }
    if (raw.startsWith('> ')) {
      const tokens = /^> Tokens: ([\d.,]+[kKmM]?) sent, ([\d.,]+[kKmM]?) received/.exec(raw);
      if (tokens) {
        flush();
        // The token line closes one LLM call: it belongs to the last assistant message.
        const last = [...cur.messages].reverse().find((m) => m.role === 'assistant');
        if (last) Object.assign(cur.messages, { [cur.messages.lastIndexOf(last)]: { ...last, usage: { convention: 'openai', input: aiderCount(tokens[1]!), cacheRead: 0, cacheWrite: 0, output: aiderCount(tokens[2]!), coarse: true } } });
      } else flush();
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
