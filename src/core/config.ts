/**
 * The one replay config (docs/policies.md §Common): a zod schema with defaults, and the override order of S3 —
 * request (`--set`, the UI) > preset (a policy) > environment > file defaults. A policy is
 * this config plus a strategy pipeline; nothing else changes between policies.
 */
import { z } from 'zod';
import { getPolicy, POLICIES } from './policies/index';
import { summarizerUrlProblem } from './summarize/remote';

export const STRATEGY_IDS = [
  'sliding-window',
  'drop-oldest',
  'primers-recents',
  'summarize',
  'tool-pruning',
  'head-tail',
  'observation-masking',
] as const;
export type StrategyId = (typeof STRATEGY_IDS)[number];
/** A strategy the caller supplies (the CLI loads it from the user's JS module): `custom:<name>`. */
export type CustomStrategyId = `custom:${string}`;
export const CUSTOM_STRATEGY = /^custom:[\w.-]{1,64}$/;

const ratio = z.number().gt(0).lte(1);
const positiveInt = z.number().int().positive();

export const TOOL_OUTPUT_MODES = ['auto', 'full-chunked', 'read-grep', 'truncate', 'head-tail', 'offload'] as const;
export type ToolOutputMode = (typeof TOOL_OUTPUT_MODES)[number];

/**
 * One budget layer (docs/policies.md §Common, budgets). `turns` counts LLM calls (S4's turns are
 * agent-loop iterations). `includeRequest`: S3's check, `used + this request > max`; without it,
 * S4's check at the start of a call, `used ≥ max`.
 */
const BudgetLayerConfig = z
  .object({
    turns: z.number().positive().optional(),
    tokens: z.number().positive().optional(),
    toolCalls: z.number().positive().optional(),
    cost: z.number().positive().optional(),
    minutes: z.number().positive().optional(),
    mode: z.enum(['hard', 'soft', 'approval']).default('hard'),
    warningThreshold: ratio.default(0.8),
    includeRequest: z.boolean().default(false),
    /** S3 backpressure delays as events. */
    backpressure: z.boolean().default(false),
  })
  .strict();
const BUDGET_DEFAULT = { mode: 'hard', warningThreshold: 0.8, includeRequest: false, backpressure: false } as const;
export type BudgetLayerConfig = z.output<typeof BudgetLayerConfig>;

