/**
 * Open… (the host's file picker in Electron, a file input in the browser: OpenButton.tsx), Export (the compacted
 * history at the selected call, or the report, downloaded as a file), and needles to follow.
 */
import { useState } from 'react';
import { EXPORT_TARGETS, type ExportTarget } from '../../../shared/api';
import { useAppStore } from '../context';
import { download } from '../download';
import { OpenButton } from './OpenButton';

export function Actions() {
  const exportCurrent = useAppStore((s) => s.exportCurrent);
  const setNeedles = useAppStore((s) => s.setNeedles);
  const [target, setTarget] = useState<ExportTarget>('openai');
  const [needle, setNeedle] = useState('');
  return (
    <div className="actions">
      <OpenButton />
      <select aria-label="Export format" data-testid="export-target" value={target} onChange={(e) => setTarget(e.target.value as ExportTarget)}>
        {EXPORT_TARGETS.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
      <button
        data-testid="export"
        title="The compacted history at the selected call (or the end), or the replay report"
        onClick={() =>
          void exportCurrent(target).then((r) => {
            if (r) download(r.fileName, r.mime, r.text);
          })
        }
      >
        Export
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
