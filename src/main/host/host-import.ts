/**
 * An import the desktop host starts on its own (File ▸ Open…, Open Recent, a second launch with a
 * file, the OS's open-file) is announced to the window with `hostImportStarted`, so the window
 * shows the same progress and error panels as for the files it imports itself and opens the
 * session when done.
 */
import { basename } from 'node:path';
import type { EventPayload } from '../../shared/api';

export function hostImportAnnouncement(
  jobId: string,
  paths: readonly string[],
  sizeOf: (path: string) => number,
): EventPayload<'hostImportStarted'> {
  const file = paths.length === 1 ? basename(paths[0]!) : `${paths.length} files`;
  return { jobId, file, totalBytes: paths.reduce((n, p) => n + sizeOf(p), 0) };
}
