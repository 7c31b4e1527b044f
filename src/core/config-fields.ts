/**
 * The config panel of a policy, derived from the one config schema (config.ts) rather than kept
 * beside it (docs/architecture.md, "A strategy owns its settings"): every leaf of `ReplayConfig` becomes a
 * field, its kind and valid range read from the schema's JSON Schema (zod's `toJSONSchema`),
 * enums as options. A small table adds labels, units, groups and a sentence; a key the table does
 * not know still appears, with a label made from its name. Each field says whether the policy
 * uses it and, when not, why (a trigger the auto-compact formula replaces, a sliding-window size
 * with no sliding window in the pipeline, …).
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */
import { z } from 'zod';
import type { ConfigField } from '../shared/api';
import { ReplayConfig, resolveConfig, type Overrides, type ReplayConfigInput } from './config';

type FieldValue = ConfigField['value'];

interface Meta {
  readonly label: string;
  readonly group: string;
  readonly unit?: string;
  readonly description: string;
}

/** Labels, units, groups and a sentence per key; anything missing falls back to the key itself. */
const META: Readonly<Record<string, Meta>> = {
  model: { label: 'Model', group: 'Window', description: "Model whose window and prices apply (default: the transcript's)." },
  window: {
    label: 'Context window',
    group: 'Window',
    unit: 'tokens',
    description: 'Overrides the model catalog, provider and transcript (S1 resolution order).',
  },
  maxOutput: { label: 'Max output', group: 'Window', unit: 'tokens', description: 'Output reserve; default floor(window / 4) (S1).' },
  maxOutputWindowFirst: {
    label: 'Window = max output × 4 first',
    group: 'Window',
    description:
      "S0: with max output set and no window from the request, transcript or model catalog, the window is max output × 4, before a provider's default.",
  },
  buffer: { label: 'Buffer', group: 'Window', unit: 'tokens', description: 'Safety margin: limit = window − buffer − maxOutput (S1).' },
  tokenizer: { label: 'Tokenizer', group: 'Estimate', description: "How requests are counted; auto = the model family's default." },
  schemaScale: {
    label: 'Tool schema scale',
    group: 'Estimate',
    unit: '×',
    description: 'Tool definitions are counted this many times (S1: 2.09).',
  },
  mediaTokens: { label: 'Tokens per media item', group: 'Estimate', unit: 'tokens', description: 'Flat cost of an image or file (S0).' },
  referenceTokenizer: {
    label: 'Reference tokenizer',
    group: 'Estimate',
    description: "Stands in for the provider's count on S0's emergency path when the transcript reports none.",
  },
  trigger: {
    label: 'Trigger',
    group: 'Trigger',
    unit: 'ratio',
    description: 'Compress when the request passes this ratio of the window (or of the limit).',
  },
  target: { label: 'Target', group: 'Trigger', unit: 'ratio', description: 'Compression aims the request at this ratio.' },
  triggerBasis: {
    label: 'Trigger basis',
    group: 'Trigger',
    description: 'What trigger and target are ratios of: the window, or S1’s limit.',
  },
  triggerTokens: {
    label: 'Trigger (absolute)',
    group: 'Trigger',
    unit: 'tokens',
    description: 'An absolute trigger; replaces the ratio when set.',
  },
  triggerMessages: {
    label: 'Trigger (messages)',
    group: 'Trigger',
    unit: 'messages',
    description: 'Compress when the window holds more than this many messages (OpenHands max_size).',
  },
  'autoCompact.reserve': {
    label: 'Auto-compact reserve',
    group: 'Trigger',
    unit: 'tokens',
    description: 'Claude Code: threshold = min(floor((window − reserve) × pct), window − cap).',
  },
  'autoCompact.pct': {
    label: 'Auto-compact share',
    group: 'Trigger',
    unit: 'ratio',
    description: 'Claude Code: share of (window − reserve) at which it compacts.',
  },
  'autoCompact.cap': {
    label: 'Auto-compact cap',
    group: 'Trigger',
    unit: 'tokens',
    description: 'Claude Code: it compacts at the latest at window − cap.',
  },
  warnAt: {
    label: 'Warn at',
    group: 'Trigger',
    unit: 'ratio',
    description: 'Status warn when the request passes this ratio of the window.',
  },
  'paths.async': { label: 'Async summarization', group: 'Paths', description: 'S0 path 1: summarize after a turn completes.' },
  'paths.proactive': {
    label: 'Proactive check',
    group: 'Paths',
    description: 'Check before each call and compress over the trigger (S0 path 2, S2, S3, S4).',
  },
  'paths.emergency': {
    label: 'Emergency drop',
    group: 'Paths',
    description: 'S0 path 3: drop the oldest ~50% of turns when the true size overflows.',
  },
  'paths.guard': { label: 'Guard', group: 'Paths', description: "S1's turn_preflight: ok / skip to a fallback model / forced final turn." },
  asyncMessages: {
    label: 'Async after messages',
    group: 'Paths',
    unit: 'messages',
    description: 'S0: summarize after a turn when the window holds more messages than this.',
  },
  asyncRatio: {
    label: 'Async at ratio',
    group: 'Paths',
    unit: 'ratio',
    description: 'S0: or when history passes this ratio of the window.',
  },
  asyncFullBudget: {
    label: 'Async full budget',
    group: 'Paths',
    description: "S0's first known gap fixed: the async trigger uses the full budget formula.",
  },
  pipeline: { label: 'Strategies', group: 'Strategy', description: 'Applied in order until the request is under the target.' },
  cutWithinTurn: {
    label: 'Cut within a turn',
    group: 'Strategy',
    description: 'The turn in progress may be cut at an exchange boundary (S0 keeps turns whole).',
  },
  primers: { label: 'Primers', group: 'Strategy', unit: 'messages', description: 'S3: first messages always kept.' },
  recents: { label: 'Recents', group: 'Strategy', unit: 'messages', description: 'S3: last messages always kept.' },
  slidingWindow: {
    label: 'Sliding window',
    group: 'Strategy',
    unit: 'messages',
    description: 'S2 SlidingWindow(N): the last N messages are kept.',
  },
  summarizeKeepLast: {
    label: 'Summarize keeps last',
    group: 'Strategy',
    unit: 'messages',
    description: 'S2 Summarize: the last N messages stay intact, the rest is summarized (unset: summarize until the target is met).',
  },
  keepToolResults: {
    label: 'Verbatim tool results',
    group: 'Strategy',
    unit: 'tool results',
    description: 'Observation masking: the last N tool results stay verbatim.',
  },
  attentionWindow: {
    label: 'Attention window',
    group: 'Strategy',
    unit: 'messages',
    description: 'Observation masking by events: results among the last N messages stay verbatim.',
  },
  protectHead: { label: 'Protected head', group: 'Strategy', unit: 'turns', description: 'S4: first turns never compressed.' },
  protectTail: { label: 'Protected tail', group: 'Strategy', unit: 'turns', description: 'S4: last turns never compressed.' },
  summarizer: { label: 'Summarizer', group: 'Summarizer', description: 'Extractive (offline, deterministic) or a remote model.' },
  summarizerModel: { label: 'Summarizer model', group: 'Summarizer', description: 'Model of a remote summarizer.' },
  summarizerUrl: {
    label: 'Summarizer URL',
    group: 'Summarizer',
    description: 'Endpoint of a remote summarizer (its key comes from the host).',
  },
  toolOutputMaxBytes: {
    label: 'Tool output max',
    group: 'Guard and tools',
    unit: 'bytes',
    description: 'S1 tool_preflight: larger results are handled (0 = off).',
  },
  toolOutputMode: {
    label: 'Tool output mode',
    group: 'Guard and tools',
    description: 'How a large result is handled: truncate, head and tail, or stored aside.',
  },
  toolBudget: {
    label: 'Tool budget',
    group: 'Guard and tools',
    unit: 'tool calls',
    description: 'S1: past this many tool calls the run is forced into its final turn.',
  },
  fallbackModels: {
    label: 'Fallback models',
    group: 'Guard and tools',
    description: 'S1: models tried in order when the projection passes the limit.',
  },
  'budget.turns': { label: 'Turns budget', group: 'Budgets', unit: 'turns', description: 'S4: 200.' },
  'budget.tokens': {
    label: 'Tokens budget',
    group: 'Budgets',
    unit: 'tokens',
    description: 'Billed input + output tokens (S3 task budget, S4 1,000,000).',
  },
  'budget.toolCalls': { label: 'Tool calls budget', group: 'Budgets', unit: 'tool calls', description: 'S4: 200.' },
  'budget.cost': { label: 'Cost budget', group: 'Budgets', unit: 'USD', description: 'S4: $2.00.' },
  'budget.minutes': { label: 'Time budget', group: 'Budgets', unit: 'minutes', description: 'S4: 30 minutes of transcript time.' },
  'budget.mode': { label: 'Budget mode', group: 'Budgets', description: 'S3: hard aborts, soft warns, approval asks.' },
  'budget.warningThreshold': {
    label: 'Budget warning at',
    group: 'Budgets',
    unit: 'ratio',
    description: 'S3: warn when a budget passes this share.',
  },
  'budget.backpressure': { label: 'Backpressure', group: 'Budgets', description: 'S3: delays at 80 / 85 / 90 / 95% as events.' },
};

