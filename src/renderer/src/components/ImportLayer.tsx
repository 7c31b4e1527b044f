/** Everything about getting files in that floats over the window: drop overlay, progress, error, agent logs. */
import { DropOverlay } from './DropOverlay';
import { ImportErrorPanel, ImportProgress } from './ImportProgress';
import { LocalLogsPanel } from './LocalLogs';
import './imports.css';

export function ImportLayer() {
  return (
    <>
      <DropOverlay />
      <LocalLogsPanel />
      <div className="import-layer">
        <ImportProgress />
      </div>
      <ImportErrorPanel />
    </>
  );
}
