/**
 * FILE arguments: plain files, directories (every file inside, recursively) and globs, in a
 * stable order. A path that matches nothing is a usage error naming it.
 */
import { existsSync, statSync } from 'node:fs';
import { glob } from 'tinyglobby';
import { CliError, EXIT } from './errors';
import { checkRegularFile } from './load';

/** Regular files only: a FIFO or device inside a folder or a glob would block the import. */
const regularFiles = (paths: readonly string[]): string[] =>
  paths.filter((p) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  });

const TRANSCRIPT_GLOB = '**/*.{jsonl,json,traj,md,ndjson,log}';

export async function expandInputs(inputs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const input of inputs) {
    if (existsSync(input)) {
      if (statSync(input).isDirectory())
        out.push(...regularFiles(await glob(TRANSCRIPT_GLOB, { cwd: input, absolute: true, dot: false })).sort());
      else {
        checkRegularFile(input);
        out.push(input);
      }
      continue;
    }
    if (/[*?[\]{}]/.test(input)) {
      const matches = regularFiles(await glob(input, { absolute: true })).sort();
      if (matches.length === 0) throw new CliError(`${input}: no files match`, EXIT.usage);
      out.push(...matches);
      continue;
    }
    throw new CliError(`${input}: no such file`, EXIT.usage);
  }
  return [...new Set(out)];
}

/** True when the inputs name more than one transcript (directory, glob or several files). */
export function isBatch(inputs: readonly string[]): boolean {
  return inputs.length > 1 || inputs.some((i) => !existsSync(i) || statSync(i).isDirectory());
}
