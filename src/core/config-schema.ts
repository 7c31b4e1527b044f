/**
 * The one replay config schema (docs/policies.md §Common), joined from the common settings
 * (config-common.ts) and every registered strategy's own (src/core/strategies/registry.ts):
 * `{ …common before, pipeline, …each strategy's settings, …common after }`. Its leaves — each key,
 * its JSON Schema and the metadata it carries — are what `--set`, `CTXSCOPE_<KEY>`, the config
 * panel and docs/reference/config.md list.
 */
import { z } from 'zod';
import { COMMON_AFTER, COMMON_BEFORE, CUSTOM_STRATEGY, PIPELINE_META, setting, type CustomStrategyId } from './config-common';
import { BUILTIN_STRATEGIES, registryVersion, strategies, type StrategyId } from './strategies/registry';

export { CUSTOM_STRATEGY, TOOL_OUTPUT_MODES, BudgetLayerConfig } from './config-common';
export type { CustomStrategyId, ToolOutputMode } from './config-common';
export type { StrategyId } from './strategies/registry';

/** The built-in strategy ids, in the registry's order. */
export const STRATEGY_IDS = BUILTIN_STRATEGIES.map((d) => d.id) as readonly StrategyId[] as readonly [StrategyId, ...StrategyId[]];

/** Strategies applied in order until the context is under target: a registered id or `custom:<name>`. */
function pipelineOf<Id extends string>(ids: readonly [Id, ...Id[]]) {
  return setting(
    z
      .array(
        z.union([
          z.enum(ids),
          z.custom<CustomStrategyId>((v) => typeof v === 'string' && CUSTOM_STRATEGY.test(v), {
            message: `expected one of ${ids.join(', ')} or custom:<name>`,
          }),
        ]),
      )
      .min(1)
      .default(['summarize' as Id]),
    PIPELINE_META,
  );
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** The built-in strategies' settings as one shape (typed: `ReplayConfig` knows `slidingWindow` is a number). */
type BuiltinShape = UnionToIntersection<(typeof BUILTIN_STRATEGIES)[number]['settings']['shape']>;

function ownSettings(list: readonly { readonly settings: z.ZodObject }[]): z.ZodRawShape {
  const out: Record<string, z.ZodType> = {};
  for (const d of list) Object.assign(out, d.settings.shape);
  return out;
}

export const ReplayConfig = z
  .object({
    ...COMMON_BEFORE,
    pipeline: pipelineOf(STRATEGY_IDS),
    ...(ownSettings(BUILTIN_STRATEGIES) as BuiltinShape),
    ...COMMON_AFTER,
  })
  .strict();

export type ReplayConfig = z.output<typeof ReplayConfig>;
export type ReplayConfigInput = z.input<typeof ReplayConfig>;

let current: { version: number; schema: typeof ReplayConfig } = { version: 0, schema: ReplayConfig };

/**
 * The schema for the strategies registered now: `ReplayConfig` itself until a strategy is
 * registered, then one with its settings and id too (rebuilt once per registry change).
 */
export function configSchema(): typeof ReplayConfig {
  const v = registryVersion();
  if (current.version === v) return current.schema;
  const list = strategies();
  const ids = list.map((d) => d.id) as [string, ...string[]];
  const schema = z
    .object({ ...COMMON_BEFORE, pipeline: pipelineOf(ids), ...ownSettings(list), ...COMMON_AFTER })
    .strict() as unknown as typeof ReplayConfig;
  current = { version: v, schema };
  return schema;
}

/** The JSON Schema subset `z.toJSONSchema` gives for the config's leaves, with the metadata `setting` attached. */
export interface JsonSchema {
  readonly type?: string;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly exclusiveMinimum?: number;
  readonly maximum?: number;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly items?: JsonSchema & { readonly anyOf?: readonly JsonSchema[] };
  readonly label?: string;
  readonly group?: string;
  readonly unit?: string;
  readonly description?: string;
  readonly step?: number;
  readonly settable?: boolean;
}

export interface Leaf {
  readonly key: string;
  readonly schema: JsonSchema;
}

/** Keys that name the config rather than set it. */
const NOT_SETTINGS = new Set(['policy']);

let leavesCache: { schema: z.ZodType; leaves: readonly Leaf[] } | undefined;
/** Every settable leaf of a config schema (the registry's unless given), dotted for nested objects, in the schema's order. */
export function configLeaves(schema: z.ZodType = configSchema()): readonly Leaf[] {
  if (leavesCache?.schema === schema) return leavesCache.leaves;
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
  if (schema === configSchema()) leavesCache = { schema, leaves: out };
  return out;
}

/** How `--set` reads a key's value. */
export type SetKind = 'number' | 'string' | 'list' | 'bool';

/** The wrapper kinds whose inner type decides how a value is read. */
const WRAPPERS = new Set(['optional', 'default', 'nullable', 'prefault', 'readonly', 'catch']);

/**
 * Every leaf `--set` accepts (all but those whose metadata says `settable: false`), dotted, in the
 * schema's order, with how its value is read. Walks the zod types themselves: it runs when the
 * program starts, and zod's JSON Schema (configLeaves) costs tens of milliseconds to build;
 * test/unit/policies/set-keys.test.ts checks both walks list the same keys.
 */
export function settableKeys(schema: z.ZodObject = configSchema()): Map<string, SetKind> {
  const out = new Map<string, SetKind>();
  const walk = (shape: Readonly<Record<string, z.core.$ZodType>>, prefix: string): void => {
    for (const [k, field] of Object.entries(shape)) {
      if (!prefix && NOT_SETTINGS.has(k)) continue;
      let t = field;
      let settable = true;
      for (;;) {
        if ((z.globalRegistry.get(t) as { settable?: boolean } | undefined)?.settable === false) settable = false;
        const def = t._zod.def as { type: string; innerType?: z.core.$ZodType };
        if (!WRAPPERS.has(def.type) || !def.innerType) break;
        t = def.innerType;
      }
      const type = t._zod.def.type;
      if (type === 'object') walk((t as z.ZodObject).shape, `${prefix}${k}.`);
      else if (settable)
        out.set(prefix + k, type === 'number' ? 'number' : type === 'boolean' ? 'bool' : type === 'array' ? 'list' : 'string');
    }
  };
  walk(schema.shape, '');
  return out;
}
