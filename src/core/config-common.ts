/**
 * The settings every policy shares (docs/policies.md §Common), each with the metadata the config
 * panel, the `--set` parser and the generated reference read: a label, a group, a unit, a
 * sentence. A strategy's own settings live in its module (src/core/strategies/*.ts) with the same
 * metadata; config.ts joins both into the one config schema. Range and step come from the zod
 * types themselves.
 */
import { z } from 'zod';
import { summarizerUrlProblem } from './summarize/remote';

/** What the panel, `--set` and the reference know of a setting besides its zod type. */
export interface SettingMeta {
  readonly label: string;
  readonly group: string;
  readonly unit?: string;
  readonly description: string;
  /** Step of a number input, when not 1 for integers or 0.01 for ratios. */
  readonly step?: number;
  /** False for a key `--set` and `CTXSCOPE_<KEY>` do not accept (set by a file, a policy or its own option). */
  readonly settable?: boolean;
}

/** A setting: its zod type with its metadata attached (zod's JSON Schema carries it to the panel and the docs). */
export function setting<T extends z.ZodType>(schema: T, meta: SettingMeta): T {
  return schema.meta({ ...meta });
}

const ratio = z.number().gt(0).lte(1);
const positiveInt = z.number().int().positive();

/** A strategy the caller supplies (the CLI loads it from the user's JS module): `custom:<name>`. */
export type CustomStrategyId = `custom:${string}`;
export const CUSTOM_STRATEGY = /^custom:[\w.-]{1,64}$/;

export const TOOL_OUTPUT_MODES = ['auto', 'full-chunked', 'read-grep', 'truncate', 'head-tail', 'offload'] as const;
export type ToolOutputMode = (typeof TOOL_OUTPUT_MODES)[number];

type Dimension = 'turns' | 'tokens' | 'toolCalls' | 'cost' | 'minutes' | 'mode' | 'warningThreshold' | 'backpressure';
const noMeta = <T extends z.ZodType>(schema: T): T => schema;

/**
 * One budget layer (docs/policies.md §Common, budgets). `turns` counts LLM calls (the autonomous
 * agent budget's turns are agent-loop iterations). `includeRequest`: the sliding-window
 * compression's check, `used + this request > max`; without it, the autonomous agent budget's
 * check at the start of a call, `used ≥ max`. `meta` labels the session layer; the task and agent
 * layers take labels from their key names.
 */
function budgetLayer(meta?: Readonly<Record<Dimension, SettingMeta>>) {
  const m = <T extends z.ZodType>(d: Dimension, schema: T): T => (meta ? setting(schema, meta[d]) : noMeta(schema));
  return z
    .object({
      turns: m('turns', z.number().positive().optional()),
      tokens: m('tokens', z.number().positive().optional()),
      toolCalls: m('toolCalls', z.number().positive().optional()),
      cost: m('cost', z.number().positive().optional()),
      minutes: m('minutes', z.number().positive().optional()),
      mode: m('mode', z.enum(['hard', 'soft', 'approval']).default('hard')),
      warningThreshold: m('warningThreshold', ratio.default(0.8)),
      includeRequest: z.boolean().default(false),
      /** The sliding-window compression's backpressure delays as events. */
      backpressure: m('backpressure', z.boolean().default(false)),
    })
    .strict();
}
const BUDGET_DEFAULT = { mode: 'hard', warningThreshold: 0.8, includeRequest: false, backpressure: false } as const;
export const BudgetLayerConfig = budgetLayer();
export type BudgetLayerConfig = z.output<typeof BudgetLayerConfig>;

const SESSION_BUDGET: Readonly<Record<Dimension, SettingMeta>> = {
  turns: { label: 'Turns budget', group: 'Budgets', unit: 'turns', description: 'LLM calls allowed (the autonomous agent budget: 200).' },
  tokens: {
    label: 'Tokens budget',
    group: 'Budgets',
    unit: 'tokens',
    description: "Billed input + output tokens (the sliding-window compression's task budget; the autonomous agent budget: 1,000,000).",
  },
  toolCalls: {
    label: 'Tool calls budget',
    group: 'Budgets',
    unit: 'tool calls',
    description: 'Tool calls allowed (the autonomous agent budget: 200).',
  },
  cost: { label: 'Cost budget', group: 'Budgets', unit: 'USD', description: 'Spend allowed (the autonomous agent budget: $2.00).' },
  minutes: {
    label: 'Time budget',
    group: 'Budgets',
    unit: 'minutes',
    description: 'Transcript time allowed (the autonomous agent budget: 30 minutes).',
  },
  mode: {
    label: 'Budget mode',
    group: 'Budgets',
    description: 'Hard aborts, soft warns, approval asks (the sliding-window compression).',
  },
  warningThreshold: {
    label: 'Budget warning at',
    group: 'Budgets',
    unit: 'ratio',
    description: 'Warn when a budget passes this share (the sliding-window compression).',
  },
  backpressure: {
    label: 'Backpressure',
    group: 'Budgets',
    description: 'Delays at 80 / 85 / 90 / 95% as events (the sliding-window compression).',
  },
};

