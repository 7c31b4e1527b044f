/**
 * Electron main process: one hardened window, the host handler table over IPC, the SQLite store
 * in the user-data folder. Everything that is not Electron-specific lives in ./host (shared with
 * `ctxscope serve`); each desktop concern (single instance, menu, preferences, window bounds,
 * hardening, CSP) is a small module under ./app, tested without Electron.
 *
 * Hardening (Electron's security checklist): context isolation, sandbox, no Node in the renderer,
 * a strict CSP on the built page, no remote content, navigation and new windows denied (only the
 * project's documentation links open, in the OS browser), permissions denied, every IPC call's
 * sender checked and payload validated. Fuses are set on the packaged binary (scripts/after-pack.cjs).
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeTheme, screen, session, shell, type WebContents } from 'electron';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EventName, EventPayload } from '../shared/api';
import { parseLaunchArgs } from './app/args';
import { withCsp } from './app/csp';
import { lockDatabase, processIsAlive } from './app/db-lock';
import { denyAllPermissions, guardContents } from './app/hardening';
import { menuTemplate, type MenuActions } from './app/menu';
import { addRecent, PrefsStore, type Theme } from './app/prefs';
import { askWhereToSave } from './app/downloads';
import { claimSingleInstance } from './app/single-instance';
import { boundsToSave, initialBounds, MIN_SIZE } from './app/window-state';
import { createHost } from './host/handlers';
import { hostImportAnnouncement } from './host/host-import';
import { electronNativeBinding } from './native';
import { DB_FILE_NAME, defaultDbPath, userDataDir } from './paths';
import { runtimeResource, type Layout, type WorkerName } from './resources';
import { CONTENT_SECURITY_POLICY } from './transport/http';
import { registerIpcHandlers, sendEvent } from './transport/ipc';

const here = dirname(fileURLToPath(import.meta.url));
const layout: Layout = app.isPackaged
  ? { kind: 'packaged', appPath: app.getAppPath(), resourcesPath: process.resourcesPath }
  : { kind: 'checkout', root: app.getAppPath() };
const rendererIndex = join(runtimeResource('renderer', layout), 'index.html');
const rendererDirUrl = pathToFileURL(runtimeResource('renderer', layout)).href;
const rendererUrl = process.env['ELECTRON_RENDERER_URL'];
const isFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

const fileSize = (p: string): number => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};

function isOwnPage(url: string | undefined): boolean {
  if (!url) return false;
  if (rendererUrl) return url.startsWith(rendererUrl);
  return url === pathToFileURL(rendererIndex).href || url.startsWith(pathToFileURL(rendererIndex).href + '#');
}

/** The built worker script, when the build made it (else the host runs that work in-process). */
function workerFile(name: WorkerName): string | undefined {
  const file = runtimeResource(`worker:${name}`, layout);
  return existsSync(file) ? file : existsSync(join(here, `${name}.js`)) ? join(here, `${name}.js`) : undefined;
}

// The user-data folder is the one the CLI and `serve` use (src/main/paths.ts), unless a launch
// names its own with --user-data-dir (tests, a second profile). The single-instance lock is per
// folder, and the database lives in it: two instances never share a database.
const ownUserData = app.commandLine.hasSwitch('user-data-dir');
if (!ownUserData) app.setPath('userData', userDataDir());

let mainWindow: BrowserWindow | null = null;
const instance = claimSingleInstance(app, {
  isFile,
  focus: () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  },
});