export const ReplayConfig = z
  .object({
    /** Policy id or label the config came from. */
    policy: z.string().default('custom'),
    /** Model whose limits and prices apply (default: the transcript's). */
    model: z.string().optional(),
    window: positiveInt.optional(),
    maxOutput: positiveInt.optional(),
    /**
     * S0's `ContextWindow = MaxTokens × 4` when no window is configured wins over a provider's
     * default window (docs/policies.md §S0); the request, the transcript and the model catalog
     * still come first. Off: the provider default comes first (S1's order).
     */
    maxOutputWindowFirst: z.boolean().default(false),
    buffer: z.number().int().nonnegative().default(8_192),
    /** Tokenizer id, or `auto` = the model family's default. */
    tokenizer: z.string().default('auto'),
    /** Compression fires when the request passes trigger × window (or × limit, see triggerBasis). */
    trigger: ratio.default(0.85),
    /** Compression aims at target × window. */
    target: ratio.default(0.5),
    /**
     * What `trigger` and `target` are ratios of (docs/policies.md §Common): `window` for most
     * policies, `limit` = window − buffer − maxOutput (S0, S1), `budget` = `budget.tokens` (S4's
     * `maxTokens × threshold`).
     */
    triggerBasis: z.enum(['window', 'limit', 'budget']).default('window'),
    /** `above`: fire when the request is over the trigger; `at-or-above`: at it or over (S3's `>= 75%`). */
    triggerWhen: z.enum(['above', 'at-or-above']).default('above'),
    /**
     * The limit each step shows as the one its policy enforces (docs/policies.md §Common):
     * `guard` = window − buffer − maxOutput (S1), `trigger` = the trigger itself (S0, S2, presets),
     * `basis` = what the trigger is a ratio of (S3), `budget` = the token budget (S4). Absent: `guard`
     * when the guard path is on or the proactive path off, else `trigger`.
     */
    limitRule: z.enum(['guard', 'trigger', 'basis', 'budget']).optional(),
    /**
     * What the proactive path does when it fires: run the strategy `pipeline`, or S0's
     * `force-compression` (drop the oldest ~50% of turns, note it in the summary; docs/policies.md §S0).
     */
    proactiveAction: z.enum(['pipeline', 'force-compression']).default('pipeline'),
    /** Absolute trigger in tokens; overrides `trigger` when set. */
    triggerTokens: z.number().positive().optional(),
    /**
     * Claude Code's auto-compact threshold: min(floor((window − reserve) × pct), window − cap),
     * never below half the window (docs/policies.md §Presets: the clamp for windows ≤ cap).
     */
    autoCompact: z.object({ reserve: z.number().nonnegative(), pct: ratio, cap: z.number().nonnegative() }).strict().optional(),
    /** Event-count condensers (OpenHands): compress when the window holds more than this many messages. */
    triggerMessages: positiveInt.optional(),
    paths: z
      .object({
        /** S0 path 1: summarize after a turn completes. */
        async: z.boolean().default(false),
        /** S0 path 2 / S1 turn_preflight / S2 / S3 / S4: check before each call. */
        proactive: z.boolean().default(true),
        /** S0 path 3: drop the oldest ~50% of turns when the true size overflows the window. */
        emergency: z.boolean().default(false),
        /** S1's guard: ok / skip (fallback model) / final (forced final turn). */
        guard: z.boolean().default(false),
        /** S1's tool_preflight: each tool output's tokens previewed against what is left under the limit. */
        toolPreflight: z.boolean().default(false),
      })
      .default({ async: false, proactive: true, emergency: false, guard: false, toolPreflight: false }),
    /** S0 async trigger: message count, or history tokens over a ratio of the window. */
    asyncMessages: positiveInt.default(40),
    asyncRatio: ratio.default(0.75),
    /** S0's first known gap fixed: use the full budget formula for the async trigger. */
    asyncFullBudget: z.boolean().default(false),
    /**
     * Agents compact inside a long turn (one user prompt, hundreds of tool calls): when set, the
     * turn in progress may also be cut at an exchange boundary — an assistant message with no tool
     * call open across it — so a call never loses its result. Completed turns are always cut whole.
     * S0 keeps turns atomic (false).
     */
    cutWithinTurn: z.boolean().default(true),
    /** Strategies applied in order until the context is under target. */
    pipeline: z
      .array(
        z.union([
          z.enum(STRATEGY_IDS),
          z.custom<CustomStrategyId>((v) => typeof v === 'string' && CUSTOM_STRATEGY.test(v), {
            message: `expected one of ${STRATEGY_IDS.join(', ')} or custom:<name>`,
          }),
        ]),
      )
      .min(1)
      .default(['summarize']),
    primers: z.number().int().nonnegative().default(3),
    recents: z.number().int().nonnegative().default(20),
    slidingWindow: positiveInt.default(20),
    /**
     * Summarize keeps exactly the last N messages and folds the rest (S2: "takes messages 0..N-10 …
     * keeps last 10 messages intact"); unset, it folds the oldest turns until the history fits the
     * target (docs/policies.md §S2, Summarize).
     */
    summarizeKeepLast: positiveInt.optional(),
    /** Observation masking: the last N tool results stay verbatim. */
    keepToolResults: z.number().int().nonnegative().default(5),
    /** Observation masking by events (OpenHands' attention_window): results among the last N messages stay verbatim; overrides keepToolResults. */
    attentionWindow: positiveInt.optional(),
    /** S4 head / tail protection, in turns. */
    protectHead: z.number().int().nonnegative().default(1),
    protectTail: z.number().int().nonnegative().default(2),
    /** S1 tool_preflight: results over this many bytes are handled (0 = off). */
    toolOutputMaxBytes: z.number().int().nonnegative().default(0),
    /** S1's ToolOutputExtractor modes (docs/policies.md §S1), plus head-tail and offload. */
    toolOutputMode: z.enum(TOOL_OUTPUT_MODES).default('truncate'),
    /** S1's tool budget: past this many tool calls the run is forced into its final turn. */
    toolBudget: positiveInt.optional(),
    /** S1: models tried, in order, when the projection passes the limit. */
    fallbackModels: z.array(z.string()).default([]),
    summarizer: z.enum(['extractive', 'openai', 'anthropic', 'none']).default('extractive'),
    /** Model and endpoint of a remote summarizer (the key comes from the host: environment or keychain). */
    summarizerModel: z.string().optional(),
    // Checked where the config is read (a saved or imported policy, --set, a config file): only
    // http(s), never a link-local or cloud-metadata host. Which URL may receive a key is the
    // host's decision (src/main/summarizer.ts), made again before anything is sent.
    summarizerUrl: z
      .string()
      .url()
      .superRefine((url, ctx) => {
        const problem = summarizerUrlProblem(url);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    /** S0's emergency path without reported usage: the tokenizer that stands in for the provider's. */
    referenceTokenizer: z.string().default('tiktoken:o200k_base'),
    /** Tokens per media item (S0). */
    mediaTokens: z.number().int().nonnegative().optional(),
    /** S1 tool schema scale. */
    schemaScale: z.number().positive().default(1),
    /** Warn (status `warn`) when the request passes this ratio of the window. */
    warnAt: ratio.optional(),
    /** The session budget (S4's hard limits; S3's session layer). */
    budget: BudgetLayerConfig.default(BUDGET_DEFAULT),
    /** S3's task budget (its long-running preset: 300,000 tokens). */
    taskBudget: BudgetLayerConfig.default(BUDGET_DEFAULT),
    /** S3's agent budget (its general and debugging presets). */
    agentBudget: BudgetLayerConfig.default(BUDGET_DEFAULT),
    /**
     * Messages that never leave the window (S3's important messages): a message id, or a 0-based
     * message index. The CLI's `--pin` adds to it.
     */
    pinned: z.array(z.union([z.string().min(1), z.number().int().nonnegative()])).default([]),
  })
  .strict();

export type ReplayConfig = z.output<typeof ReplayConfig>;
export type ReplayConfigInput = z.input<typeof ReplayConfig>;

/** Keys `--set key=value` accepts, with how to read the value. */
const SET_KEYS: Record<string, 'number' | 'string' | 'list' | 'mode' | 'bool'> = {
  model: 'string',
  window: 'number',
  maxOutput: 'number',
  maxOutputWindowFirst: 'bool',
  buffer: 'number',
  tokenizer: 'string',
  trigger: 'number',
  target: 'number',
  primers: 'number',
  recents: 'number',
  slidingWindow: 'number',
  summarizeKeepLast: 'number',
  toolOutputMaxBytes: 'number',
  toolBudget: 'number',
  summarizer: 'string',
  summarizerModel: 'string',
  summarizerUrl: 'string',
  referenceTokenizer: 'string',
  pipeline: 'list',
  fallbackModels: 'list',
  keepToolResults: 'number',
  attentionWindow: 'number',
  triggerMessages: 'number',
  'budget.turns': 'number',
  'budget.tokens': 'number',
  'budget.toolCalls': 'number',
  'budget.cost': 'number',
  'budget.minutes': 'number',
  'budget.mode': 'mode',
  'paths.async': 'bool',
  'paths.proactive': 'bool',
  'paths.emergency': 'bool',
  'paths.guard': 'bool',
  cutWithinTurn: 'bool',
  triggerTokens: 'number',
  triggerBasis: 'string',
  'autoCompact.reserve': 'number',
  'autoCompact.pct': 'number',
  'autoCompact.cap': 'number',
  asyncMessages: 'number',
  asyncRatio: 'number',
  asyncFullBudget: 'bool',
  protectHead: 'number',
  protectTail: 'number',
  toolOutputMode: 'string',
  warnAt: 'number',
  schemaScale: 'number',
  mediaTokens: 'number',
  'budget.warningThreshold': 'number',
  'budget.backpressure': 'bool',
  'budget.includeRequest': 'bool',
  ...layerKeys('taskBudget'),
  ...layerKeys('agentBudget'),
  'paths.toolPreflight': 'bool',
  triggerWhen: 'string',
  limitRule: 'string',
  proactiveAction: 'string',
};

function layerKeys(layer: string): Record<string, 'number' | 'mode' | 'bool'> {
  const out: Record<string, 'number' | 'mode' | 'bool'> = {};
  for (const d of ['turns', 'tokens', 'toolCalls', 'cost', 'minutes', 'warningThreshold']) out[`${layer}.${d}`] = 'number';
  out[`${layer}.mode`] = 'mode';
  out[`${layer}.includeRequest`] = 'bool';
  out[`${layer}.backpressure`] = 'bool';
  return out;
}
export const SET_KEY_NAMES = Object.keys(SET_KEYS);

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Overrides = Readonly<Record<string, string | number | boolean>>;

/** `key=value` → [key, typed value]; a clear error for an unknown key or a bad value. */
export function parseSetOverride(text: string): [string, string | number | boolean | string[]] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new ConfigError(`--set: expected key=value, got "${text}"`);
  const key = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1).trim();
  return [key, typedValue(key, raw)];
}

