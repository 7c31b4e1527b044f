/**
 * Open… (the host's file picker; `ctxscope serve` has none and says so), Export… (the export
 * dialog: ExportDialog.tsx), and needles to follow.
 */
import { useState } from 'react';
import { useAppStore } from '../context';

export function Actions() {
  const openFiles = useAppStore((s) => s.openFiles);
  const importing = useAppStore((s) => s.importing);
  const openExport = useAppStore((s) => s.openExport);
  const setNeedles = useAppStore((s) => s.setNeedles);
  const [needle, setNeedle] = useState('');
  return (
    <div className="actions">
      <button data-testid="open-files" onClick={() => void openFiles()} disabled={importing !== null}>
        {importing ? 'Importing…' : 'Open…'}
      </button>
      <button data-testid="export" title="The session, the compacted history at the selected call, or the replay report" onClick={openExport}>
        Export…
      </button>
      <input
        data-testid="needles"
        placeholder="needles: text or /regex/, comma-separated"
        value={needle}
        onChange={(e) => setNeedle(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') void setNeedles(needle.split(',').map((x) => x.trim()).filter(Boolean));
        }}
      />
    </div>
  );
}
