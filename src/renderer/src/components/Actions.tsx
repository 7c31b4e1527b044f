/**
 * Open… (the host's file picker in Electron, a file input in the browser: OpenButton.tsx), Export…
 * (the export dialog: ExportDialog.tsx), and needles to follow.
 */
import { useState } from 'react';
import { useAppStore } from '../context';
import { OpenButton } from './OpenButton';

export function Actions() {
  const openExport = useAppStore((s) => s.openExport);
  const setNeedles = useAppStore((s) => s.setNeedles);
  const [needle, setNeedle] = useState('');
  return (
    <div className="actions">
      <OpenButton />
      <button
        data-testid="export"
        title="The session, the compacted history at the selected call, or the replay report"
        onClick={openExport}
      >
        Export…
      </button>
      <input
        data-testid="needles"
        placeholder="needles…"
        title="Facts to follow through the replay: text or /regex/, comma-separated; Enter applies"
        aria-label="needles: text or /regex/, comma-separated"
        value={needle}
        onChange={(e) => setNeedle(e.target.value)}
        // Applied on Enter and when the box is left: typing then looking at the Context view shows them.
        onBlur={() =>
          void setNeedles(
            needle
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean),
          )
        }
        onKeyDown={(e) => {
          if (e.key === 'Enter')
            void setNeedles(
              needle
                .split(',')
                .map((x) => x.trim())
                .filter(Boolean),
            );
        }}
      />
    </div>
  );
}
