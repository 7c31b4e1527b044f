/**
 * One running app per user-data folder. The database lives in that folder, so two instances
 * never share it: a second launch hands its files to the first (`second-instance`) and quits.
 * macOS delivers files dropped on the dock icon or opened from Finder as `open-file`, which can
 * arrive before the app is ready: those wait until `ready()` hands them over.
 */
import type { App } from 'electron';
import { parseLaunchArgs } from './args';

type AppLike = Pick<App, 'requestSingleInstanceLock' | 'quit' | 'on' | 'isPackaged'>;

export interface SingleInstance {
  /** False when another instance holds the lock: this one is quitting. */
  readonly primary: boolean;
  /** Call once the window can open files: queued `open-file` paths are handed over, later ones directly. */
  ready(open: (paths: string[]) => void): void;
}

export function claimSingleInstance(app: AppLike, options: { isFile: (p: string) => boolean; focus: () => void }): SingleInstance {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return { primary: false, ready() {} };
  }
  let opener: ((paths: string[]) => void) | undefined;
  const queued: string[] = [];
  const deliver = (paths: string[]): void => {
    if (paths.length === 0) return;
    if (opener) opener(paths);
    else queued.push(...paths);
  };
  app.on('second-instance', (_event, argv, workingDirectory) => {
    options.focus();
    deliver(parseLaunchArgs(argv, { packaged: app.isPackaged, cwd: workingDirectory, isFile: options.isFile }).files);
  });
  app.on('open-file', (event, path) => {
    event.preventDefault();
    if (options.isFile(path)) deliver([path]);
  });
  return {
    primary: true,
    ready(open) {
      opener = open;
      if (queued.length > 0) open(queued.splice(0));
    },
  };
}
