/**
 * `--strategy-module FILE.js`: a user's own strategies, loaded by the CLI only (the app never
 * executes user code). The module exports functions with the strategy signature
 * `(history, budget, ctx) => { kept, dropped, masked?, summaryRequest?, note }`, either as named
 * exports or as a default object of them; each is used as `custom:<name>` in a pipeline, e.g.
 * `--set pipeline=custom:keepErrors,sliding-window`. Results are checked by the replay
 * (src/core/strategies/check.ts) before they touch the window.
 *
 * A module may also describe whole strategies, settings and all (src/core/strategies/define.ts):
 * it exports `ctxscopeStrategies(kit)`, which receives this program's zod, `setting` and
 * `defineStrategy` (so its schemas are ours, whether the CLI runs bundled or from source) and
 * returns descriptors. Each is registered: its id goes in `pipeline` as it is, its settings take
 * `--set` and `CTXSCOPE_<KEY>`, and the policies it brings are listed by `ctxscope policies`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { setting } from '../core/config-common';
import { defineStrategy, type StrategyDescriptor } from '../core/strategies/define';
import { registerStrategy, strategyById } from '../core/strategies/registry';
import type { Strategy } from '../core/strategies/types';
import { CliError, EXIT } from './errors';

/** What `ctxscopeStrategies(kit)` receives. */
export const STRATEGY_KIT = { z, setting, defineStrategy } as const;
export type StrategyKit = typeof STRATEGY_KIT;
/** The export that describes whole strategies (not itself a `custom:` function). */
const DESCRIBE = 'ctxscopeStrategies';

const NAME = /^[\w.-]{1,64}$/;

export async function loadStrategyModules(files: readonly string[]): Promise<Record<string, Strategy>> {
  const out: Record<string, Strategy> = {};
  for (const file of files) {
    const path = resolve(file);
    if (!existsSync(path)) throw new CliError(`--strategy-module ${file}: no such file`, EXIT.usage);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    } catch (e) {
      throw new CliError(`${file}: could not load the module (${e instanceof Error ? e.message : String(e)})`, EXIT.badInput);
    }
    const described = registerDescribed(file, mod[DESCRIBE]);
    const entries: [string, unknown][] = Object.entries(mod).filter(([k]) => k !== 'default' && k !== DESCRIBE);
    const def = mod['default'];
    if (def && typeof def === 'object') entries.push(...Object.entries(def as Record<string, unknown>));
    let found = 0;
    for (const [name, fn] of entries) {
      if (typeof fn !== 'function') continue;
      if (!NAME.test(name))
        throw new CliError(`${file}: strategy name "${name}" must be letters, digits, "_", "." or "-" (at most 64)`, EXIT.badInput);
      out[name] = fn as Strategy;
      found++;
    }
    if (found === 0 && described === 0)
      throw new CliError(
        `${file}: expected the module to export strategy functions (named exports or a default object of them)`,
        EXIT.badInput,
      );
  }
  return out;
}

/** Registers the descriptors `ctxscopeStrategies(kit)` returns; how many (0 when the module has no such export). */
function registerDescribed(file: string, describe: unknown): number {
  if (describe === undefined) return 0;
  if (typeof describe !== 'function') throw new CliError(`${file}: ${DESCRIBE} must be a function of the kit`, EXIT.badInput);
  let list: unknown;
  try {
    list = (describe as (kit: StrategyKit) => unknown)(STRATEGY_KIT);
  } catch (e) {
    throw new CliError(`${file}: ${DESCRIBE} failed (${e instanceof Error ? e.message : String(e)})`, EXIT.badInput);
  }
  if (!Array.isArray(list)) throw new CliError(`${file}: ${DESCRIBE} must return an array of defineStrategy(…) results`, EXIT.badInput);
  for (const d of list as StrategyDescriptor[]) {
    if (!d || typeof d !== 'object' || typeof d.run !== 'function' || !(d.settings instanceof z.ZodObject))
      throw new CliError(`${file}: ${DESCRIBE} must return defineStrategy(…) results`, EXIT.badInput);
    // The same module loaded twice (replay then compare in one process) registers once.
    if (strategyById(d.id) !== undefined) continue;
    try {
      registerStrategy(d);
    } catch (e) {
      throw new CliError(`${file}: ${e instanceof Error ? e.message : String(e)}`, EXIT.badInput);
    }
  }
  return list.length;
}
