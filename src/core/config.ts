/**
 * The one replay config (docs/policies.md §Common): its schema (config-schema.ts, joined from the
 * common settings and the registered strategies'), `--set` and `CTXSCOPE_<KEY>` parsing derived
 * from it, and the override order of the sliding-window compression (docs/policies.md §S3) —
 * request (`--set`, the UI) > preset (a policy) > environment > file defaults. A policy is this
 * config plus a strategy pipeline; nothing else changes between policies.
 */
import { getPolicy, POLICIES } from './policies/index';
import { configSchema, settableKeys, type ReplayConfig, type ReplayConfigInput, type SetKind } from './config-schema';
import { onRegistryChange } from './strategies/registry';

export {
  BudgetLayerConfig,
  configLeaves,
  configSchema,
  settableKeys,
  CUSTOM_STRATEGY,
  ReplayConfig,
  STRATEGY_IDS,
  TOOL_OUTPUT_MODES,
  type CustomStrategyId,
  type JsonSchema,
  type Leaf,
  type ReplayConfigInput,
  type StrategyId,
  type ToolOutputMode,
} from './config-schema';

let setKeys = new Map<string, SetKind>();
/**
 * Keys `--set key=value` (and `CTXSCOPE_<KEY>`) accept, in the schema's order, each read as its
 * zod type says (config-schema.ts `settableKeys`); refreshed when a strategy is registered.
 */
export const SET_KEY_NAMES: string[] = [];

function deriveSetKeys(): void {
  setKeys = settableKeys();
  SET_KEY_NAMES.length = 0;
  SET_KEY_NAMES.push(...setKeys.keys());
}
deriveSetKeys();
onRegistryChange(deriveSetKeys);

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
  const kind = setKeys.get(key);
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

/** Every key of the schema, and of its `paths`, in the schema's order (the registry's schema: rebuilt when it changes). */
let keysOf: { schema: unknown; config: readonly string[]; paths: readonly string[] } | undefined;
function schemaKeys(): { config: readonly string[]; paths: readonly string[] } {
  const schema = configSchema();
  if (keysOf?.schema !== schema)
    keysOf = { schema, config: Object.keys(schema.shape), paths: Object.keys(schema.shape.paths.unwrap().shape) };
  return keysOf;
}

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
  const { config: CONFIG_KEYS, paths: PATH_KEYS } = schemaKeys();
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
  const r = configSchema().safeParse(input);
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
