/**
 * Every runtime resource of the app — the bundled sample, the model catalog, the icons, the
 * built renderer, the worker scripts and the Electron build of better-sqlite3 — is found through
 * `runtimeResource`, which knows the two layouts:
 *
 * - checkout (tests, the CLI, `ctxscope serve`, `npm start`): the package root, found by walking
 *   up from this module to the package.json named context-scope;
 * - packaged by electron-builder (electron-builder.config.cjs): code and renderer inside
 *   `resources/app.asar`, the folders listed as `extraResources` beside it in
 *   `process.resourcesPath`, and the native module in `app.asar.unpacked` (a .node file cannot be
 *   loaded from inside an archive).
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

export type WorkerName =
  'import-worker' | 'count-worker' | 'bulk-worker' | 'replay-worker' | 'tune-worker' | 'export-worker' | 'fleet-worker';
export const WORKER_NAMES: readonly WorkerName[] = [
  'import-worker',
  'count-worker',
  'bulk-worker',
  'replay-worker',
  'tune-worker',
  'export-worker',
  // Started by src/main/fleet/run.ts from beside the bundle that runs it (out/main in the app).
  'fleet-worker',
];

export type RuntimeResource =
  'sample' | 'models' | 'icon' | 'readme' | 'policies-doc' | 'renderer' | 'native-sqlite' | `worker:${WorkerName}`;

export type Layout =
  | { readonly kind: 'checkout'; readonly root: string }
  /** `appPath`: app.getAppPath() (…/resources/app.asar); `resourcesPath`: process.resourcesPath. */
  | { readonly kind: 'packaged'; readonly appPath: string; readonly resourcesPath: string };

export function checkoutLayout(): Layout {
  return { kind: 'checkout', root: packageRoot() };
}

/**
 * Where a resource is in a layout. `electronVersion` picks the Electron build of better-sqlite3
 * that `npm start` makes in a checkout (scripts/electron-native.mjs); packaged apps carry the one
 * electron-builder rebuilt in node_modules.
 */
export function runtimeResource(name: RuntimeResource, layout: Layout = checkoutLayout(), electronVersion?: string): string {
  const packaged = layout.kind === 'packaged';
  const code = packaged ? layout.appPath : layout.root;
  const res = packaged ? layout.resourcesPath : join(layout.root, 'resources');
  switch (name) {
    case 'sample':
      return join(res, 'sample', 'sample-session.jsonl');
    case 'models':
      return join(res, 'models.json');
    case 'icon':
      return join(res, 'icons', '512x512.png');
    case 'readme':
      return packaged ? join(res, 'docs', 'README.md') : join(layout.root, 'README.md');
    case 'policies-doc':
      return packaged ? join(res, 'docs', 'policies.md') : join(layout.root, 'docs', 'policies.md');
    case 'renderer':
      return join(code, 'out', 'renderer');
    case 'native-sqlite':
      return packaged
        ? join(layout.resourcesPath, 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')
        : join(layout.root, 'build', 'native', `electron-${electronVersion ?? 'unknown'}`, 'better_sqlite3.node');
    default:
      return join(code, 'out', 'main', `${name.slice('worker:'.length)}.js`);
  }
}

/** The built renderer (electron-vite writes it to out/renderer). */
export function rendererDir(): string {
  return runtimeResource('renderer');
}

/** The bundled sample session, the app's embedded default. */
export function sampleFile(): string {
  return runtimeResource('sample');
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
