/**
 * The packaging config ships every runtime resource where src/main/resources.ts looks for it in
 * a packaged app, and resources resolve in both layouts (a fake process.resourcesPath for the
 * packaged one). The Electron binary is not needed: electron-builder itself is not run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { electronNativeBinding } from '../../../src/main/native';
import { packageRoot, runtimeResource, WORKER_NAMES, type Layout, type RuntimeResource } from '../../../src/main/resources';

const root = packageRoot();
const require = createRequire(join(root, 'package.json'));
// electron-builder matches `files` and `asarUnpack` with minimatch-style globs; picomatch reads them alike.
const picomatch = require('picomatch') as (patterns: string | string[]) => (path: string) => boolean;

interface BuilderConfig {
  files: string[];
  asar: boolean;
  asarUnpack: string[];
  npmRebuild?: boolean;
  extraResources: { from: string; to: string }[];
  afterPack: string;
  linux: { target: string[]; icon: string };
  mac: { target: string[]; icon: string };
  win: { target: string[]; icon: string };
}
const config = require('./electron-builder.config.cjs') as BuilderConfig;
const afterPack = require('./scripts/after-pack.cjs') as { FUSES: Record<string, boolean>; executablePath: (c: unknown) => string };

const RESOURCES = '/opt/Context Scope/resources';
const packaged: Layout = { kind: 'packaged', appPath: `${RESOURCES}/app.asar`, resourcesPath: RESOURCES };
const checkout: Layout = { kind: 'checkout', root };

/** The checkout file that `extraResources` copies to `packagedPath`, or undefined when none does. */
function extraResourceSource(packagedPath: string): string | undefined {
  const rel = relative(RESOURCES, packagedPath).split(sep).join('/');
  for (const { from, to } of config.extraResources) {
    if (rel === to) return join(root, from);
    if (rel.startsWith(`${to}/`)) return join(root, from, rel.slice(to.length + 1));
  }
  return undefined;
}

/** The path inside the app (asar) of a packaged path under app.asar, if `files` ships it. */
function shippedInAsar(packagedPath: string): boolean {
  const rel = relative(`${RESOURCES}/app.asar`, packagedPath).split(sep).join('/');
  const include = config.files.filter((f) => !f.startsWith('!'));
  const exclude = config.files.filter((f) => f.startsWith('!')).map((f) => f.slice(1));
  return picomatch(include)(rel) && !picomatch(exclude)(rel);
}