async function main(): Promise<void> {
  app.enableSandbox();
  await app.whenReady();

  denyAllPermissions(session.defaultSession);
  // What the window saves (export dialog, chart PNG/SVG) goes through the native save dialog.
  session.defaultSession.on('will-download', (_event, item) => void askWhereToSave(item, app.getPath('downloads')));
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    const responseHeaders = withCsp(details.responseHeaders, details.url, rendererDirUrl, CONTENT_SECURITY_POLICY);
    callback(responseHeaders ? { responseHeaders } : {});
  });

  const prefsFile = join(app.getPath('userData'), 'prefs.json');
  const prefs = new PrefsStore({
    read: () => (existsSync(prefsFile) ? readFileSync(prefsFile, 'utf8') : undefined),
    write: (text) => {
      mkdirSync(dirname(prefsFile), { recursive: true });
      writeFileSync(prefsFile, text);
    },
  });
  nativeTheme.themeSource = prefs.get().theme;

  const { dbPath, files } = parseLaunchArgs(process.argv, { packaged: app.isPackaged, cwd: process.cwd(), isFile });
  const windows = new Set<WebContents>();
  const importWorkerFile = workerFile('import-worker');
  const countWorkerFile = workerFile('count-worker');
  const replayWorkerFile = workerFile('replay-worker');
  const nativeBinding = electronNativeBinding(layout);
  const db = dbPath ?? (ownUserData ? join(app.getPath('userData'), DB_FILE_NAME) : defaultDbPath());
  if (db !== ':memory:') mkdirSync(dirname(db), { recursive: true });
  const dbLock =
    db === ':memory:'
      ? { ok: true as const, release: () => {} }
      : lockDatabase(db, process.pid, processIsAlive, {
          createExclusive: (path, text) => writeFileSync(path, text, { flag: 'wx' }),
          read: (path) => readFileSync(path, 'utf8'),
          remove: (path) => rmSync(path, { force: true }),
        });
  if (!dbLock.ok) {
    dialog.showErrorBox(
      'Context Scope is already open on this database',
      `${db} is in use by another Context Scope window${Number.isNaN(dbLock.heldBy) ? '' : ` (process ${dbLock.heldBy})`}. Use that window, or start with --db to open another database.`,
    );
    app.exit(1);
    return;
  }
  app.on('quit', () => dbLock.release());
  const host = await createHost({
    dbPath: db,
    hostKind: 'electron',
    version: app.getVersion(),
    initialFiles: files.length > 0 ? files : [runtimeResource('sample', layout)],
    ...(nativeBinding ? { nativeBinding } : {}),
    ...(importWorkerFile ? { importWorkerFile } : {}),
    ...(countWorkerFile ? { countWorkerFile } : {}),
    ...(replayWorkerFile ? { replayWorkerFile } : {}),
    emit: <E extends EventName>(event: E, payload: EventPayload<E>) => {
      for (const wc of windows) sendEvent(wc, event, payload);
    },
    pickFiles: () => pickFiles(),
  });

  registerIpcHandlers({
    ipcMain,
    handlers: host.handlers,
    isTrustedSender: (sender, frameUrl) => windows.has(sender) && isOwnPage(frameUrl),
    log: (m) => console.error(m),
  });

  async function pickFiles(): Promise<string[]> {
    const options = { properties: ['openFile', 'multiSelections'] as ('openFile' | 'multiSelections')[] };
    const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
    if (!result.canceled) remember(result.filePaths);
    return result.canceled ? [] : result.filePaths;
  }

  function remember(paths: readonly string[]): void {
    let recent = prefs.get().recent;
    for (const p of paths) {
      recent = addRecent(recent, p);
      app.addRecentDocument(p);
    }
    prefs.update({ recent });
    buildMenu();
  }

  function openPaths(paths: string[]): void {
    const existing = paths.filter(isFile);
    if (existing.length === 0) return;
    remember(existing);
    // The window adopts the job (hostImportStarted): its progress and error panels, then its session.
    void host.handlers.importFiles({ paths: existing }).then(({ jobId }) => {
      for (const wc of windows) sendEvent(wc, 'hostImportStarted', hostImportAnnouncement(jobId, existing, fileSize));
    });
  }

  const actions: MenuActions = {
    open: () => void pickFiles().then((paths) => paths.length > 0 && openPaths(paths)),
    // The window's agent-logs panel lists them (listLocalLogs); one click there imports.
    importLogs: () => windows.forEach((wc) => sendEvent(wc, 'showLocalLogs', {})),
    openRecent: (path) => {
      if (isFile(path)) return openPaths([path]);
      prefs.update({ recent: prefs.get().recent.filter((p) => p !== path) });
      buildMenu();
      void dialog.showMessageBox({ type: 'warning', message: 'The file is no longer there', detail: path });
    },
    clearRecent: () => {
      prefs.update({ recent: [] });
      app.clearRecentDocuments();
      buildMenu();
    },
    // The window's own export dialog (what, format, redaction, file name), not a second one here.
    exportCurrent: () => {
      for (const wc of windows) sendEvent(wc, 'exportRequested', {});
    },
    setTheme: (theme: Theme) => {
      nativeTheme.themeSource = theme;
      prefs.update({ theme });
      buildMenu();
    },
    // Local files shipped with the app: the project has no published address (see app/links.ts).
    openReadme: () => void shell.openPath(runtimeResource('readme', layout)),
    openPoliciesDoc: () => void shell.openPath(runtimeResource('policies-doc', layout)),
  };

  function buildMenu(): void {
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        menuTemplate(
          { appName: 'Context Scope', platform: process.platform, recent: prefs.get().recent, theme: prefs.get().theme },
          actions,
        ),
      ),
    );
  }
  buildMenu();
  if (files.length > 0) remember(files);

  async function createWindow(): Promise<void> {
    const bounds = initialBounds(
      prefs.get().window,
      screen.getAllDisplays().map((d) => d.workArea),
    );
    const win = new BrowserWindow({
      width: bounds.width,
      height: bounds.height,
      ...(bounds.x !== undefined && bounds.y !== undefined ? { x: bounds.x, y: bounds.y } : {}),
      minWidth: MIN_SIZE.width,
      minHeight: MIN_SIZE.height,
      show: false,
      title: 'Context Scope',
      backgroundColor: nativeTheme.shouldUseDarkColors ? '#101318' : '#ffffff',
      ...(app.isPackaged || !existsSync(runtimeResource('icon', layout)) ? {} : { icon: runtimeResource('icon', layout) }),
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
        // Middle-click must not open links in a new window behind the window-open handler's back.
        disableBlinkFeatures: 'Auxclick',
      },
    });
    mainWindow = win;
    const contents = win.webContents;
    windows.add(contents);
    if (bounds.maximized) win.maximize();
    win.on('close', () => prefs.update({ window: boundsToSave(win.getNormalBounds(), win.isMaximized()) }));
    win.on('closed', () => {
      windows.delete(contents);
      if (mainWindow === win) mainWindow = null;
    });
    win.once('ready-to-show', () => win.show());
    if (rendererUrl) await win.loadURL(rendererUrl);
    else await win.loadFile(rendererIndex);
  }

  await createWindow();
  instance.ready(openPaths);

  // macOS: clicking the dock icon with no window open brings one back.
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) void createWindow();
  });
  // macOS apps stay in the dock when their last window closes; elsewhere closing it quits.
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    void host.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
}

// No navigation away from the app, no new windows, no <webview>: documentation links open in the OS browser.
app.on('web-contents-created', (_event, contents) => guardContents(contents, isOwnPage, (url) => void shell.openExternal(url)));

if (instance.primary) {
  main().catch((err: unknown) => {
    console.error(`Context Scope failed to start: ${err instanceof Error ? err.message : String(err)}`);
    app.exit(1);
  });
}
