/**
 * The normalised model every importer produces and everything downstream consumes.
 *
 * Rules (S0, docs/architecture.md):
 * - `Session.messages` is the conversation history only. The system prompt and any summary
 *   are regions of the request, never history messages.
 * - A step is one LLM call: one assistant message (split provider lines are merged by the
 *   importer, so one API response = one assistant message).
 * - A turn starts at a user message that carries something other than tool results
 *   (an Anthropic-shaped user message holding only `tool_result` blocks is not a boundary).
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  readonly kind: 'text';
  readonly text: string;
}

export interface ReasoningPart {
  readonly kind: 'reasoning';
  readonly text: string;
  /** Provider returned only an opaque/encrypted blob (e.g. `redacted_thinking`). */
  readonly redacted?: boolean;
}

export interface MediaPart {
  readonly kind: 'media';
  /** MIME type when known (`image/png`, `application/pdf`, ...). */
  readonly mediaType: string;
  /** URL, file id or `base64` marker. The payload itself is never kept in the model. */
  readonly source?: string;
  /** Decoded size in bytes when the source carried it inline. */
  readonly bytes?: number;
}

export interface ToolCallPart {
  readonly kind: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** Arguments as JSON text, exactly as the provider sent them (or JSON.stringify of an object). */
  readonly args: string;
}

export interface ToolResultPart {
  readonly kind: 'tool_result';
  readonly callId: string;
  readonly isError: boolean;
  /** The text the model saw. Media inside a result are separate `media` parts of the message. */
  readonly text: string;
  /** Tool name when the source records it on the result (Gemini, OpenHands). */
  readonly name?: string;
}

export type Part = TextPart | ReasoningPart | MediaPart | ToolCallPart | ToolResultPart;
export type PartKind = Part['kind'];

/**
 * Which convention the provider uses for `input`:
 * - `anthropic`: input EXCLUDES cache reads and writes (prompt = input + cacheRead + cacheWrite)
 * - `openai`: input INCLUDES cached tokens (prompt = input); Gemini and Codex follow this too.
 */
export type UsageConvention = 'anthropic' | 'openai';

/** Provider-reported usage of one LLM call, as the transcript recorded it. */
export interface ReportedUsage {
  readonly convention: UsageConvention;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /**
   * The part of `cacheWrite` written to the 1-hour cache, when the log says (Claude Code 2.x
   * `usage.cache_creation.ephemeral_1h_input_tokens`); the rest are 5-minute writes.
   */
  readonly cacheWrite1h?: number;
  readonly output: number;
  /** Reasoning tokens (inside `output` for OpenAI; reported separately by some providers). */
  readonly reasoning?: number;
  /** Context window the agent itself reported (Codex `model_context_window`). */
  readonly contextWindow?: number;
  /** Counts were rounded by the source (aider prints `2.4k`). */
  readonly coarse?: boolean;
  /** Cost the source itself reported for this call, in USD. */
  readonly costUsd?: number;
  /**
   * The call's identity at the provider (Claude Code: `message.id` + `requestId`). A session resumed
   * with `--resume`/`--continue` starts a new file that repeats earlier calls with the same key:
   * folder totals count a key once.
   */
  readonly callKey?: string;
}

/** Total prompt tokens the provider processed for the call, whatever the convention. */
export function promptTokens(u: ReportedUsage): number {
  return u.convention === 'anthropic' ? u.input + u.cacheRead + u.cacheWrite : u.input;
}

/** Tokens billed at the full input price (uncached part of the prompt). */
export function uncachedInputTokens(u: ReportedUsage): number {
  return u.convention === 'anthropic' ? u.input + u.cacheWrite : Math.max(0, u.input - u.cacheRead);
}

export interface Message {
  /** Stable within the session: the source's own id (uuid, event id) or `m<index>`. */
  readonly id: string;
  readonly role: Role;
  readonly parts: readonly Part[];
  /** Epoch milliseconds, when the source has timestamps. */
  readonly timestamp?: number;
  /** On assistant messages: the usage of the call that produced this message. */
  readonly usage?: ReportedUsage;
  /** Model that produced an assistant message, when the source says. */
  readonly model?: string;
  /** Marked important by the user or the source: never dropped by compression (S3, S4). */
  readonly pinned?: boolean;
  /** Belongs to a subagent / sidechain; never part of the main window. */
  readonly sidechain?: boolean;
  /**
   * On the tool-result message of a call that ran a subagent: the subagent's id as the agent
   * logged it (Claude Code 2.x `toolUseResult.agentId`), the exact link to `Session.agentId`.
   */
  readonly agentId?: string;
  /** Where it came from in the source file (1-based line), for display and errors. */
  readonly sourceLine?: number;
  /** The raw source record (JSON text), kept when the importer is asked to keep it. */
  readonly raw?: string;
  /**
   * Source lines merged into this message after `sourceLine` (one API response written over
   * several lines). Where the caller keeps the source lines itself (`keepRaw: 'lines'`), the
   * message's raw record is `sourceLine` and these, joined with newlines.
   */
  readonly mergedLines?: readonly number[];
  /**
   * How the agent itself rewrote this message in its later requests (a history processor, e.g.
   * SWE-agent's `last_n_observations`; docs/policies.md §Common, messages as sent): from the call
   * at message index `fromMessage` on, the model received `text` in place of the message's
   * content (see `sentForm`). The parts stay as logged; calls before it saw them in full.
   */
  readonly sentAs?: SentAs;
}

