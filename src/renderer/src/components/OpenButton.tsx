/**
 * Open…: Electron shows its native dialog (pickAndImport); in the browser (`ctxscope serve`) a file
 * input, whose files are uploaded and imported (the import slice).
 */
import { useRef } from 'react';
import { useAppStore } from '../context';

export function OpenButton() {
  const host = useAppStore((s) => s.info?.host ?? null);
  const openFiles = useAppStore((s) => s.openFiles);
  const importPageFiles = useAppStore((s) => s.importPageFiles);
  const busy = useAppStore((s) => s.importing !== null || s.importProgress !== null);
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button
        data-testid="open-files"
        title="Open a transcript (or drop files on the window)"
        onClick={() => (host === 'serve' ? input.current?.click() : void openFiles())}
        disabled={busy}
      >
        {busy ? 'Importing…' : 'Open…'}
      </button>
      {host === 'serve' ? (
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="open-file"
          aria-label="Transcript files to upload"
          onChange={(e) => {
            const chosen = [...(e.target.files ?? [])];
            // Cleared so choosing the same file again fires change again.
            e.target.value = '';
            void importPageFiles(chosen);
          }}
        />
      ) : null}
    </>
  );
}
