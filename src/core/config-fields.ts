/**
 * The config panel of a policy, derived from the one config schema (config-schema.ts: the common
 * settings and every registered strategy's own) rather than kept beside it (docs/architecture.md,
 * "Add a strategy"): every leaf becomes a field, its kind and valid range read from the schema's
 * JSON Schema (zod's `toJSONSchema`), enums as options, and its label, group, unit and sentence
 * from the metadata the setting carries (config-common.ts `setting`). A key without metadata still
 * appears, with a label made from its name. Each field says whether the policy uses it and, when
 * not, why: a strategy's setting with no such strategy in the pipeline (or the strategy's own
 * reason), a trigger the auto-compact formula replaces, …
 */
import {
  configLeaves,
  resolveConfig,
  type JsonSchema,
  type Leaf,
  type Overrides,
  type ReplayConfig,
  type ReplayConfigInput,
} from './config';
import { pipelineSummarizes, settingUsers, strategyById } from './strategies/registry';
import type { ConfigField } from './view/config-field';

export { configLeaves };
export { pipelineSummarizes } from './strategies/registry';

// One field of the config panel: the view model lives in view/config-field.ts (the contract re-exports it).
export type { ConfigField };

type FieldValue = ConfigField['value'];

/** Whether every strategy of the pipeline keeps message counts and never reads the token target. */
function pipelineKeepsCounts(c: ReplayConfig): boolean {
  return c.pipeline.every((id) => strategyById(id)?.keepsMessageCounts(c) === true);
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
      step: s.step ?? 1,
      options: null,
    };
  if (s.type === 'number') {
    // A share: above 0, at most 1.
    if (max === 1 && (min === 0 || min === null)) return { kind: 'ratio', min: 0, max: 1, step: s.step ?? 0.01, options: null };
    return { kind: 'number', min, max, step: s.step ?? null, options: null };
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
  const users = settingUsers(key);
  if (users.length > 0) {
    // A strategy's own setting: ignored without that strategy (or one that reads it), else as the strategy says.
    const present = users.filter((d) => c.pipeline.includes(d.id as ReplayConfig['pipeline'][number]));
    if (present.length === 0) return `the pipeline has no ${users.map((d) => d.id).join(' or ')}`;
    for (const d of present) {
      const why = d.ignored(key, c);
      if (why !== null) return why;
    }
    return null;
  }
  return commonIgnored(key, c);
}

/** Why a common setting does nothing under this config (config-common.ts); null when it is used. */
function commonIgnored(key: string, c: ReplayConfig): string | null {
  const compressing = c.paths.proactive || c.paths.async;
  const noCompression = 'no compression path is on (paths.proactive and paths.async are off)';
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
      return commonIgnored('target', c) === null ? null : commonIgnored('trigger', c);
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
      return pipelineKeepsCounts(c) ? 'the pipeline keeps message counts, not a token target' : null;
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
 * Any budget-shaped object of the schema (S3's (docs/policies.md §S3) session / task / agent layers): its settings other
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
    const why = whyIgnored(key, inForce);
    return {
      key,
      label: schema.label ?? labelFrom(key),
      group: schema.group ?? (key.includes('.') ? labelFrom(key.split('.')[0]!) : 'Other'),
      ...shapeOf(schema),
      unit: schema.unit ?? DIMENSION_UNITS[key.slice(key.lastIndexOf('.') + 1)] ?? null,
      value: valueAt(inForce, key),
      policyValue: valueAt(policy, key),
      overridden: Object.prototype.hasOwnProperty.call(overrides, key),
      applies: why === null,
      why,
      description: schema.description ?? '',
    };
  });
}