function typedValue(key: string, raw: string | number | boolean): string | number | boolean | string[] {
  const kind = SET_KEYS[key];
  if (!kind) throw new ConfigError(`unknown config key "${key}" (known: ${SET_KEY_NAMES.join(', ')})`);
  if (kind === 'number') {
    const n = typeof raw === 'number' ? raw : Number(raw);
    if (typeof raw === 'boolean' || raw === '' || !Number.isFinite(n))
      throw new ConfigError(`${key}: expected a number, got "${String(raw)}"`);
    return n;
  }
  if (kind === 'bool') {
    if (raw === true || raw === 'true' || raw === '1') return true;
    if (raw === false || raw === 'false' || raw === '0') return false;
    throw new ConfigError(`${key}: expected true or false, got "${String(raw)}"`);
  }
  if (kind === 'list')
    return String(raw)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return String(raw);
}

/** Applies `key` (dotted for nested) = value to a plain config object (copy on write). */
function applyOne(base: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const dot = key.indexOf('.');
  if (dot < 0) return { ...base, [key]: value };
  const head = key.slice(0, dot);
  const inner = (typeof base[head] === 'object' && base[head] !== null ? base[head] : {}) as Record<string, unknown>;
  return { ...base, [head]: applyOne(inner, key.slice(dot + 1), value) };
}

