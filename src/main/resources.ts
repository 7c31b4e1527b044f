/**
 * Where the package's own files are, whether code runs from source (tsx, vitest) or bundled
 * (out/main, out/cli): walk up from this module to the package.json named context-scope.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'context-scope') return (cachedRoot = dir);
      } catch {
        // not ours; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the context-scope package root');
    dir = parent;
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The built renderer (electron-vite writes it to out/renderer). */
export function rendererDir(): string {
  return join(packageRoot(), 'out', 'renderer');
}

/** The bundled sample session, the app's embedded default. */
export function sampleFile(): string {
  return join(packageRoot(), 'resources', 'sample', 'sample-session.jsonl');
}

/**
 * The built worker script `name` for this runtime (`cli` or `main` bundle), or undefined when
 * running from TypeScript sources (tests), where imports then run in-process.
 */
export function builtWorkerFile(name: string, runtime: 'cli' | 'main'): string | undefined {
  if (fileURLToPath(import.meta.url).endsWith('.ts')) return undefined;
  const file = join(packageRoot(), 'out', runtime, `${name}.js`);
  return existsSync(file) ? file : undefined;
}
