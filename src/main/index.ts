/**
 * Electron main process: one hardened window, the host handler table over IPC, the SQLite store
 * in the user-data folder. Everything that is not Electron-specific lives in ./host (shared with
 * `ctxscope serve`).
 *
 * Hardening (Electron's security checklist): context isolation, sandbox, no Node in the renderer,
 * a strict CSP on every response, no remote content, navigation and new windows denied,
 * permission requests denied, every IPC call's sender checked and payload validated.
 */
import { app, BrowserWindow, dialog, ipcMain, session, shell, type WebContents } from 'electron';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createHost } from './host/handlers';
import { defaultDbPath } from './paths';
import { CONTENT_SECURITY_POLICY } from './transport/http';
import { registerIpcHandlers, sendEvent } from './transport/ipc';
import { electronNativeBinding } from './native';

const here = dirname(fileURLToPath(import.meta.url));
const appRoot = app.getAppPath();
const rendererIndex = join(here, '../renderer/index.html');
const rendererUrl = process.env['ELECTRON_RENDERER_URL'];
const sampleFile = join(appRoot, 'resources', 'sample', 'sample-session.jsonl');

/** `--db PATH` and transcript paths given on the command line after `--`. */
function parseArgs(argv: readonly string[]): { dbPath: string | undefined; files: string[] } {
  const files: string[] = [];
  let dbPath: string | undefined;
  const args = argv.slice(app.isPackaged ? 1 : 2);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--db') dbPath = args[++i];
    else if (a.startsWith('--db=')) dbPath = a.slice(5);
    else if (!a.startsWith('-') && a !== '.' && existsSync(a)) files.push(a);
  }
  return { dbPath, files };
}

function isOwnPage(url: string | undefined): boolean {
  if (!url) return false;
  if (rendererUrl) return url.startsWith(rendererUrl);
  return url === pathToFileURL(rendererIndex).href || url.startsWith(pathToFileURL(rendererIndex).href + '#');
}

async function main(): Promise<void> {
  app.enableSandbox();
  await app.whenReady();

  // Deny every permission (camera, notifications, ...): the app needs none.
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });

  const { dbPath, files } = parseArgs(process.argv);
  const windows = new Set<WebContents>();
  const host = await createHost({
    dbPath: dbPath ?? defaultDbPath(),
    hostKind: 'electron',
    version: app.getVersion(),
    initialFiles: files.length > 0 ? files : [sampleFile],
    nativeBinding: electronNativeBinding(appRoot),
    ...(existsSync(join(here, 'import-worker.js')) ? { importWorkerFile: join(here, 'import-worker.js') } : {}),
    ...(existsSync(join(here, 'count-worker.js')) ? { countWorkerFile: join(here, 'count-worker.js') } : {}),
    ...(existsSync(join(here, 'replay-worker.js')) ? { replayWorkerFile: join(here, 'replay-worker.js') } : {}),
    emit: (event, payload) => {
      for (const wc of windows) sendEvent(wc, event, payload);
    },
    pickFiles: async () => {
      const result = await dialog.showOpenDialog({ properties: ['openFile', 'multiSelections'] });
      return result.canceled ? [] : result.filePaths;
    },
  });

  registerIpcHandlers({
    ipcMain,
    handlers: host.handlers,
    isTrustedSender: (sender, frameUrl) => windows.has(sender) && isOwnPage(frameUrl),
    log: (m) => console.error(m),
  });

  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Context Scope',
    webPreferences: {
      preload: join(here, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      spellcheck: false,
    },
  });
  windows.add(win.webContents);
  win.on('closed', () => windows.delete(win.webContents));
  win.once('ready-to-show', () => win.show());

  if (rendererUrl) await win.loadURL(rendererUrl);
  else await win.loadFile(rendererIndex);

  app.on('window-all-closed', () => {
    void host.close().finally(() => app.quit());
  });
}

// No navigation away from the app, no new windows, no <webview>: links open in the OS browser.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event, url) => {
    if (!isOwnPage(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isOwnPage(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
});

main().catch((err: unknown) => {
  console.error(`Context Scope failed to start: ${err instanceof Error ? err.message : String(err)}`);
  app.exit(1);
});
