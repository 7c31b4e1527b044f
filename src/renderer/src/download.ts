/** Saves a file through the browser's download (works in Electron, which asks where, and in `serve`). */
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Saves text as a file (see downloadBlob). */
export function download(fileName: string, mime: string, text: string): void {
  downloadBlob(fileName, new Blob([text], { type: mime }));
}