/** Keys that name the config rather than set it. */
const NOT_SETTINGS = new Set(['policy']);
/** Strategies that ask the summarizer for a summary of what they remove. */
const SUMMARIZING = new Set(['summarize', 'primers-recents', 'head-tail']);

/** Whether a strategy of `config`'s pipeline asks the summarizer for a summary of what it removes. */
export function pipelineSummarizes(config: Pick<ReplayConfig, 'pipeline'>): boolean {
  return config.pipeline.some((id) => SUMMARIZING.has(id));
}
/** Strategies that keep message counts and never read the token target. */
const COUNT_BASED = new Set(['primers-recents', 'sliding-window', 'observation-masking']);

/** The JSON Schema subset `z.toJSONSchema` gives for the config's leaves. */
interface JsonSchema {
  readonly type?: string;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly exclusiveMinimum?: number;
  readonly maximum?: number;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly items?: JsonSchema & { readonly anyOf?: readonly JsonSchema[] };
}

interface Leaf {
  readonly key: string;
  readonly schema: JsonSchema;
}

let leavesCache: readonly Leaf[] | undefined;
/** Every settable leaf of a config schema (ReplayConfig unless given), dotted for nested objects, in the schema's order. */
export function configLeaves(schema: z.ZodType = ReplayConfig): readonly Leaf[] {
  const isDefault = schema === ReplayConfig;
  if (isDefault && leavesCache) return leavesCache;
  // `unrepresentable: 'any'`: the pipeline's custom-strategy member has no JSON Schema; its enum member does.
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const out: Leaf[] = [];
  const walk = (props: Readonly<Record<string, JsonSchema>>, prefix: string): void => {
    for (const [k, s] of Object.entries(props)) {
      if (!prefix && NOT_SETTINGS.has(k)) continue;
      if (s.type === 'object' && s.properties) walk(s.properties, `${prefix}${k}.`);
      else out.push({ key: prefix + k, schema: s });
    }
  };
  walk(root.properties ?? {}, '');
  if (isDefault) leavesCache = out;
  return out;
}

