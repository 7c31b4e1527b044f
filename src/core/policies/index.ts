/**
 * Policies are data: a config and a strategy pipeline (docs/policies.md states each one's rules). Each reproduces one source system with
 * its own estimator and defaults (S0..S4), or an agent people run today, from its public docs.
 */
import type { ReplayConfigInput } from '../config-schema';
import { strategies } from '../strategies/registry';

/** S4's estimator (system prompt + message content + tool-call arguments, docs/policies.md §S4) is the tokenizer `s4`. */

export interface Policy {
  readonly id: string;
  readonly label: string;
  /** The source document or agent it reproduces. */
  readonly source: string;
  readonly description: string;
  readonly config: ReplayConfigInput;
}

export const POLICIES: readonly Policy[] = [
  {
    id: 's0',
    label: 'S0 Go agent loop',
    source: 'S0',
    description:
      'runes×2/5 estimate; async summarization after a turn (40 messages or 75% of the window); proactive check with the full budget formula (messages + tools + MaxTokens > ContextWindow) that force-compresses (drops the oldest ~50% of turns); emergency drop of the oldest ~50% of turns when the real size overflows.',
    // docs/policies.md §S0: trigger = 1 × (window − 0 buffer − MaxTokens), i.e. messages + tools + MaxTokens > window.
    config: {
      policy: 's0',
      tokenizer: 'runes2.5',
      maxOutputWindowFirst: true,
      buffer: 0,
      triggerBasis: 'limit',
      trigger: 1,
      target: 0.5,
      proactiveAction: 'force-compression',
      paths: { async: true, proactive: true, emergency: true, guard: false },
      asyncMessages: 40,
      asyncRatio: 0.75,
      pipeline: ['summarize'],
      cutWithinTurn: false,
    },
  },
  {
    id: 's1',
    label: 'S1 context guard',
    source: 'S1',
    description:
      'max(o200k, chars/4) estimate, tool schemas ×2.09; limit = window − 8,192 buffer − maxOutput; turn_preflight ok / skip (fallback models) / final (tools restricted to final_report); tool_preflight previews each tool output against what is left under the limit (over it: a failure message and the final turn); tool outputs over 12,288 bytes stored aside behind a handle. No compression: the guard ends the run instead.',
    config: {
      policy: 's1',
      tokenizer: 'max:tiktoken:o200k_base',
      schemaScale: 2.09,
      buffer: 8_192,
      triggerBasis: 'limit',
      limitRule: 'guard',
      paths: { async: false, proactive: false, emergency: false, guard: true, toolPreflight: true },
      toolOutputMaxBytes: 12_288,
      toolOutputMode: 'offload',
      pipeline: ['drop-oldest'],
    },
  },
  {
    id: 's2',
    label: 'S2 SDK turn interceptor',
    source: 'S2',
    description:
      '4 chars/token; acts at 85% of the window (MaxTokenRatio 0.85) with SlidingWindow(20); status event "context window at N% capacity (used/max tokens), compaction applied". Set pipeline=summarize (summarizes all but the last 10 messages) or drop-oldest for its other strategies.',
    config: {
      policy: 's2',
      tokenizer: 'chars4',
      trigger: 0.85,
      target: 0.5,
      pipeline: ['sliding-window'],
      slidingWindow: 20,
      summarizeKeepLast: 10,
    },
  },
  {
    id: 's3',
    label: 'S3 sliding-window compression (long-running preset)',
    source: 'S3',
    description:
      'chars/4 (+5 per message, code chars/3, ×1.1); triggers at ≥ 75% of the window and compresses to 37.5%: first 3 messages (primers) + summary of the middle + last 20 (recents); task budget 300,000 tokens (used + request) in soft mode with warnings at 80% and backpressure at 80/85/90/95%.',
    config: {
      policy: 's3',
      tokenizer: 'shannon',
      trigger: 0.75,
      triggerWhen: 'at-or-above',
      limitRule: 'basis',
      target: 0.375,
      pipeline: ['primers-recents'],
      primers: 3,
      recents: 20,
      taskBudget: { tokens: 300_000, mode: 'soft', warningThreshold: 0.8, includeRequest: true, backpressure: true },
    },
  },
  {
    id: 's4',
    label: 'S4 autonomous agent budget',
    source: 'S4',
    description:
      'Hard budgets: 200 turns (LLM calls), 1,000,000 tokens, 200 tool calls, $2.00, 30 minutes — checked at the start of each call, abort when any is used up; compression when the estimate (system prompt + message content + tool-call arguments) passes 80% of the token budget, before the abort check: tool results pruned first, then head and tail protected with a structured summary that tracks files.',
    config: {
      policy: 's4',
      tokenizer: 's4',
      trigger: 0.8,
      triggerBasis: 'budget',
      limitRule: 'budget',
      target: 0.5,
      pipeline: ['tool-pruning', 'head-tail'],
      protectHead: 1,
      protectTail: 2,
      budget: { turns: 200, tokens: 1_000_000, toolCalls: 200, cost: 2, minutes: 30, mode: 'hard', warningThreshold: 0.8 },
    },
  },
  {
    id: 'claude-code',
    label: 'Claude Code auto-compact',
    source: 'Claude Code documentation',
    description:
      'Auto-compacts when the prompt passes min(floor((window − 20k) × pct), window − 33k), never below half the window (small windows); the conversation so far is replaced by a summary.',
    config: { policy: 'claude-code', autoCompact: { reserve: 20_000, pct: 1, cap: 33_000 }, target: 0.15, pipeline: ['summarize'] },
  },
  {
    id: 'codex',
    label: 'Codex auto-compact',
    source: 'Codex CLI documentation',
    description: 'Auto-compacts at 90% of the model context window; history is replaced by a summary plus recent user messages.',
    config: { policy: 'codex', trigger: 0.9, target: 0.15, pipeline: ['summarize'] },
  },
  {
    id: 'openhands-recent',
    label: 'OpenHands recent events',
    source: 'OpenHands condenser config (RecentEventsCondenserConfig: keep_first 1, max_events 100)',
    description: 'Keeps the first event and the most recent ones, max_events = 100 in all (keep_first = 1); nothing is summarized.',
    config: {
      policy: 'openhands-recent',
      triggerMessages: 100,
      pipeline: ['primers-recents'],
      primers: 1,
      recents: 99,
      summarizer: 'none',
    },
  },
  {
    id: 'openhands-masking',
    label: 'OpenHands observation masking',
    source: 'OpenHands condenser config (ObservationMaskingCondenserConfig: attention_window 100)',
    description: 'Replaces every observation (tool result) outside the 100 most recent events by a placeholder; nothing is dropped.',
    config: {
      policy: 'openhands-masking',
      triggerMessages: 100,
      pipeline: ['observation-masking'],
      attentionWindow: 100,
      summarizer: 'none',
    },
  },
  {
    id: 'openhands-summary',
    label: 'OpenHands LLM summarizing',
    source: 'OpenHands condenser config (LLMSummarizingCondenserConfig: max_size 100, keep_first 1)',
    description:
      'When the view passes max_size = 100 events, keeps the first (keep_first = 1) and the most recent max_size / 2 − keep_first = 49, and summarizes the forgotten middle.',
    config: { policy: 'openhands-summary', triggerMessages: 100, pipeline: ['primers-recents'], primers: 1, recents: 49 },
  },
  {
    id: 'openhands-amortized',
    label: 'OpenHands amortized forgetting',
    source: 'OpenHands condenser config (AmortizedForgettingCondenserConfig: max_size 100, keep_first 1)',
    description:
      'When the view passes max_size = 100 events, forgets all but the first (keep_first = 1) and the most recent 49, halving it; no summary.',
    config: {
      policy: 'openhands-amortized',
      triggerMessages: 100,
      pipeline: ['primers-recents'],
      primers: 1,
      recents: 49,
      summarizer: 'none',
    },
  },
  {
    id: 'letta',
    label: 'Letta (MemGPT) summarizer',
    source: 'Letta documentation',
    description: 'When the context passes 0.9 × window, evicts and summarizes the oldest messages until it is under 0.7 × window.',
    config: { policy: 'letta', trigger: 0.9, target: 0.7, pipeline: ['summarize'] },
  },
];

