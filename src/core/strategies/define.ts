/**
 * What a strategy module exports: one descriptor that says everything the rest of the program
 * needs to know about the strategy (docs/architecture.md, "Add a strategy"). The config schema,
 * the `--set` keys and `CTXSCOPE_<KEY>` variables, the config panel's fields and their "ignored
 * because" texts, and the settings table of docs/reference/config.md are all derived from the
 * registered descriptors (registry.ts); nothing else lists a strategy or its settings.
 */
import { z } from 'zod';
import type { CommonConfig } from '../config-common';
import type { HistoryView, Strategy, StrategyContext, StrategyResult } from './types';

/** A policy a strategy ships with (a toy or plugin strategy's own preset; built-in policies are in src/core/policies). */
export interface StrategyPreset {
  readonly id: string;
  readonly label: string;
  readonly source: string;
  readonly description: string;
  /** A config input (docs/reference/config.md): checked against the schema whenever it is resolved. */
  readonly config: Readonly<Record<string, unknown>>;
}

/**
 * A strategy as the registry holds it. `C` is the config the strategy reads: the common settings,
 * its own, and those of other strategies it reads (`reads`). Methods (not function properties), so a
 * descriptor typed for its own settings stands for any descriptor: the registry only ever hands
 * it a config the joined schema produced, which holds every registered strategy's settings.
 */
export interface StrategyDescriptor<C extends CommonConfig = CommonConfig> {
  /** The pipeline id (`sliding-window`). */
  readonly id: string;
  /** One sentence: what it keeps and what it removes. */
  readonly description: string;
  /** Its own settings, each with its metadata (config-common.ts `setting`); their keys are its to name. */
  readonly settings: z.ZodObject;
  /** Settings another strategy owns that this one also reads (their keys). */
  readonly reads: readonly string[];
  /** It asks the summarizer for a summary of what it removes. */
  readonly summarizes: boolean;
  /** It masks at every call whatever the trigger: a call with nothing newly masked is its steady state, not a warning. */
  readonly masksContinuously: boolean;
  /** Under this config it keeps message counts and never reads the token target. */
  keepsMessageCounts(config: C): boolean;
  /** Why one of its settings does nothing under this config although the pipeline has it; null when it is used. */
  ignored(key: string, config: C): string | null;
  run(history: HistoryView, budget: number, ctx: StrategyContext<C>): StrategyResult;
  /** Policies that come with the strategy (a plugin's own presets). */
  readonly presets: readonly StrategyPreset[];
}

/** What a strategy module writes; everything optional has the default a plain token-budget strategy wants. */
export interface StrategyDefinition<Id extends string, S extends z.ZodRawShape, C extends CommonConfig> {
  readonly id: Id;
  readonly description: string;
  readonly settings?: z.ZodObject<S>;
  readonly reads?: readonly string[];
  readonly summarizes?: boolean;
  readonly masksContinuously?: boolean;
  /** A constant, or a function of the config (a summarizer that keeps a message count when one is set). */
  readonly keepsMessageCounts?: boolean | ((config: C) => boolean);
  readonly ignored?: (key: string, config: C) => string | null;
  readonly run: Strategy<C>;
  readonly presets?: readonly StrategyPreset[];
}

/** The config a strategy with settings `S` (and `R` read from others) sees. */
export type ConfigWith<S extends z.ZodRawShape, R = unknown> = CommonConfig & z.output<z.ZodObject<S>> & R;

/** A strategy module's one export: `export const descriptor = defineStrategy({ id, settings, run, … })`. */
export function defineStrategy<Id extends string, S extends z.ZodRawShape = Record<never, never>, R = unknown>(
  d: StrategyDefinition<Id, S, ConfigWith<S, R>>,
): StrategyDescriptor<ConfigWith<S, R>> & { readonly id: Id; readonly settings: z.ZodObject<S> } {
  const counts = d.keepsMessageCounts ?? false;
  const ignored = d.ignored;
  return {
    id: d.id,
    description: d.description,
    settings: d.settings ?? (EMPTY as z.ZodObject<S>),
    reads: d.reads ?? [],
    summarizes: d.summarizes ?? false,
    masksContinuously: d.masksContinuously ?? false,
    keepsMessageCounts: typeof counts === 'function' ? counts : () => counts,
    ignored: ignored ?? (() => null),
    run: d.run,
    presets: d.presets ?? [],
  };
}

/** The settings of a strategy that has none. */
const EMPTY = z.object({});
