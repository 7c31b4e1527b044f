/**
 * What the session library shows about a session, computed once when it is imported (one pass
 * over its messages, no tokenizer): a title a person recognises, the project it ran in, its
 * reported tokens and their cost, the compactions the agent did, when it ended. Pure.
 *
 * Title rules, in order: the title the agent wrote; for eval harnesses whose files hold many
 * sessions (OpenHands `instance_id`, SWE-agent's instance) the instance id the importer used as
 * the session id; else the first user prompt, on one line and clipped; else none (the host then
 * shows the file name).
 */
import { lookupModel, usageCost, type ModelInfo } from '../catalog';
import { promptTokens, type Message, type Session } from '../model';

/** Longest title kept: a library row shows one line. */
export const TITLE_CHARS = 120;

export interface SessionStats {
  readonly title: string | null;
  readonly cwd: string | null;
  readonly compactions: number;
  /** Provider-reported tokens summed over the calls (0 without usage). */
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** USD: the source's own figure where it has one, else the catalog's prices; null when neither applies to any call. */
  readonly cost: number | null;
  /** Timestamp of the last message that has one. */
  readonly endedAt: number | null;
}

/** Formats whose session id is the benchmark instance the run solved (a name people search for). */
const INSTANCE_FORMATS = new Set(['openhands', 'swe-agent']);

/** Text on one line, clipped to `max` characters with an ellipsis. */
export function oneLine(text: string, max = TITLE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * Context an agent injects as a user message, wrapped whole in one tag (Codex
 * `<environment_context>…</environment_context>`, `<user_instructions>`, Claude Code
 * `<system-reminder>`, `<command-name>`): not what the person typed.
 */
const SLASH_COMMAND = /<command-name>([^<]{1,200})<\/command-name>/;
const ARGS = /<command-args>([^<]{0,2000})<\/command-args>/;
const INJECTED = /^\s*<([A-Za-z][\w-]*)[^>]*>[\s\S]*<\/\1>\s*$/;

/**
 * What a person typed in one user message (a slash command as typed), or null when its text is
 * all injected context or empty.
 */
export function typedPrompt(m: Message): string | null {
  if (m.role !== 'user') return null;
  for (const p of m.parts) {
    if (p.kind !== 'text' || p.text.trim() === '') continue;
    const command = SLASH_COMMAND.exec(p.text);
    // A slash command Claude Code logged as tags: the command as the person typed it.
    if (command) return `${command[1]!.trim()} ${ARGS.exec(p.text)?.[1]?.trim() ?? ''}`.trim();
    if (!INJECTED.test(p.text)) return p.text;
  }
  return null;
}

/**
 * The first thing a person typed: the first user text that is not injected context (tool results
 * are not prompts either); if every user text is injected, the first one.
 */
export function firstPrompt(messages: readonly Message[]): string | null {
  let fallback: string | null = null;
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const typed = typedPrompt(m);
    if (typed !== null) return typed;
    if (fallback === null) for (const p of m.parts) if (p.kind === 'text' && p.text.trim() !== '' && fallback === null) fallback = p.text;
  }
  return fallback;
}

export function titleOf(s: Session): string | null {
  if (s.title && s.title.trim() !== '') return oneLine(s.title);
  if (INSTANCE_FORMATS.has(s.format) && s.id.trim() !== '') return oneLine(s.id.replace(/^.*[\\/]/, ''));
  const prompt = firstPrompt(s.messages);
  return prompt !== null ? oneLine(prompt) : null;
}

/**
 * Costs are stored rounded to 1e-10 USD: a session grown by appends (live tail) sums its calls in
 * another grouping than a first import of the same file, and the two must store the same figure.
 */
export const roundCost = (usd: number): number => Math.round(usd * 1e10) / 1e10;

/** The usage figures of a stored session row: what an append updates. */
export type UsageStats = Pick<SessionStats, 'promptTokens' | 'outputTokens' | 'cost' | 'endedAt'>;

/**
 * A session's usage figures after its messages `removed` were replaced by `added` (an append: the
 * last response extended — removed is the old last message — and new messages after it), without
 * reading the rest of the session.
 */
export function appendUsageStats(
  prev: UsageStats,
  model: string | undefined,
  removed: readonly Message[],
  added: readonly Message[],
): UsageStats {
  const part = (messages: readonly Message[]): SessionStats =>
    sessionStats({
      id: '',
      format: 'claude-code',
      ...(model ? { model } : {}),
      systemPrompt: null,
      tools: [],
      messages: [...messages],
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    });
  const before = part(removed);
  const after = part(added);
  const cost =
    prev.cost === null && before.cost === null && after.cost === null
      ? null
      : roundCost((prev.cost ?? 0) - (before.cost ?? 0) + (after.cost ?? 0));
  return {
    promptTokens: prev.promptTokens - before.promptTokens + after.promptTokens,
    outputTokens: prev.outputTokens - before.outputTokens + after.outputTokens,
    cost,
    endedAt: after.endedAt ?? prev.endedAt,
  };
}

export function sessionStats(s: Session): SessionStats {
  let prompt = 0;
  let output = 0;
  let cost = 0;
  let priced = false;
  let endedAt: number | null = null;
  // One catalog lookup per model id, not per call (a long session has tens of thousands).
  const models = new Map<string | undefined, ModelInfo | undefined>();
  const modelOf = (id: string | undefined): ModelInfo | undefined => {
    if (!models.has(id)) models.set(id, lookupModel(id));
    return models.get(id);
  };
  for (const m of s.messages) {
    if (m.timestamp !== undefined) endedAt = m.timestamp;
    const u = m.usage;
    if (!u) continue;
    prompt += promptTokens(u);
    output += u.output;
    if (u.costUsd !== undefined) {
      cost += u.costUsd;
      priced = true;
      continue;
    }
    const model = modelOf(m.model ?? s.model);
    if (model) {
      cost += usageCost(model, u);
      priced = true;
    }
  }
  return {
    title: titleOf(s),
    cwd: s.cwd ?? null,
    compactions: s.sourceCompactions.length,
    promptTokens: prompt,
    outputTokens: output,
    cost: priced ? roundCost(cost) : null,
    endedAt,
  };
}
