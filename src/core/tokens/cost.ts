/**
 * The message cost model (S0's estimateMessageTokens, generalised): content (rune-correct in
 * the heuristics), reasoning, tool calls (id, name, arguments), tool_call_id on results, a
 * per-message overhead, and media as a flat per-item cost (not through the text heuristic,
 * since real image cost depends on resolution and provider). Tool definitions count name +
 * description + JSON schema, optionally ×2.09 (S1's schema scale). A message is counted once
 * per counter and the breakdown reused (WeakMap on the message object).
 *
 * Each seed's estimator counts a little differently (docs/policies.md §Tokenizers and estimates):
 * `shannon` (§S3) adds 5 per message, counts the system prompt as one more message and takes
 * ×1.1 on the total, floored once; `s4` (§S4) counts message content and tool-call arguments
 * only. `COST_RULES` holds those differences; everything else shares the code below.
 */
import type { Message, ToolDef } from '../model';
import type { Counter, MessageBreakdown, Tokenizer } from './types';

export interface CostModelOptions {
  /** Tokens per image/media item (S0: flat, settable per provider). */
  readonly mediaTokens?: number;
  /** Overhead per message (role label, JSON structure). Default: the tokenizer's own. */
  readonly messageOverhead?: number;
  /** Multiplier on the total (S3's ×1.1 safety margin). Default: the tokenizer's own. */
  readonly scale?: number;
  /** S1's tool-schema scale (×2.09); 1 = count the schema as text. */
  readonly schemaScale?: number;
  /**
   * Remember each message's breakdown (default). Off for a single pass over a session that is
   * never counted again (the import's estimates): a WeakMap entry per message costs more than
   * counting it.
   */
  readonly memo?: boolean;
}

/** What a seed's estimator counts besides the text it is given. */
export interface CostRules {
  /** Tokens per message (role label, JSON structure). */
  readonly overhead: number;
  /** Multiplier on the total, floored once per total (S3's ×1.1); see `countSession`. */
  readonly scale: number;
  /** Tool-call ids and names, and results' call ids, count (S0); S4 counts the arguments only. */
  readonly toolIds: boolean;
  /**
   * A tool call's `type` counts too (S0: "ToolCalls — ID, type, function name, arguments"). The
   * model keeps no type: every call a provider sends is a function call, so the type is `function`.
   */
  readonly toolType?: boolean;
  /** Reasoning text counts. S4 counts `msg.content` only. */
  readonly reasoning: boolean;
  /** Media items count their flat cost. S4 estimates strings only. */
  readonly media: boolean;
  /** The system prompt counts as one more message: its overhead, under the same scale (S3). */
  readonly systemAsMessage: boolean;
}

const DEFAULT_RULES: CostRules = { overhead: 0, scale: 1, toolIds: true, reasoning: true, media: true, systemAsMessage: false };

/** Per-tokenizer rules: what each seed adds on top of the text. BPE tokenizers add 3 per message. */
export const COST_RULES: Readonly<Record<string, CostRules>> = {
  chars4: DEFAULT_RULES,
  'runes2.5': { ...DEFAULT_RULES, overhead: 4, toolType: true },
  shannon: { ...DEFAULT_RULES, overhead: 5, scale: 1.1, systemAsMessage: true },
  s4: { ...DEFAULT_RULES, toolIds: false, reasoning: false, media: false },
};
const BPE_RULES: CostRules = { ...DEFAULT_RULES, overhead: 3 };

export function costRulesFor(tokenizerId: string): CostRules {
  return COST_RULES[tokenizerId.startsWith('max:') ? tokenizerId.slice(4) : tokenizerId] ?? BPE_RULES;
}

/**
 * floor(units × scale) without binary-fraction surprises: S3's 1.1 is applied as ×11 / 10 on
 * integers, so 10 units give exactly 11, never 11.000000000000002 or 10.999….
 */
export function scaleFloor(units: number, scale: number): number {
  if (scale === 1) return units;
  const tenths = Math.round(scale * 10);
  if (Math.abs(tenths - scale * 10) < 1e-9) return Math.floor((units * tenths) / 10);
  return Math.floor(units * scale + 1e-9);
}

/** Flat media cost per provider family; the default is a mid-size image. */
export const MEDIA_TOKENS: Readonly<Record<string, number>> = { anthropic: 1600, openai: 765, google: 258, default: 1000 };

export const SCHEMA_SCALE_S1 = 2.09;

/** The `type` of a tool call as providers send it (docs/policies.md §S0 counts it). */
export const TOOL_CALL_TYPE = 'function';

export function createCounter(tokenizer: Tokenizer, options: CostModelOptions = {}): Counter {
  const rules = costRulesFor(tokenizer.id);
  const overhead = options.messageOverhead ?? rules.overhead;
  const scale = options.scale ?? rules.scale;
  const mediaTokens = rules.media ? (options.mediaTokens ?? MEDIA_TOKENS['default']!) : 0;
  const schemaScale = options.schemaScale ?? 1;
  const cache = options.memo === false ? undefined : new WeakMap<Message, MessageBreakdown>();
  const count = (s: string): number => tokenizer.countText(s);
  const perMessage = tokenizer.perMessage;
  return {
    tokenizer,
    scale,
    text: count,
    system(text) {
      if (text.length === 0) return 0;
      return count(text) + (rules.systemAsMessage ? overhead : 0);
    },
    message(m) {
      const hit = cache?.get(m);
      if (hit) return hit;
      let content = 0;
      let contentExact = 0;
      let reasoning = 0;
      let toolCalls = 0;
      let toolResults = 0;
      let media = 0;
      for (const p of m.parts) {
        switch (p.kind) {
          case 'text':
            // A message's text is one string to the seeds that count `msg.Content` (S3, S4): rounded once.
            if (perMessage) contentExact += perMessage.exact(p.text);
            else content += count(p.text);
            break;
          case 'reasoning':
            if (rules.reasoning) reasoning += count(p.text);
            break;
          case 'tool_call':
            toolCalls += (rules.toolIds ? count(p.id) + count(p.name) : 0) + (rules.toolType ? count(TOOL_CALL_TYPE) : 0) + count(p.args);
            break;
          case 'tool_result':
            toolResults += (rules.toolIds ? count(p.callId) : 0) + count(p.text);
            break;
          case 'media':
            media += mediaTokens;
            break;
        }
      }
      if (perMessage) content = perMessage.round(contentExact);
      const counted = content + reasoning + toolCalls + toolResults;
      const units = counted + overhead;
      const scaled = scaleFloor(units, scale);
      const b: MessageBreakdown = {
        content,
        reasoning,
        toolCalls,
        toolResults,
        media,
        overhead: scaled - counted,
        units,
        total: scaled + media,
      };
      cache?.set(m, b);
      return b;
    },
    tools(defs: readonly ToolDef[]) {
      let total = 0;
      for (const d of defs) total += count(d.name) + count(d.description) + count(JSON.stringify(d.parameters ?? {}));
      return Math.ceil(total * schemaScale);
    },
  };
}