/** The common settings that come before the strategy pipeline in the schema (and in the panel). */
export const COMMON_BEFORE = {
  /** Policy id or label the config came from. */
  policy: z.string().default('custom'),
  /** Model whose limits and prices apply (default: the transcript's). */
  model: setting(z.string().optional(), {
    label: 'Model',
    group: 'Window',
    description: "Model whose window and prices apply (default: the transcript's).",
  }),
  window: setting(positiveInt.optional(), {
    label: 'Context window',
    group: 'Window',
    unit: 'tokens',
    description: "Overrides the model catalog, provider and transcript (the context guard's resolution order).",
  }),
  maxOutput: setting(positiveInt.optional(), {
    label: 'Max output',
    group: 'Window',
    unit: 'tokens',
    description: 'Output reserve; default floor(window / 4) (the context guard).',
  }),
  /**
   * The Go agent loop's `ContextWindow = MaxTokens × 4` when no window is configured wins over a
   * provider's default window (docs/policies.md §S0); the request, the transcript and the model
   * catalog still come first. Off: the provider default comes first (the context guard's order).
   */
  maxOutputWindowFirst: setting(z.boolean().default(false), {
    label: 'Window = max output × 4 first',
    group: 'Window',
    description:
      "The Go agent loop: with max output set and no window from the request, transcript or model catalog, the window is max output × 4, before a provider's default.",
  }),
  buffer: setting(z.number().int().nonnegative().default(8_192), {
    label: 'Buffer',
    group: 'Window',
    unit: 'tokens',
    description: 'Safety margin: limit = window − buffer − maxOutput (the context guard).',
  }),
  /** Tokenizer id, or `auto` = the model family's default. */
  tokenizer: setting(z.string().default('auto'), {
    label: 'Tokenizer',
    group: 'Estimate',
    description: "How requests are counted; auto = the model family's default.",
  }),
  /** Compression fires when the request passes trigger × window (or × limit, see triggerBasis). */
  trigger: setting(ratio.default(0.85), {
    label: 'Trigger',
    group: 'Trigger',
    unit: 'ratio',
    description: 'Compress when the request passes this ratio of the window (or of the limit).',
  }),
  /** Compression aims at target × window. */
  target: setting(ratio.default(0.5), {
    label: 'Target',
    group: 'Trigger',
    unit: 'ratio',
    description: 'Compression aims the request at this ratio.',
  }),
  /**
   * What `trigger` and `target` are ratios of (docs/policies.md §Common): `window` for most
   * policies, `limit` = window − buffer − maxOutput (the Go agent loop, the context guard),
   * `budget` = `budget.tokens` (the autonomous agent budget's `maxTokens × threshold`).
   */
  triggerBasis: setting(z.enum(['window', 'limit', 'budget']).default('window'), {
    label: 'Trigger basis',
    group: 'Trigger',
    description: 'What trigger and target are ratios of: the window, or the context guard’s limit.',
  }),
  /** `above`: fire when the request is over the trigger; `at-or-above`: at it or over (the sliding-window compression's `>= 75%`). */
  triggerWhen: z.enum(['above', 'at-or-above']).default('above'),
  /**
   * The limit each step shows as the one its policy enforces (docs/policies.md §Common):
   * `guard` = window − buffer − maxOutput (the context guard), `trigger` = the trigger itself (the
   * Go agent loop, the SDK turn interceptor, presets), `basis` = what the trigger is a ratio of (the
   * sliding-window compression), `budget` = the token budget (the autonomous agent budget).
   * Absent: `guard` when the guard path is on or the proactive path off, else `trigger`.
   */
  limitRule: z.enum(['guard', 'trigger', 'basis', 'budget']).optional(),
  /**
   * What the proactive path does when it fires: run the strategy `pipeline`, or the Go agent
   * loop's `force-compression` (drop the oldest ~50% of turns, note it in the summary;
   * docs/policies.md §S0).
   */
  proactiveAction: z.enum(['pipeline', 'force-compression']).default('pipeline'),
  /** Absolute trigger in tokens; overrides `trigger` when set. */
  triggerTokens: setting(z.number().positive().optional(), {
    label: 'Trigger (absolute)',
    group: 'Trigger',
    unit: 'tokens',
    description: 'An absolute trigger; replaces the ratio when set.',
  }),
  /**
   * Claude Code's auto-compact threshold: min(floor((window − reserve) × pct), window − cap),
   * never below half the window (docs/policies.md §Presets: the clamp for windows ≤ cap).
   */
  autoCompact: z
    .object({
      reserve: setting(z.number().nonnegative(), {
        label: 'Auto-compact reserve',
        group: 'Trigger',
        unit: 'tokens',
        description: 'Claude Code: threshold = min(floor((window − reserve) × pct), window − cap).',
      }),
      pct: setting(ratio, {
        label: 'Auto-compact share',
        group: 'Trigger',
        unit: 'ratio',
        description: 'Claude Code: share of (window − reserve) at which it compacts.',
      }),
      cap: setting(z.number().nonnegative(), {
        label: 'Auto-compact cap',
        group: 'Trigger',
        unit: 'tokens',
        description: 'Claude Code: it compacts at the latest at window − cap.',
      }),
    })
    .strict()
    .optional(),
  /** Event-count condensers (OpenHands): compress when the window holds more than this many messages. */
  triggerMessages: setting(positiveInt.optional(), {
    label: 'Trigger (messages)',
    group: 'Trigger',
    unit: 'messages',
    description: 'Compress when the window holds more than this many messages (OpenHands max_size).',
  }),
  paths: z
    .object({
      /** The Go agent loop's path 1: summarize after a turn completes. */
      async: setting(z.boolean().default(false), {
        label: 'Async summarization',
        group: 'Paths',
        description: "The Go agent loop's path 1: summarize after a turn completes.",
      }),
      /** Check before each call (the Go agent loop's path 2, the context guard's turn_preflight, and every other policy). */
      proactive: setting(z.boolean().default(true), {
        label: 'Proactive check',
        group: 'Paths',
        description:
          "Check before each call and compress over the trigger (the Go agent loop's path 2, the SDK turn interceptor, the sliding-window compression, the autonomous agent budget).",
      }),
      /** The Go agent loop's path 3: drop the oldest ~50% of turns when the true size overflows the window. */
      emergency: setting(z.boolean().default(false), {
        label: 'Emergency drop',
        group: 'Paths',
        description: "The Go agent loop's path 3: drop the oldest ~50% of turns when the true size overflows.",
      }),
      /** The context guard: ok / skip (fallback model) / final (forced final turn). */
      guard: setting(z.boolean().default(false), {
        label: 'Guard',
        group: 'Paths',
        description: "The context guard's turn_preflight: ok / skip to a fallback model / forced final turn.",
      }),
      /** The context guard's tool_preflight: each tool output's tokens previewed against what is left under the limit. */
      toolPreflight: z.boolean().default(false),
    })
    .default({ async: false, proactive: true, emergency: false, guard: false, toolPreflight: false }),
  /** The Go agent loop's async trigger: message count, or history tokens over a ratio of the window. */
  asyncMessages: setting(positiveInt.default(40), {
    label: 'Async after messages',
    group: 'Paths',
    unit: 'messages',
    description: 'The Go agent loop: summarize after a turn when the window holds more messages than this.',
  }),
  asyncRatio: setting(ratio.default(0.75), {
    label: 'Async at ratio',
    group: 'Paths',
    unit: 'ratio',
    description: 'The Go agent loop: or when history passes this ratio of the window.',
  }),
  /** The Go agent loop's first known gap fixed: use the full budget formula for the async trigger. */
  asyncFullBudget: setting(z.boolean().default(false), {
    label: 'Async full budget',
    group: 'Paths',
    description: "The Go agent loop's first known gap fixed: the async trigger uses the full budget formula.",
  }),
  /**
   * Agents compact inside a long turn (one user prompt, hundreds of tool calls): when set, the
   * turn in progress may also be cut at an exchange boundary — an assistant message with no tool
   * call open across it — so a call never loses its result. Completed turns are always cut whole.
   * The Go agent loop keeps turns atomic (false).
   */
  cutWithinTurn: setting(z.boolean().default(true), {
    label: 'Cut within a turn',
    group: 'Strategy',
    description: 'The turn in progress may be cut at an exchange boundary (the Go agent loop keeps turns whole).',
  }),
};

