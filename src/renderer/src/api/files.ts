/**
 * Files the user hands to the page (the browser's file input, a drop on the window) reach the host
 * in the only way each host allows: Electron reads them by path (the preload's `pathForFile`, then
 * importFiles, all files in one job); `ctxscope serve` receives their bytes (POST /api/upload, one
 * file per request, with upload progress) and never tells the page where it put them.
 */
import { ApiError, type ApiClient, type Envelope } from '../../../shared/api';

export interface FileImport {
  /** The import job the host started. */
  readonly done: Promise<{ jobId: string }>;
  /**
   * Stops an upload still being sent (the host keeps nothing of it). Once it is all sent this does
   * nothing: `done` still answers the job id, and the caller cancels that job.
   */
  abort(): void;
}

export interface FileImporter {
  /** `path`: every file goes in one job; `upload`: one file per call. */
  readonly kind: 'path' | 'upload';
  start(files: readonly File[], onSent?: (sent: number, total: number) => void): FileImport;
}

/** Electron: the preload gives each File's path; the host imports them as if picked in its dialog. */
export function pathImporter(api: ApiClient, pathForFile: (file: File) => string): FileImporter {
  return {
    kind: 'path',
    start(files) {
      const paths = files.map(pathForFile).filter((p) => p.length > 0);
      const done =
        paths.length > 0
          ? api.importFiles({ paths })
          : Promise.reject(new ApiError('bad_input', 'the dropped items are not files on this computer'));
      return { done, abort: () => {} };
    },
  };
}

/** `serve`: the bytes go up with the page's token; XMLHttpRequest because fetch reports no upload progress. */
export function uploadImporter(baseUrl: string, token: string): FileImporter {
  return {
    kind: 'upload',
    start(files, onSent) {
      const file = files[0];
      if (!file) return { done: Promise.reject(new ApiError('bad_input', 'no file to upload')), abort: () => {} };
      const xhr = new XMLHttpRequest();
      // Once every byte is sent the server may already have started the import: aborting then
      // would lose its job id (and the import would run on). Let the answer come instead; the
      // import slice cancels the job it names (slices/imports.ts, `cancelAsked`).
      let sentAll = false;
      xhr.upload.onload = () => {
        sentAll = true;
      };
      const done = new Promise<{ jobId: string }>((resolve, reject) => {
        xhr.open('POST', `${baseUrl}/api/upload?name=${encodeURIComponent(file.name)}`);
        xhr.setRequestHeader('Authorization', `Bearer ${token}`);
        xhr.setRequestHeader('Content-Type', 'application/octet-stream');
        xhr.upload.onprogress = (e) => onSent?.(e.loaded, e.lengthComputable ? e.total : file.size);
        xhr.onload = () => {
          let envelope: Envelope<{ jobId: string }>;
          try {
            envelope = JSON.parse(xhr.responseText) as Envelope<{ jobId: string }>;
          } catch {
            reject(new ApiError('internal', `${file.name}: upload answered HTTP ${xhr.status} without a JSON answer`));
            return;
          }
          if (envelope.ok) resolve(envelope.value);
          else reject(new ApiError(envelope.error.code, envelope.error.message));
        };
        xhr.onerror = () => reject(new ApiError('internal', `${file.name}: the upload failed (connection lost)`));
        xhr.onabort = () => reject(new ApiError('cancelled', `${file.name}: upload cancelled`));
        xhr.send(file);
      });
      return {
        done,
        abort: () => {
          if (!sentAll) xhr.abort();
        },
      };
    },
  };
}