/** A message's content as the agent sent it from one call on (`Message.sentAs`). */
export interface SentAs {
  /** Message index of the first call (assistant message) that received `text`. */
  readonly fromMessage: number;
  readonly text: string;
}

/**
 * The message as the model received it once its `sentAs` applies: tool calls and the tool-result
 * structure (call id, name) stay, the content becomes `text` (a tool result's text, or one text
 * part), reasoning and media go — SWE-agent's placeholder replaces the whole content.
 */
export function sentForm(m: Message, text: string): Message {
  const result = m.parts.find((p): p is ToolResultPart => p.kind === 'tool_result');
  const calls = m.parts.filter((p) => p.kind === 'tool_call');
  const content: Part = result ? { ...result, text } : { kind: 'text', text };
  const { sentAs: _sentAs, raw: _raw, ...rest } = m;
  return { ...rest, parts: [content, ...calls] };
}

export interface ToolDef {
  readonly name: string;
  readonly description: string;
  /** JSON schema of the parameters, as the source gave it. */
  readonly parameters: unknown;
}

export type CompactionTrigger = 'auto' | 'manual' | 'unknown';

/** A compaction the original agent really did (Claude Code `compact_boundary`, Codex `compacted`, OpenHands `condensation`). */
export interface SourceCompaction {
  /** Index into `Session.messages` of the first message sent after the compaction. */
  readonly atMessage: number;
  readonly trigger: CompactionTrigger;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
  /** The summary the agent wrote, when the source keeps it. */
  readonly summary?: string;
  /** Ids of messages the agent dropped, when the source lists them (OpenHands). */
  readonly droppedIds?: readonly string[];
  /** Ids of earlier messages the agent kept verbatim after compacting (Codex replacement history). */
  readonly keptIds?: readonly string[];
  readonly sourceLine?: number;
}

/**
 * The ids of the transcript formats: each format's module declares its own
 * (`declare module '../model' { interface FormatIds { <id>: true } }`, src/core/formats/), so the
 * union is the formats the program has, never a list kept beside them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface FormatIds {}
export type FormatId = keyof FormatIds & string;

export interface Session {
  /** Source session id when the format has one, else derived from file + position. */
  readonly id: string;
  readonly format: FormatId;
  readonly title?: string;
  /** Model of the session (the most used one when it changes). */
  readonly model?: string;
  readonly provider?: string;
  /** The system prompt region, or null when the transcript does not log it. */
  readonly systemPrompt: string | null;
  readonly tools: readonly ToolDef[];
  /** History only: no system prompt, no summary (S0). */
  readonly messages: readonly Message[];
  readonly sourceCompactions: readonly SourceCompaction[];
  /** Sidechains / subagents: kept, but never part of this session's window. */
  readonly subagents: readonly Session[];
  /** The session is a subagent's transcript: its id as the agent logged it (Claude Code `agentId`). */
  readonly agentId?: string;
  readonly startedAt?: number;
  readonly cwd?: string;
  /** Context window the agent reported for itself, when the source says (Codex). */
  readonly reportedContextWindow?: number;
  /** Non-fatal findings of the importer (unknown line types, orphans, ...). */
  readonly warnings: readonly string[];
}

/** Step = one LLM call = one assistant message. Returns the message indices of the steps. */
export function stepIndices(messages: readonly Message[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < messages.length; i++) if (messages[i]!.role === 'assistant') out.push(i);
  return out;
}

/** All text of a message the model reads, joined, for heuristics such as retention and search. */
export function messageText(m: Message): string {
  let s = '';
  for (const p of m.parts) {
    switch (p.kind) {
      case 'text':
      case 'reasoning':
        s += (s ? '\n' : '') + p.text;
        break;
      case 'tool_call':
        s += (s ? '\n' : '') + p.name + ' ' + p.args;
        break;
      case 'tool_result':
        s += (s ? '\n' : '') + p.text;
        break;
      case 'media':
        break;
    }
  }
  return s;
}