/** Integers past this are "no maximum" (zod writes Number.MAX_SAFE_INTEGER). */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

function shapeOf(s: JsonSchema): Pick<ConfigField, 'kind' | 'min' | 'max' | 'step' | 'options'> {
  const min = s.minimum ?? s.exclusiveMinimum ?? null;
  const max = s.maximum !== undefined && s.maximum < UNBOUNDED ? s.maximum : null;
  if (s.type === 'boolean') return { kind: 'toggle', min: null, max: null, step: null, options: null };
  if (s.type === 'array') {
    const options = s.items?.enum ?? s.items?.anyOf?.find((a) => a.enum)?.enum ?? null;
    return { kind: 'list', min: null, max: null, step: null, options: options ? [...options] : null };
  }
  if (s.enum) return { kind: 'select', min: null, max: null, step: null, options: [...s.enum] };
  // A positive integer (exclusive minimum 0) starts at 1.
  if (s.type === 'integer')
    return {
      kind: 'integer',
      min: s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : null),
      max,
      step: 1,
      options: null,
    };
  if (s.type === 'number') {
    // A share: above 0, at most 1.
    if (max === 1 && (min === 0 || min === null)) return { kind: 'ratio', min: 0, max: 1, step: 0.01, options: null };
    return { kind: 'number', min, max, step: null, options: null };
  }
  return { kind: 'text', min: null, max: null, step: null, options: null };
}

