/**
 * The strategy registry: every strategy the program knows, built in or registered at run time (a
 * plugin, a test's toy strategy). Adding a strategy is one module (define.ts) and one line in
 * BUILTIN_STRATEGIES; the config schema, the `--set` keys and the config panel read this list.
 */
import { COMMON_AFTER, COMMON_BEFORE } from '../config-common';
import type { StrategyDescriptor } from './define';
import { strategy as dropOldest } from './drop-oldest';
import { strategy as headTail } from './head-tail';
import { strategy as observationMasking } from './observation-masking';
import { strategy as primersRecents } from './primers-recents';
import { strategy as slidingWindow } from './sliding-window';
import { strategy as summarize } from './summarize';
import { strategy as toolPruning } from './tool-pruning';

/** The built-in strategies, in the order the pipeline's choices list them. */
export const BUILTIN_STRATEGIES = [
  slidingWindow,
  dropOldest,
  primersRecents,
  summarize,
  toolPruning,
  headTail,
  observationMasking,
] as const;
export type StrategyId = (typeof BUILTIN_STRATEGIES)[number]['id'];

const ID = /^[a-z][a-z0-9._-]{0,63}$/;

export class StrategyRegistryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StrategyRegistryError';
  }
}

let all: readonly StrategyDescriptor[] = BUILTIN_STRATEGIES;
let byId = new Map<string, StrategyDescriptor>(all.map((d) => [d.id, d]));
let version = 0;
const listeners: (() => void)[] = [];

/** Every strategy, built-in first, then the registered ones in the order they came. */
export function strategies(): readonly StrategyDescriptor[] {
  return all;
}

export function strategyById(id: string): StrategyDescriptor | undefined {
  return byId.get(id);
}

/** Changes whenever a strategy is registered or removed: what is derived from the registry is rebuilt when it does. */
export function registryVersion(): number {
  return version;
}

/** Calls `fn` after every change to the registry (derived lists refresh themselves). */
export function onRegistryChange(fn: () => void): void {
  listeners.push(fn);
}

/**
 * Adds a strategy. Its id must be new (and not `custom:…`, which names a CLI strategy module's
 * plain function); its settings must not reuse a key another strategy or the common settings own.
 */
export function registerStrategy(d: StrategyDescriptor): void {
  if (!ID.test(d.id))
    throw new StrategyRegistryError(`strategy id "${d.id}": expected lower-case letters, digits, ".", "_" or "-" (at most 64)`);
  if (byId.has(d.id)) throw new StrategyRegistryError(`strategy "${d.id}" is already registered`);
  const taken = new Set<string>([...Object.keys(COMMON_BEFORE), 'pipeline', ...Object.keys(COMMON_AFTER)]);
  for (const other of all) for (const k of Object.keys(other.settings.shape)) taken.add(k);
  for (const k of Object.keys(d.settings.shape))
    if (taken.has(k)) throw new StrategyRegistryError(`strategy "${d.id}": setting "${k}" is already a config key`);
  for (const k of d.reads)
    if (!all.some((o) => k in o.settings.shape)) throw new StrategyRegistryError(`strategy "${d.id}" reads "${k}", which no strategy owns`);
  changed([...all, d]);
}

/** Removes a registered strategy (a test's toy); built-in strategies stay. */
export function unregisterStrategy(id: string): boolean {
  if (BUILTIN_STRATEGIES.some((d) => d.id === id) || !byId.has(id)) return false;
  changed(all.filter((d) => d.id !== id));
  return true;
}

function changed(next: readonly StrategyDescriptor[]): void {
  all = next;
  byId = new Map(all.map((d) => [d.id, d]));
  version++;
  for (const fn of listeners) fn();
}

/** Whether a strategy of the pipeline asks the summarizer for a summary of what it removes. */
export function pipelineSummarizes(config: { readonly pipeline: readonly string[] }): boolean {
  return config.pipeline.some((id) => byId.get(id)?.summarizes === true);
}

/** Whether every strategy of the pipeline masks at every call (a masking-only policy: no warning while nothing ages out). */
export function pipelineMasksContinuously(pipeline: readonly string[]): boolean {
  for (let i = 0; i < pipeline.length; i++) if (byId.get(pipeline[i]!)?.masksContinuously !== true) return false;
  return true;
}

/** The strategies whose settings include `key`: the one that owns it first, then those that read it; empty for a common key. */
export function settingUsers(key: string): readonly StrategyDescriptor[] {
  const owner = all.filter((d) => key in d.settings.shape);
  if (owner.length === 0) return owner;
  return [...owner, ...all.filter((d) => d.reads.includes(key))];
}
