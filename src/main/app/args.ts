/**
 * What a launch asks for: `--db PATH` and the transcript paths, from the app's own argv or from a
 * second launch's argv (`second-instance`), resolved against that launch's working directory.
 * Chromium and Electron switches (`--user-data-dir=…`, `--inspect`) are not files and are skipped.
 */
import { isAbsolute, resolve } from 'node:path';

export interface LaunchArgs {
  readonly dbPath: string | undefined;
  readonly files: string[];
}

export interface ArgsContext {
  /** Packaged apps get `[exe, ...args]`; `electron .` gets `[electron, appDir, ...args]`. */
  readonly packaged: boolean;
  readonly cwd: string;
  readonly isFile: (path: string) => boolean;
}

export function parseLaunchArgs(argv: readonly string[], ctx: ArgsContext): LaunchArgs {
  const files: string[] = [];
  let dbPath: string | undefined;
  const args = argv.slice(ctx.packaged ? 1 : 2);
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(ctx.cwd, p));
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--db') {
      const next = args[++i];
      if (next !== undefined) dbPath = abs(next);
    } else if (a.startsWith('--db=')) dbPath = abs(a.slice(5));
    else if (a === '--') continue;
    else if (!a.startsWith('-') && a !== '.' && ctx.isFile(abs(a))) files.push(abs(a));
  }
  return { dbPath, files };
}
