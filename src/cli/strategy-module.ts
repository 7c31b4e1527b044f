/**
 * `--strategy-module FILE.js`: a user's own strategies, loaded by the CLI only (the app never
 * executes user code). The module exports functions with the strategy signature
 * `(history, budget, ctx) => { kept, dropped, masked?, summaryRequest?, note }`, either as named
 * exports or as a default object of them; each is used as `custom:<name>` in a pipeline, e.g.
 * `--set pipeline=custom:keepErrors,sliding-window`. Results are checked by the replay
 * (src/core/strategies/check.ts) before they touch the window.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Strategy } from '../core/strategies/types';
import { CliError, EXIT } from './errors';

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
    const entries: [string, unknown][] = Object.entries(mod).filter(([k]) => k !== 'default');
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
    if (found === 0)
      throw new CliError(
        `${file}: expected the module to export strategy functions (named exports or a default object of them)`,
        EXIT.badInput,
      );
  }
  return out;
}
