/**
 * The default summarizer: extractive, deterministic and offline, so replays are reproducible.
 * Structured like S4's summary — goal, decisions and findings, errors, files touched, facts to
 * keep — built from the folded messages' own sentences, within the target size.
 */
import type { Message } from '../model';
import { factsOfMessage } from './facts';
import type { Summarizer, SummaryRequest } from './types';

const DECISION = /\b(decid|fix|fixed|root cause|because|found|the (?:bug|issue|problem)|will|should|must|plan|instead|switch|conclud|result|pass|fail)/i;
// No leading \b on error/exception: "TypeError", "ValueError", "NullPointerException" count.
const ERROR = /(error|exception)s?\b|\b(failed|failure|traceback|panic|assert)/i;

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 12 && s.length < 400);
}

function filesOf(messages: readonly Message[]): string[] {
  const files = new Set<string>();
  for (const m of messages)
    for (const p of m.parts) {
      if (p.kind !== 'tool_call') continue;
      const path = /"(?:file_path|path|filename|file)"\s*:\s*"([^"]+)"/.exec(p.args)?.[1];
      if (path) files.add(`${path} (${p.name})`);
    }
  return [...files];
}

export function extractiveSummary(req: SummaryRequest): string {
  const budgetChars = Math.max(200, req.targetTokens * 4);
  const goal = req.messages.find((m) => m.role === 'user' && m.parts.some((p) => p.kind === 'text'));
  const goalText = goal?.parts.find((p) => p.kind === 'text');
  const decisions: string[] = [];
  const errors: string[] = [];
  const facts = new Map<string, string>();
  for (const m of req.messages) {
    for (const p of m.parts) {
      const text = p.kind === 'text' ? p.text : p.kind === 'tool_result' ? p.text : '';
      if (!text) continue;
      if (p.kind === 'text' && m.role === 'assistant') for (const s of sentences(text)) if (DECISION.test(s)) decisions.push(s);
      if ((p.kind === 'tool_result' && p.isError) || ERROR.test(text)) {
        // A result the tool flagged as an error leads with its first line when no line names it.
        const line = text.split('\n').find((l) => ERROR.test(l)) ?? (p.kind === 'tool_result' && p.isError ? text.split('\n').find((l) => l.trim() !== '') : undefined);
        if (line) errors.push(line.trim().slice(0, 200));
      }
    }
    // What the user or the agent said or did (not raw tool output): facts shared with retention, cached per message.
    if (!m.parts.every((p) => p.kind === 'tool_result')) for (const f of factsOfMessage(m)) if (!facts.has(f.key)) facts.set(f.key, f.kind);
  }
  const sections: [string, string[]][] = [
    ['Earlier summary', req.previousSummary ? [req.previousSummary] : []],
    ['Goal', goalText && goalText.kind === 'text' ? [goalText.text.slice(0, 400)] : []],
    ['Decisions and findings', unique(decisions)],
    ['Errors seen', unique(errors)],
    ['Files', filesOf(req.messages)],
    ['Facts to keep', [[...facts.keys()].join(', ')].filter(Boolean)],
  ];
  let out = `Summary of ${req.messages.length} earlier messages:`;
  for (const [title, items] of sections) {
    if (items.length === 0) continue;
    const block = `\n## ${title}\n` + items.map((i) => `- ${i}`).join('\n');
    if (out.length + block.length > budgetChars) {
      const room = budgetChars - out.length - title.length - 8;
      if (room > 40) out += `\n## ${title}\n- ${items.join('; ').slice(0, room)}…`;
      break;
    }
    out += block;
  }
  return out;
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

export const extractiveSummarizer: Summarizer = {
  id: 'extractive',
  model: 'extractive-v1',
  prompt: '',
  summarize: async (req) => extractiveSummary(req),
};
