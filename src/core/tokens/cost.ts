/**
 * The message cost model (S0's estimateMessageTokens, generalised): content (rune-correct in
 * the heuristics), reasoning, tool calls (id, name, arguments), tool_call_id on results, a
 * per-message overhead, and media as a flat per-item cost (not through the text heuristic,
 * since real image cost depends on resolution and provider). Tool definitions count name +
 * description + JSON schema, optionally ×2.09 (S1's schema scale). A message is counted once
 * per counter and the breakdown reused (WeakMap on the message object).
 */
import type { Message, ToolDef } from '../model';
import type { Counter, MessageBreakdown, Tokenizer } from './types';

export interface CostModelOptions {
  /** Tokens per image/media item (S0: flat, settable per provider). */
  readonly mediaTokens?: number;
  /** Overhead per message (role label, JSON structure). Default: the tokenizer's own. */
  readonly messageOverhead?: number;
  /** Multiplier on the whole message (S3's ×1.1 safety margin). Default: the tokenizer's own. */
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

/** Per-tokenizer defaults: what each seed adds on top of the text. */
export const TOKENIZER_DEFAULTS: Readonly<Record<string, { overhead: number; scale: number }>> = {
  chars4: { overhead: 0, scale: 1 },
  'runes2.5': { overhead: 4, scale: 1 },
  shannon: { overhead: 5, scale: 1.1 },
};
const BPE_DEFAULT = { overhead: 3, scale: 1 };

/** Flat media cost per provider family; the default is a mid-size image. */
export const MEDIA_TOKENS: Readonly<Record<string, number>> = { anthropic: 1600, openai: 765, google: 258, default: 1000 };
export const SCHEMA_SCALE_S1 = 2.09;

export function createCounter(tokenizer: Tokenizer, options: CostModelOptions = {}): Counter {
  const base = tokenizer.id.startsWith('max:') ? tokenizer.id.slice(4) : tokenizer.id;
  const defaults = TOKENIZER_DEFAULTS[base] ?? BPE_DEFAULT;
  const overhead = options.messageOverhead ?? defaults.overhead;
  const scale = options.scale ?? defaults.scale;
  const mediaTokens = options.mediaTokens ?? MEDIA_TOKENS['default']!;
  const schemaScale = options.schemaScale ?? 1;
  const cache = options.memo === false ? undefined : new WeakMap<Message, MessageBreakdown>();
  const count = (s: string): number => tokenizer.countText(s);

  return {
    tokenizer,
    text: count,
    message(m) {
      const hit = cache?.get(m);
      if (hit) return hit;
      let content = 0;
      let reasoning = 0;
      let toolCalls = 0;
      let toolResults = 0;
      let media = 0;
      for (const p of m.parts) {
        switch (p.kind) {
          case 'text':
            content += count(p.text);
            break;
          case 'reasoning':
            reasoning += count(p.text);
            break;
          case 'tool_call':
            toolCalls += count(p.id) + count(p.name) + count(p.args);
            break;
          case 'tool_result':
            toolResults += count(p.callId) + count(p.text);
            break;
          case 'media':
            media += mediaTokens;
            break;
        }
      }
      const scaled = Math.floor((content + reasoning + toolCalls + toolResults + overhead) * scale);
      const b: MessageBreakdown = { content, reasoning, toolCalls, toolResults, media, overhead: scaled - (content + reasoning + toolCalls + toolResults), total: scaled + media };
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
