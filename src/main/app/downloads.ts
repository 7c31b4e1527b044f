/**
 * Saving a file the window made (the export dialog's Save, a chart as PNG or SVG, a policy file):
 * the page downloads a `blob:` it built, and Electron's `will-download` hands the item here. It
 * gets the native save dialog, opened on the user's downloads folder with the page's file name
 * (the export dialog's File name field: the `download` attribute) and a filter for its extension.
 * A download of anything that is not the page's own blob (a link to elsewhere) is cancelled: the
 * window loads no remote content and saves nothing it did not make.
 */
import { extname, join } from 'node:path';

/** The part of Electron's SaveDialogOptions this sets. */
export interface SaveDialogOptionsLike {
  title: string;
  defaultPath: string;
  buttonLabel: string;
  filters: { name: string; extensions: string[] }[];
}

/** The part of Electron's DownloadItem this uses (a fake in tests). */
export interface DownloadItemLike {
  getURL(): string;
  getFilename(): string;
  setSaveDialogOptions(options: SaveDialogOptionsLike): void;
  cancel(): void;
}

/** Sets up the native save dialog for a download the window started; returns false when it was refused. */
export function askWhereToSave(item: DownloadItemLike, downloadsDir: string): boolean {
  if (!item.getURL().startsWith('blob:')) {
    item.cancel();
    return false;
  }
  // getFilename() is the `download` attribute the page set, already without folders.
  const name = item.getFilename() || 'export';
  const ext = extname(name).slice(1);
  item.setSaveDialogOptions({
    title: 'Save',
    defaultPath: join(downloadsDir, name),
    buttonLabel: 'Save',
    filters: [...(ext ? [{ name: `${ext.toUpperCase()} file`, extensions: [ext] }] : []), { name: 'All files', extensions: ['*'] }],
  });
  return true;
}