/** The pipeline's metadata (its type, an enum of the registered strategies, is built in config.ts). */
export const PIPELINE_META: SettingMeta = {
  label: 'Strategies',
  group: 'Strategy',
  description: 'Applied in order until the request is under the target.',
};

/** The common settings that come after the strategies' own settings. */
export const COMMON_AFTER = {
  /** The context guard's tool_preflight: results over this many bytes are handled (0 = off). */
  toolOutputMaxBytes: setting(z.number().int().nonnegative().default(0), {
    label: 'Tool output max',
    group: 'Guard and tools',
    unit: 'bytes',
    description: "The context guard's tool_preflight: larger results are handled (0 = off).",
  }),
  /** The context guard's ToolOutputExtractor modes (docs/policies.md §S1), plus head-tail and offload. */
  toolOutputMode: setting(z.enum(TOOL_OUTPUT_MODES).default('truncate'), {
    label: 'Tool output mode',
    group: 'Guard and tools',
    description: 'How a large result is handled: truncate, head and tail, or stored aside.',
  }),
  /** The context guard's tool budget: past this many tool calls the run is forced into its final turn. */
  toolBudget: setting(positiveInt.optional(), {
    label: 'Tool budget',
    group: 'Guard and tools',
    unit: 'tool calls',
    description: 'The context guard: past this many tool calls the run is forced into its final turn.',
  }),
  /** The context guard: models tried, in order, when the projection passes the limit. */
  fallbackModels: setting(z.array(z.string()).default([]), {
    label: 'Fallback models',
    group: 'Guard and tools',
    description: 'The context guard: models tried in order when the projection passes the limit.',
  }),
  summarizer: setting(z.enum(['extractive', 'openai', 'anthropic', 'none']).default('extractive'), {
    label: 'Summarizer',
    group: 'Summarizer',
    description: 'Extractive (offline, deterministic) or a remote model.',
  }),
  /** Model and endpoint of a remote summarizer (the key comes from the host: environment or keychain). */
  summarizerModel: setting(z.string().optional(), {
    label: 'Summarizer model',
    group: 'Summarizer',
    description: 'Model of a remote summarizer.',
  }),
  // Checked where the config is read (a saved or imported policy, --set, a config file): only
  // http(s), never a link-local or cloud-metadata host. Which URL may receive a key is the
  // host's decision (src/main/summarizer.ts), made again before anything is sent.
  summarizerUrl: setting(
    z
      .string()
      .url()
      .superRefine((url, ctx) => {
        const problem = summarizerUrlProblem(url);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    { label: 'Summarizer URL', group: 'Summarizer', description: 'Endpoint of a remote summarizer (its key comes from the host).' },
  ),
  /** The Go agent loop's emergency path without reported usage: the tokenizer that stands in for the provider's. */
  referenceTokenizer: setting(z.string().default('tiktoken:o200k_base'), {
    label: 'Reference tokenizer',
    group: 'Estimate',
    description: "Stands in for the provider's count on the Go agent loop's emergency path when the transcript reports none.",
  }),
  /** Tokens per media item (the Go agent loop). */
  mediaTokens: setting(z.number().int().nonnegative().optional(), {
    label: 'Tokens per media item',
    group: 'Estimate',
    unit: 'tokens',
    description: 'Flat cost of an image or file (the Go agent loop).',
  }),
  /** The context guard's tool schema scale. */
  schemaScale: setting(z.number().positive().default(1), {
    label: 'Tool schema scale',
    group: 'Estimate',
    unit: '×',
    description: 'Tool definitions are counted this many times (the context guard: 2.09).',
  }),
  /** Warn (status `warn`) when the request passes this ratio of the window. */
  warnAt: setting(ratio.optional(), {
    label: 'Warn at',
    group: 'Trigger',
    unit: 'ratio',
    description: 'Status warn when the request passes this ratio of the window.',
  }),
  /** The session budget (the autonomous agent budget's hard limits; the sliding-window compression's session layer). */
  budget: budgetLayer(SESSION_BUDGET).default(BUDGET_DEFAULT),
  /** The sliding-window compression's task budget (its long-running preset: 300,000 tokens). */
  taskBudget: BudgetLayerConfig.default(BUDGET_DEFAULT),
  /** The sliding-window compression's agent budget (its general and debugging presets). */
  agentBudget: BudgetLayerConfig.default(BUDGET_DEFAULT),
  /**
   * Messages that never leave the window (the sliding-window compression's important messages): a
   * message id, or a 0-based message index. The CLI's `--pin` adds to it; `--set` does not.
   */
  pinned: setting(z.array(z.union([z.string().min(1), z.number().int().nonnegative()])).default([]), {
    label: 'Pinned',
    group: 'Other',
    description: 'Messages that never leave the window: a message id or a 0-based index (the CLI adds with --pin).',
    settable: false,
  }),
};

/**
 * What every strategy may read of the config: the common settings and the pipeline. A strategy's
 * own settings come on top (src/core/strategies/define.ts).
 */
export type CommonConfig = z.output<z.ZodObject<typeof COMMON_BEFORE & typeof COMMON_AFTER>> & { readonly pipeline: readonly string[] };