function valueAt(config: Readonly<Record<string, unknown>>, dotted: string): FieldValue {
  let o: unknown = config;
  for (const part of dotted.split('.')) {
    if (!o || typeof o !== 'object') return null;
    o = (o as Record<string, unknown>)[part];
  }
  if (o === undefined || o === null) return null;
  if (Array.isArray(o)) return o.map(String);
  if (typeof o === 'string' || typeof o === 'number' || typeof o === 'boolean') return o;
  return JSON.stringify(o);
}

const labelFrom = (key: string): string => {
  const last = key.split('.').pop() ?? key;
  const words = last.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** Why a setting does nothing under this config; null when it is used. */
export function whyIgnored(key: string, c: ReplayConfig): string | null {
  const compressing = c.paths.proactive || c.paths.async;
  const noCompression = 'no compression path is on (paths.proactive and paths.async are off)';
  const has = (id: string): boolean => c.pipeline.includes(id as ReplayConfig['pipeline'][number]);
  const summarizes = pipelineSummarizes(c);
  const budgetSet =
    c.budget.turns !== undefined ||
    c.budget.tokens !== undefined ||
    c.budget.toolCalls !== undefined ||
    c.budget.cost !== undefined ||
    c.budget.minutes !== undefined;
  switch (key) {
    case 'triggerBasis':
      // The basis scales the target as well as the trigger.
      return whyIgnored('target', c) === null ? null : whyIgnored('trigger', c);
    case 'trigger':
      if (!c.paths.proactive) return 'the proactive check (paths.proactive) is off';
      if (c.triggerMessages !== undefined) return 'the trigger is a message count (triggerMessages)';
      if (c.triggerTokens !== undefined) return 'the absolute trigger (triggerTokens) replaces it';
      if (c.autoCompact) return 'the auto-compact formula (autoCompact.reserve, pct, cap) decides the trigger';
      return null;
    case 'triggerTokens':
      if (!c.paths.proactive) return 'the proactive check (paths.proactive) is off';
      return c.triggerMessages !== undefined ? 'the trigger is a message count (triggerMessages)' : null;
    case 'triggerMessages':
      return c.paths.proactive ? null : 'the proactive check (paths.proactive) is off';
    case 'autoCompact.reserve':
    case 'autoCompact.pct':
    case 'autoCompact.cap':
      if (!c.autoCompact) return 'the policy has no auto-compact formula (set all three to use one)';
      if (!c.paths.proactive) return 'the proactive check (paths.proactive) is off';
      if (c.triggerMessages !== undefined) return 'the trigger is a message count (triggerMessages)';
      return c.triggerTokens !== undefined ? 'the absolute trigger (triggerTokens) replaces it' : null;
    case 'target':
      if (!compressing) return noCompression;
      // Summarize with a keep-last count (S2) keeps a message count too.
      return c.pipeline.every((id) => COUNT_BASED.has(id) || (id === 'summarize' && c.summarizeKeepLast !== undefined))
        ? 'the pipeline keeps message counts, not a token target'
        : null;
    case 'pipeline':
    case 'cutWithinTurn':
      return compressing ? null : noCompression;
    case 'asyncMessages':
    case 'asyncRatio':
    case 'asyncFullBudget':
      return c.paths.async ? null : 'async summarization (paths.async) is off';
    case 'maxOutputWindowFirst':
      if (c.maxOutput === undefined) return 'max output (maxOutput) is not set';
      return c.window !== undefined ? 'the window is set (window)' : null;
    case 'referenceTokenizer':
      return c.paths.emergency ? null : 'the emergency path (paths.emergency) is off';
    case 'slidingWindow':
      return has('sliding-window') ? null : 'the pipeline has no sliding-window';
    case 'summarizeKeepLast':
      return has('summarize') ? null : 'the pipeline has no summarize';
    case 'primers':
    case 'recents':
      return has('primers-recents') ? null : 'the pipeline has no primers-recents';
    case 'keepToolResults':
      if (!has('observation-masking')) return 'the pipeline has no observation-masking';
      return c.attentionWindow !== undefined ? 'attentionWindow replaces it' : null;
    case 'attentionWindow':
      return has('observation-masking') ? null : 'the pipeline has no observation-masking';
    case 'protectHead':
      return has('head-tail') ? null : 'the pipeline has no head-tail';
    case 'protectTail':
      return has('head-tail') || has('tool-pruning') ? null : 'the pipeline has no head-tail or tool-pruning';
    case 'summarizer':
      if (!compressing) return noCompression;
      return summarizes ? null : 'nothing in the pipeline summarizes';
    case 'summarizerModel':
    case 'summarizerUrl':
      if (!compressing || !summarizes) return 'nothing in the pipeline summarizes';
      return c.summarizer === 'openai' || c.summarizer === 'anthropic' ? null : `the summarizer is ${c.summarizer}, not a remote one`;
    case 'fallbackModels':
      return c.paths.guard ? null : 'the guard (paths.guard) is off';
    case 'toolOutputMode':
      return c.toolOutputMaxBytes > 0 ? null : 'tool preflight is off (toolOutputMaxBytes is 0)';
    case 'budget.mode':
    case 'budget.warningThreshold':
    case 'budget.backpressure':
      return budgetSet ? null : 'no budget is set';
    default:
      return budgetLayerIgnored(key, c);
  }
}

const DIMENSION_KEYS = ['turns', 'tokens', 'toolCalls', 'cost', 'minutes'] as const;
/** Units of a budget dimension, in whichever budget object it sits. */
const DIMENSION_UNITS: Readonly<Record<string, string>> = {
  turns: 'turns',
  tokens: 'tokens',
  toolCalls: 'tool calls',
  cost: 'USD',
  minutes: 'minutes',
};

/**
 * Any budget-shaped object of the schema (S3's session / task / agent layers): its settings other
 * than the dimensions themselves do nothing until one dimension is set.
 */
function budgetLayerIgnored(key: string, c: ReplayConfig): string | null {
  const dot = key.lastIndexOf('.');
  if (dot < 0) return null;
  const layer = (c as Record<string, unknown>)[key.slice(0, dot)];
  if (!layer || typeof layer !== 'object' || !('mode' in layer)) return null;
  if ((DIMENSION_KEYS as readonly string[]).includes(key.slice(dot + 1))) return null;
  const set = DIMENSION_KEYS.some((d) => (layer as Record<string, unknown>)[d] !== undefined);
  return set ? null : `no ${key.slice(0, dot)} dimension is set`;
}

export interface ConfigFieldsOptions {
  /** Environment overrides (`CTXSCOPE_*`), between the file defaults and the policy (S3's order). */
  readonly env?: Overrides;
}

/**
 * The panel for a policy's config with the request's overrides. Throws ConfigError (config.ts)
 * for an override the schema refuses, naming the key.
 */
export function configFields(policyConfig: ReplayConfigInput, overrides: Overrides = {}, options: ConfigFieldsOptions = {}): ConfigField[] {
  const inForce = resolveConfig(policyConfig, overrides, options.env ?? {});
  const policy = resolveConfig(policyConfig, {}, options.env ?? {});
  return fieldsOf(configLeaves(), inForce, policy, overrides);
}

/** The fields for `leaves`, given the config in force and the policy's own (both resolved). */
export function fieldsOf(
  leaves: readonly Leaf[],
  inForce: ReplayConfig,
  policy: Readonly<Record<string, unknown>>,
  overrides: Overrides = {},
): ConfigField[] {
  return leaves.map(({ key, schema }) => {
    const meta = META[key];
    const why = whyIgnored(key, inForce);
    return {
      key,
      label: meta?.label ?? labelFrom(key),
      group: meta?.group ?? (key.includes('.') ? labelFrom(key.split('.')[0]!) : 'Other'),
      ...shapeOf(schema),
      unit: meta?.unit ?? DIMENSION_UNITS[key.slice(key.lastIndexOf('.') + 1)] ?? null,
      value: valueAt(inForce, key),
      policyValue: valueAt(policy, key),
      overridden: Object.prototype.hasOwnProperty.call(overrides, key),
      applies: why === null,
      why,
      description: meta?.description ?? '',
    };
  });
}