describe('electron-builder config', () => {
  it("passes electron-builder's own schema", async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
      validateConfiguration: (c: unknown, log: unknown) => Promise<void>;
    };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    await expect(validateConfiguration({ ...config, linux: { ...config.linux, bogus: 1 } }, new DebugLogger(false))).rejects.toThrow(
      /Invalid configuration object/,
    );
  });

  it('targets AppImage and deb, dmg, NSIS', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
  });

  it.each(['sample', 'models', 'icon', 'readme', 'policies-doc'] as RuntimeResource[])(
    'copies %s beside the asar, where the packaged app looks for it',
    (name) => {
      const source = extraResourceSource(runtimeResource(name, packaged));
      expect(source, `no extraResources entry lands on ${runtimeResource(name, packaged)}`).toBeDefined();
      expect(existsSync(source!), source).toBe(true);
      // …and it is the same file the checkout uses.
      expect(source).toBe(runtimeResource(name, checkout));
    },
  );

  it('ships every worker script and the renderer inside the asar', () => {
    for (const w of WORKER_NAMES) {
      const p = runtimeResource(`worker:${w}`, packaged);
      expect(shippedInAsar(p), p).toBe(true);
      // electron-vite builds that entry (electron.vite.config.ts names it).
      expect(readFileSync(join(root, 'electron.vite.config.ts'), 'utf8')).toContain(`'${w}': resolve(root,`);
    }
    expect(shippedInAsar(join(runtimeResource('renderer', packaged), 'index.html'))).toBe(true);
    expect(shippedInAsar(`${RESOURCES}/app.asar/out/main/index.js.map`)).toBe(false);
  });

  it('rebuilds better-sqlite3 for Electron and unpacks it where the packaged app loads it', () => {
    expect(config.asar).toBe(true);
    expect(config.npmRebuild).not.toBe(false);
    const native = runtimeResource('native-sqlite', packaged);
    expect(native.startsWith(`${RESOURCES}/app.asar.unpacked/`)).toBe(true);
    const inApp = relative(`${RESOURCES}/app.asar.unpacked`, native).split(sep).join('/');
    expect(picomatch(config.asarUnpack)(inApp), inApp).toBe(true);
  });

  it('names icons that exist at the sizes each platform needs', () => {
    expect(existsSync(join(root, config.linux.icon, '512x512.png'))).toBe(true);
    expect(config.mac.icon).toMatch(/1024x1024\.png$/);
    expect(config.win.icon).toMatch(/256x256\.png$/);
    for (const icon of [config.mac.icon, config.win.icon]) {
      const png = readFileSync(join(root, icon));
      const size = Number(icon.match(/(\d+)x\d+\.png$/)![1]);
      // PNG: the signature, then IHDR with width and height as big-endian 32-bit numbers.
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([size, size]);
    }
  });

  it('flips the fuses after packing: RunAsNode and NODE_OPTIONS off, asar only and checked, cookies encrypted', () => {
    expect(existsSync(join(root, config.afterPack))).toBe(true);
    expect(afterPack.FUSES).toMatchObject({
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableEmbeddedAsarIntegrityValidation: true,
      OnlyLoadAppFromAsar: true,
      EnableCookieEncryption: true,
    });
    const packager = { appInfo: { productFilename: 'Context Scope' }, executableName: 'context-scope' };
    expect(afterPack.executablePath({ appOutDir: '/d', electronPlatformName: 'linux', packager })).toBe('/d/context-scope');
    expect(afterPack.executablePath({ appOutDir: '/d', electronPlatformName: 'win32', packager })).toBe('/d/Context Scope.exe');
    expect(afterPack.executablePath({ appOutDir: '/d', electronPlatformName: 'darwin', packager })).toBe('/d/Context Scope.app');
  });
});

describe('runtimeResource', () => {
  it('finds the checkout files', () => {
    for (const name of ['sample', 'models', 'icon'] as RuntimeResource[])
      expect(existsSync(runtimeResource(name, checkout)), name).toBe(true);
    expect(runtimeResource('worker:import-worker', checkout)).toBe(join(root, 'out', 'main', 'import-worker.js'));
  });

  it('packaged: code in the asar, resources beside it, the native module unpacked', () => {
    expect(runtimeResource('sample', packaged)).toBe(`${RESOURCES}/sample/sample-session.jsonl`);
    expect(runtimeResource('models', packaged)).toBe(`${RESOURCES}/models.json`);
    expect(runtimeResource('worker:count-worker', packaged)).toBe(`${RESOURCES}/app.asar/out/main/count-worker.js`);
    expect(runtimeResource('renderer', packaged)).toBe(`${RESOURCES}/app.asar/out/renderer`);
    expect(runtimeResource('native-sqlite', packaged)).toBe(
      `${RESOURCES}/app.asar.unpacked/node_modules/better-sqlite3/build/Release/better_sqlite3.node`,
    );
  });

  it('the checkout native module is where scripts/electron-native.mjs builds it; no Electron, no binding', async () => {
    const script = (await import(pathToFileURL(join(root, 'scripts', 'electron-native.mjs')).href)) as {
      electronNativeFile: (root: string, v: string) => string;
    };
    expect(runtimeResource('native-sqlite', checkout, '45.4.1')).toBe(script.electronNativeFile(root, '45.4.1'));
    expect(electronNativeBinding(checkout, undefined)).toBeUndefined();
    expect(electronNativeBinding(packaged, '45.4.1')).toBeUndefined(); // not on this disk
  });
});
