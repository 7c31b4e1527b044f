/**
 * Files dragged over the window: an overlay says where they go; dropped, they are imported (uploaded
 * to `serve`, read by path in Electron). Anything that is not files (text, links) is left alone.
 */
import { useEffect, useState } from 'react';
import { useAppStore } from '../context';

const hasFiles = (e: DragEvent): boolean => e.dataTransfer?.types.includes('Files') ?? false;

export function DropOverlay() {
  const importPageFiles = useAppStore((s) => s.importPageFiles);
  const showImportError = useAppStore((s) => s.showImportError);
  const [over, setOver] = useState(false);
  useEffect(() => {
    // dragenter/dragleave fire for every child crossed: count them so the overlay does not flicker.
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth++;
      setOver(true);
    };
    const overHandler = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      // Without this the browser would navigate to the dropped file.
      e.preventDefault();
      depth = 0;
      setOver(false);
      // A folder arrives as a File too (and would fail as an unreadable upload or "no such file").
      const items = [...(e.dataTransfer?.items ?? [])];
      const files = [...(e.dataTransfer?.files ?? [])];
      const folders = files.filter((_, i) => items[i]?.webkitGetAsEntry?.()?.isDirectory === true);
      // (Said after the import starts, which clears the previous error.)
      void importPageFiles(files.filter((f) => !folders.includes(f)));
      if (folders.length > 0)
        showImportError(folders.map((f) => f.name).join(', '), 'a folder: drop the transcript files inside it instead');
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragover', overHandler);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragover', overHandler);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [importPageFiles, showImportError]);
  if (!over) return null;
  return (
    <div className="drop-overlay" data-testid="drop-overlay">
      <div>Drop transcripts to open them</div>
    </div>
  );
}
