/**
 * The running import (file, bytes of total, rate, ETA, Cancel; the upload first on `serve`) and,
 * when a file did not import, an error panel that names the file, the line and what was expected,
 * and stays until dismissed.
 */
import { useRef } from 'react';
import { useAppStore } from '../context';
import { useModal } from '../use-modal';
import { fmtBytes, fmtDuration, importErrorParts } from '../model/import-view';

export function ImportProgress() {
  const p = useAppStore((s) => s.importProgress);
  const cancel = useAppStore((s) => s.cancelCurrentImport);
  if (!p) return null;
  const pct = p.totalBytes > 0 ? Math.min(100, (p.bytes / p.totalBytes) * 100) : 0;
  return (
    <section
      className="import-panel"
      data-testid="import-progress"
      data-phase={p.phase}
      data-bytes={p.bytes}
      data-total={p.totalBytes}
      aria-live="polite"
    >
      <header>
        <strong>{p.phase === 'upload' ? 'Uploading' : 'Importing'}</strong> <bdi data-testid="import-file">{p.file}</bdi>
        {p.queued > 0 ? <span className="muted"> (then {p.queued} more)</span> : null}
      </header>
      <progress max={100} value={pct} />
      <div className="import-figures">
        <span data-testid="import-bytes">
          {fmtBytes(p.bytes)} / {fmtBytes(p.totalBytes)} ({pct.toFixed(0)}%)
        </span>
        <span data-testid="import-rate">{p.bytesPerSecond > 0 ? `${fmtBytes(p.bytesPerSecond)}/s` : '—'}</span>
        <span data-testid="import-eta">ETA {fmtDuration(p.etaMs)}</span>
        <button data-testid="import-cancel" onClick={() => void cancel()}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/** Modal (use-modal.ts): the user reads it and dismisses it (button or Escape) before going on. */
export function ImportErrorPanel() {
  const err = useAppStore((s) => s.importError);
  const dismiss = useAppStore((s) => s.dismissImportError);
  const dialog = useRef<HTMLElement>(null);
  useModal(err !== null, dialog, dismiss);
  if (!err) return null;
  const parts = importErrorParts(err.message, err.file);
  return (
    <div className="modal-backdrop import-error-backdrop">
      <section
        ref={dialog}
        className="import-panel import-error"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="import-error-title"
        data-testid="import-error"
        data-line={parts.line ?? ''}
      >
        <header>
          <strong id="import-error-title">Could not open the file</strong>
          <button data-testid="import-error-dismiss" onClick={dismiss} data-autofocus>
            Dismiss
          </button>
        </header>
        <dl>
          <dt>File</dt>
          <dd>
            <bdi data-testid="import-error-file">{parts.file}</bdi>
          </dd>
          {parts.line !== null ? (
            <>
              <dt>Line</dt>
              <dd data-testid="import-error-line">
                {parts.line}
                {parts.column !== null ? `, column ${parts.column}` : ''}
              </dd>
            </>
          ) : null}
          <dt>Expected</dt>
          <dd>
            <bdi data-testid="import-error-expected">{parts.expected}</bdi>
          </dd>
        </dl>
      </section>
    </div>
  );
}
