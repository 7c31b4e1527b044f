/**
 * Recall questions from the loss ledger's "needed later" items (docs/probe.md §Questions), one
 * template per kind, and their deterministic scoring against the item's value. Each question
 * names a cue from the item's own message (another fact there, or the command whose output it
 * was), so a model can answer it only if that part of the conversation is still in its context.
 */
import type { Message } from '../model';
import { itemsOfMessage, commandOf, type LedgerKind } from '../ledger/extract';
import type { LossLedger } from '../replay/ledger';
import type { ProbeQuestion } from './types';

/** Questions asked at most per call: each is asked N times under both contexts. */
export const MAX_QUESTIONS = 8;

const TEMPLATES: Readonly<Record<LedgerKind, (cue: string) => string>> = {
  path: (cue) => `Which file path was mentioned together with \`${cue}\`? Answer with the path only.`,
  command: (cue) => `Which exact command was run in the step about \`${cue}\`? Answer with the command only.`,
  error: (cue) => `What exact error did \`${cue}\` print? Answer with the error line only.`,
  identifier: (cue) => `Which function, class or other identifier was named together with \`${cue}\`? Answer with the name only.`,
  number: (cue) => `What number, with its unit, was given together with \`${cue}\`? Answer with the number only.`,
  decision: (cue) => `What was decided about \`${cue}\`, and why? Answer in one sentence.`,
  instruction: (cue) => `What did the user instruct about \`${cue}\`? Answer in one sentence.`,
};

/** The command of the tool call a result answers, looked for in the few messages before it. */
function commandBefore(messages: readonly Message[], i: number): string | null {
  const m = messages[i]!;
  const ids = new Set(m.parts.flatMap((p) => (p.kind === 'tool_result' ? [p.callId] : [])));
  for (let j = i - 1; j >= Math.max(0, i - 4); j--) {
    for (const p of messages[j]!.parts)
      if (p.kind === 'tool_call' && (ids.size === 0 || ids.has(p.id))) {
        const c = commandOf(p.args);
        if (c !== null) return c.trim().replace(/\s+/g, ' ');
      }
  }
  return null;
}

/** A cue for an item: the command an error came from, else another path or identifier of its message. */
function cueOf(messages: readonly Message[], kind: LedgerKind, value: string, index: number): string | null {
  if (kind === 'error') {
    const c = commandBefore(messages, index);
    if (c !== null && c.length <= 120) return c;
  }
  const lower = value.toLowerCase();
  for (const it of itemsOfMessage(messages[index]!)) {
    if (it.kind !== 'path' && it.kind !== 'identifier') continue;
    const v = it.value.toLowerCase();
    if (v === lower || lower.includes(v) || v.includes(lower) || it.value.length > 80) continue;
    return it.value;
  }
  return null;
}

/**
 * Up to MAX_QUESTIONS questions from the ledgers' lost items that a later message needed, in the
 * order of their messages; items with no cue in their message are skipped (a question without one
 * could be answered from anywhere).
 */
export function questionsFrom(ledgers: readonly LossLedger[], messages: readonly Message[], max = MAX_QUESTIONS): ProbeQuestion[] {
  const out: ProbeQuestion[] = [];
  const seen = new Set<string>();
  const items = ledgers.flatMap((l) => l.items).filter((i) => !i.inSummary && i.neededAt !== null);
  items.sort((a, b) => a.messageIndex - b.messageIndex);
  for (const it of items) {
    if (out.length >= max) break;
    const key = it.kind + '\0' + it.value;
    if (seen.has(key)) continue;
    const cue = cueOf(messages, it.kind, it.value, it.messageIndex);
    if (cue === null) continue;
    seen.add(key);
    out.push({ id: `q${out.length + 1}`, kind: it.kind, text: TEMPLATES[it.kind](cue), expected: it.value, messageIndex: it.messageIndex });
  }
  return out;
}

const normal = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[`"'“”‘’]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

const words = (s: string): string[] =>
  normal(s)
    .split(/[^a-z0-9_./-]+/)
    .filter((w) => w.length >= 4);

/**
 * Whether an answer holds the expected value: the value itself (case and quotes aside); for an
 * error, also its message after the exception's name; for a decision or an instruction, most of
 * its words (60% of those of 4 letters or more).
 */
export function scoreAnswer(kind: LedgerKind, expected: string, answer: string): boolean {
  const a = normal(answer);
  const e = normal(expected.replace(/…$/, ''));
  if (e.length > 0 && a.includes(e)) return true;
  if (kind === 'error') {
    const tail = /(?:error|exception)\b:?\s*(.{12,})$/i.exec(expected)?.[1];
    if (tail && a.includes(normal(tail))) return true;
  }
  if (kind === 'decision' || kind === 'instruction') {
    const want = [...new Set(words(expected))];
    if (want.length === 0) return false;
    const have = new Set(words(answer));
    return want.filter((w) => have.has(w)).length / want.length >= 0.6;
  }
  return false;
}