/**
 * S3's other scenario presets (its "long-running" one is `s3`). Reachable by id through
 * `getPolicy`, kept out of the main list of twelve (docs/policies.md §Presets).
 */
export const SCENARIO_POLICIES: readonly Policy[] = [
  {
    id: 's3-general',
    label: 'S3 general Q&A preset',
    source: 'S3',
    description: "S3's general Q&A scenario: primers 2 + recents 10, agent budget 25,000 tokens (soft), otherwise as s3 (75% → 37.5%).",
    config: {
      policy: 's3-general',
      tokenizer: 'shannon',
      trigger: 0.75,
      target: 0.375,
      pipeline: ['primers-recents'],
      primers: 2,
      recents: 10,
      triggerWhen: 'at-or-above',
      limitRule: 'basis',
      agentBudget: { tokens: 25_000, mode: 'soft', warningThreshold: 0.8, includeRequest: true, backpressure: true },
    },
  },
  {
    id: 's3-debugging',
    label: 'S3 debugging preset',
    source: 'S3',
    description:
      "S3's debugging scenario: primers 5 + recents 30, agent budget 75,000 tokens (soft), trigger raised to 85% so the agent sees more history.",
    config: {
      policy: 's3-debugging',
      tokenizer: 'shannon',
      trigger: 0.85,
      target: 0.375,
      pipeline: ['primers-recents'],
      primers: 5,
      recents: 30,
      triggerWhen: 'at-or-above',
      limitRule: 'basis',
      agentBudget: { tokens: 75_000, mode: 'soft', warningThreshold: 0.8, includeRequest: true, backpressure: true },
    },
  },
];

export const POLICY_IDS = POLICIES.map((p) => p.id);

/** Policies that registered strategies bring (src/core/strategies/define.ts `presets`), after the built-in ones. */
export function strategyPresets(): Policy[] {
  // A preset's config is checked against the schema whenever it is resolved (config.ts resolveConfig).
  return strategies().flatMap((d) => d.presets.map((p) => ({ ...p, config: p.config as ReplayConfigInput })));
}

/** The built-in policies, then those registered strategies bring: what `ctxscope policies` lists. */
export function listedPolicies(): Policy[] {
  return [...POLICIES, ...strategyPresets()];
}

export function getPolicy(id: string): Policy | undefined {
  return POLICIES.find((p) => p.id === id) ?? SCENARIO_POLICIES.find((p) => p.id === id) ?? strategyPresets().find((p) => p.id === id);
}
