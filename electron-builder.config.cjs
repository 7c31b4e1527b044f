/**
 * Packaging with electron-builder: `npm run package` (needs the Electron binary, so not run in
 * CI here). AppImage and deb on Linux, dmg on macOS, an NSIS installer on Windows.
 *
 * Runtime resources (src/main/resources.ts knows where each one lands):
 * - the code (out/main, out/preload, out/renderer) and the production node_modules go into
 *   resources/app.asar;
 * - better-sqlite3 is rebuilt for Electron by electron-builder's rebuild step
 *   (@electron/rebuild, the same tool scripts/electron-native.mjs uses for `npm start`) and
 *   unpacked from the asar, because a .node file cannot be loaded from inside an archive;
 * - the sample, the model catalog and the icons are copied beside the asar (`extraResources`),
 *   where process.resourcesPath finds them.
 * The Electron fuses are set on the packaged binary in scripts/after-pack.cjs.
 */
module.exports = {
  appId: 'dev.context-scope.app',
  productName: 'Context Scope',
  executableName: 'context-scope',
  copyright: 'Context Scope contributors',
  directories: { output: 'dist', buildResources: 'resources/build' },
  files: ['out/main/**', 'out/preload/**', 'out/renderer/**', 'package.json', '!**/*.map'],
  asar: true,
  asarUnpack: ['node_modules/better-sqlite3/**/*.node'],
  npmRebuild: true,
  extraResources: [
    { from: 'resources/sample', to: 'sample' },
    { from: 'resources/models.json', to: 'models.json' },
    { from: 'resources/icons', to: 'icons' },
    { from: 'README.md', to: 'docs/README.md' },
    { from: 'docs/policies.md', to: 'docs/policies.md' },
  ],
  afterPack: './scripts/after-pack.cjs',
  fileAssociations: [{ ext: ['jsonl', 'traj'], name: 'Agent transcript', role: 'Viewer' }],
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Development',
    icon: 'resources/icons',
    synopsis: 'A debugger for the context window of LLM agents',
  },
  deb: { packageCategory: 'devel' },
  mac: {
    target: ['dmg'],
    category: 'public.app-category.developer-tools',
    icon: 'resources/icons/1024x1024.png',
    hardenedRuntime: true,
  },
  win: {
    target: ['nsis'],
    icon: 'resources/icons/256x256.png',
  },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true },
};