/** Every key of the schema, and of its `paths`, in the schema's order. */
const CONFIG_KEYS = Object.keys(ReplayConfig.shape);
const PATH_KEYS = Object.keys(ReplayConfig.shape.paths.unwrap().shape);

/**
 * The config with every key of the schema present (undefined where absent), in the schema's
 * order, and `paths` likewise: one object shape (V8 hidden class) for every policy. The parsed
 * object's shape followed the preset's keys — twelve shapes for the twelve built-in policies — and
 * the replay reads the config at every call, so once several policies had run in one worker (the
 * idle-time warm-ups) those reads were megamorphic and a policy's first replay deoptimized its
 * hot functions on "wrong map" (18 deoptimizations in letta's first drag on the bench's fresh
 * `serve`). JSON is unchanged: undefined keys are not written, and present keys keep their order.
 */
function oneShape(config: ReplayConfig): ReplayConfig {
  const from = config as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of CONFIG_KEYS) out[k] = from[k];
  const paths = from['paths'] as Record<string, unknown>;
  const p: Record<string, unknown> = {};
  for (const k of PATH_KEYS) p[k] = paths[k];
  out['paths'] = p;
  return out as unknown as ReplayConfig;
}

/** Parses and validates a config, naming the bad field. */
export function validateConfig(input: unknown, where = 'config'): ReplayConfig {
  const r = ReplayConfig.safeParse(input);
  if (r.success) return oneShape(r.data);
  const issue = r.error.issues[0]!;
  throw new ConfigError(`${where}: ${issue.path.join('.') || 'config'}: ${issue.message}`);
}

/**
 * S3's precedence: request overrides > the preset > environment > file defaults.
 * `file` is a user config file's content (JSON), `env` the `CTXSCOPE_*` variables as overrides.
 */
export function resolveConfig(
  policyIdOrConfig: string | ReplayConfigInput,
  request: Overrides = {},
  env: Overrides = {},
  file: Readonly<Record<string, unknown>> = {},
): ReplayConfig {
  const preset = typeof policyIdOrConfig === 'string' ? presetOf(policyIdOrConfig) : policyIdOrConfig;
  let merged: Record<string, unknown> = { ...file };
  for (const [k, v] of Object.entries(env)) merged = applyOne(merged, k, typedValue(k, v));
  merged = deepMerge(merged, preset as Record<string, unknown>);
  for (const [k, v] of Object.entries(request)) merged = applyOne(merged, k, typedValue(k, v));
  return validateConfig(merged);
}

/** A policy's config by id; a clear error naming the known ids otherwise. */
function presetOf(id: string): ReplayConfigInput {
  const p = getPolicy(id);
  if (!p) throw new ConfigError(`unknown policy "${id}" (known: ${POLICIES.map((x) => x.id).join(', ')})`);
  return p.config;
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
        ? deepMerge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/** `CTXSCOPE_TRIGGER=0.7` style environment variables → overrides. */
export function envOverrides(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of SET_KEY_NAMES) {
    const name =
      'CTXSCOPE_' +
      key
        .replace(/\./g, '_')
        .replace(/[A-Z]/g, (c) => '_' + c)
        .toUpperCase();
    const v = env[name];
    if (v !== undefined && v !== '') out[key] = v;
  }
  return out;
}
