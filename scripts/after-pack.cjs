/**
 * electron-builder's afterPack hook (electron-builder.config.cjs): flips the Electron fuses of
 * the packaged binary before it is signed and wrapped into AppImage / deb / dmg / NSIS.
 * - RunAsNode off: ELECTRON_RUN_AS_NODE cannot turn the app into a plain Node runtime;
 * - NODE_OPTIONS and --inspect arguments ignored: no code injected through the environment;
 * - the app loads only from its asar, whose integrity is checked against the hash embedded at
 *   build time (macOS and Windows validate it);
 * - cookies encrypted at rest with the OS keychain.
 */
// electron-builder loads its hooks with require(): this file is CommonJS.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { join } = require('node:path');

/** The fuse settings, by FuseV1Options name (tested in test/unit/app/packaging.test.ts). */
const FUSES = {
  RunAsNode: false,
  EnableCookieEncryption: true,
  EnableNodeOptionsEnvironmentVariable: false,
  EnableNodeCliInspectArguments: false,
  EnableEmbeddedAsarIntegrityValidation: true,
  OnlyLoadAppFromAsar: true,
};

/** The packaged executable electron-builder wrote for this platform. */
function executablePath(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas')
    return join(appOutDir, `${packager.appInfo.productFilename}.app`);
  if (electronPlatformName === 'win32') return join(appOutDir, `${packager.appInfo.productFilename}.exe`);
  return join(appOutDir, packager.executableName ?? packager.appInfo.productFilename);
}

async function afterPack(context) {
  const { flipFuses, FuseVersion, FuseV1Options } = await import('@electron/fuses');
  const settings = {
    version: FuseVersion.V1,
    resetAdHocDarwinSignature: context.electronPlatformName === 'darwin' && context.arch === 3 /* Arch.arm64 */,
  };
  for (const [name, value] of Object.entries(FUSES)) settings[FuseV1Options[name]] = value;
  await flipFuses(executablePath(context), settings);
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.FUSES = FUSES;
module.exports.executablePath = executablePath;
